import { createHash, hash, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_ID_LENGTH = 10;
export const TOKEN_SECRET_LENGTH = 22;

export function randomString(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export function hashSecret(secret: string): Buffer {
  // The one-shot hash (Node ≥ 20.12) skips the Hash object: this runs on every authenticated request.
  return typeof hash === 'function'
    ? hash('sha256', secret, 'buffer')
    : createHash('sha256').update(secret).digest();
}

export function secretMatches(secret: string, stored: Buffer): boolean {
  const candidate = hashSecret(secret);
  return candidate.length === stored.length && timingSafeEqual(candidate, stored);
}

export type ParsedToken = { id: string; secret: string } | { problem: string };

/** `<10-char id>-<22-char secret>`, both [0-9A-Za-z]. */
export function parseToken(raw: string): ParsedToken {
  const parts = raw.split('-');
  if (parts.length !== 2)
    return { problem: `expected exactly one "-" separating id and secret, found ${parts.length - 1}` };
  const [id, secret] = parts as [string, string];
  if (id.length !== TOKEN_ID_LENGTH)
    return { problem: `id length must be ${TOKEN_ID_LENGTH}, got ${id.length}` };
  if (secret.length !== TOKEN_SECRET_LENGTH) {
    return { problem: `secret length must be ${TOKEN_SECRET_LENGTH}, got ${secret.length}` };
  }
  return { id, secret };
}
