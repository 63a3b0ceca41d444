import { Injectable } from '@nestjs/common';
import sshpk from 'sshpk';
import { QueryFailedError } from 'typeorm';
import { ForbiddenError, InvalidError, NotFoundError } from '../../platform/errors/domain-error';
import type { User } from '../identity/entities/user.entity';
import type { PublicKey } from './entities/public-key.entity';
import { PublicKeysRepository } from './public-keys.repository';

/** Minimum key sizes by algorithm (Gitea's default [ssh.minimum_key_sizes]); other types are refused. */
const MINIMUM_KEY_SIZES: Record<string, number> = { ed25519: 256, ecdsa: 256, rsa: 2047 };

export interface ParsedKey {
  content: string;
  fingerprint: string;
  algorithm: string;
  size: number;
}

/** Parses one OpenSSH public key line; throws InvalidError with Gitea's texts. */
export function parsePublicKey(text: string): ParsedKey {
  const content = text.trim();
  if (/[\r\n]/.test(content))
    throw new InvalidError('Invalid key content: only a single line with a single key please');
  let key: sshpk.Key;
  try {
    key = sshpk.parseKey(content, 'ssh');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new InvalidError(`Invalid key content: invalid ssh public key: ${message}`);
  }
  if (!key.type) throw new InvalidError('Unable to verify key content');
  const minimum = MINIMUM_KEY_SIZES[key.type];
  if (minimum === undefined)
    throw new InvalidError(`Invalid key content: key type is not allowed: ${key.type}`);
  if (key.size < minimum) {
    throw new InvalidError(
      `Invalid key content: key length is not enough: got ${key.size}, needs ${minimum}`,
    );
  }
  return { content, fingerprint: key.fingerprint('sha256').toString(), algorithm: key.type, size: key.size };
}

function uniqueViolation(error: unknown): string | null {
  if (!(error instanceof QueryFailedError)) return null;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' ? (driverError.constraint ?? '') : null;
}

@Injectable()
export class PublicKeysService {
  constructor(private readonly keys: PublicKeysRepository) {}

  async add(owner: User, title: string, text: string): Promise<PublicKey> {
    const parsed = parsePublicKey(text);
    if (await this.keys.fingerprintUsed(parsed.fingerprint)) {
      throw new InvalidError('Key content has been used as non-deploy key');
    }
    if (await this.keys.titleUsed(owner.id, title)) throw new InvalidError('Key title has been used');
    try {
      const saved = await this.keys.insert({
        ownerId: owner.id,
        title,
        content: parsed.content,
        fingerprint: parsed.fingerprint,
        algorithm: parsed.algorithm,
        keySize: parsed.size,
      });
      saved.owner = owner;
      return saved;
    } catch (error) {
      const constraint = uniqueViolation(error);
      if (constraint === null) throw error;
      throw new InvalidError(
        constraint.includes('title')
          ? 'Key title has been used'
          : 'Key content has been used as non-deploy key',
      );
    }
  }

  async list(
    owner: User,
    fingerprint: string | undefined,
    offset: number,
    limit: number,
  ): Promise<[PublicKey[], number]> {
    const [rows, total] = await this.keys.page(owner.id, fingerprint, offset, limit);
    for (const row of rows) row.owner = owner;
    return [rows, total];
  }

  /** A key of `owner` by id: 404 when unknown, 403 when it belongs to someone else. */
  async requireOwned(owner: User, rawId: string): Promise<PublicKey> {
    const key = /^\d{1,18}$/.test(rawId) ? await this.keys.findById(rawId) : null;
    if (!key) throw new NotFoundError('not found');
    if (key.ownerId !== owner.id) throw new ForbiddenError('You do not have access to this key');
    key.owner = owner;
    return key;
  }

  async remove(owner: User, rawId: string): Promise<void> {
    const key = await this.requireOwned(owner, rawId);
    await this.keys.delete(key.id);
  }
}
