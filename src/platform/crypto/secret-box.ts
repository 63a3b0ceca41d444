import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Sealed values look like `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts). */
const VERSION = 'v1';

export class SecretBoxError extends Error {}

/**
 * AES-256-GCM for values kept at rest (user secrets, AI provider keys). One 32-byte key
 * (`SECRETS_KEY`, or the key generated into DATA_DIR on first start, see SecretsModule).
 * `context` is bound as additional authenticated data: a value sealed for one row cannot be
 * opened as another's (pass e.g. `user-secret:<userId>:<name>`; the same on open).
 */
export class SecretBox {
  readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SecretBoxError('a secrets key is 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('base64url').slice(0, 8);
  }

  seal(plain: string | Buffer, context = ''): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([
      cipher.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain),
      cipher.final(),
    ]);
    return [
      VERSION,
      this.keyId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      body.toString('base64url'),
    ].join('.');
  }

  open(sealed: string, context = ''): Buffer {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('not a sealed value');
    if (parts[1] !== this.keyId) throw new SecretBoxError('sealed under another key');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(parts[2], 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(parts[3], 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(parts[4], 'base64url')), decipher.final()]);
    } catch {
      throw new SecretBoxError('the sealed value does not open with this key');
    }
  }

  openText(sealed: string, context = ''): string {
    return this.open(sealed, context).toString('utf8');
  }
}

/** SECRETS_KEY accepts 64 hex characters or base64/base64url of 32 bytes. */
export function parseSecretsKey(raw: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  const decoded = Buffer.from(raw, raw.includes('-') || raw.includes('_') ? 'base64url' : 'base64');
  return decoded.length === 32 ? decoded : undefined;
}
