import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { VersionedCache } from '../../platform/cache/versioned-cache';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { ConflictError } from '../../platform/errors/domain-error';
import { randomString, hashSecret, TOKEN_ID_LENGTH, TOKEN_SECRET_LENGTH } from './api-token-codec';
import { ActivityRecorder } from './activity-recorder.service';
import { AccountsRepository } from './repositories/accounts.repository';
import { ApiTokensRepository } from './repositories/api-tokens.repository';
import { ApiTokenLookupRepository } from './repositories/api-token-lookup.repository';
import { ApiToken } from './entities/api-token.entity';
import type { LoginType } from './entities/user.entity';

export interface CreateTokenInput {
  userId: string;
  name?: string;
  scopes?: string[];
  lifetimeSeconds: number;
  loginType?: LoginType;
  ipAddress?: string;
  passwordConfirmedAt?: Date | null;
}

export interface CreatedToken {
  token: ApiToken;
  /** The full `<id>-<secret>` key: shown once, never stored. */
  key: string;
}

const ONE_HOUR_MS = 3_600_000;

@Injectable()
export class ApiTokensService {
  /** Token rows with their owner, by token id: served from memory until a write to either table. */
  private readonly lookupCache: VersionedCache<string, Record<string, unknown> | undefined>;

  constructor(
    private readonly tokens: ApiTokensRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly activity: ActivityRecorder,
    private readonly accountRows: AccountsRepository,
    private readonly lookupRows: ApiTokenLookupRepository,
  ) {
    this.lookupCache = new VersionedCache({
      tables: ['api_tokens', 'users'],
      ttlMs: config.identityCacheSeconds * 1000,
    });
  }

  async create(input: CreateTokenInput, manager?: EntityManager): Promise<CreatedToken> {
    const id = randomString(TOKEN_ID_LENGTH);
    const secret = randomString(TOKEN_SECRET_LENGTH);
    const name =
      input.name && input.name !== '' ? input.name : `${input.loginType ?? 'token'}_${id.toLowerCase()}`;
    if (await this.tokens.nameExists(input.userId, name, manager)) {
      throw new ConflictError(`A token with name "${name}" already exists.`, { code: 'TOKEN_NAME_TAKEN' });
    }
    const token = this.tokens.build({
      id,
      hashedSecret: hashSecret(secret),
      userId: input.userId,
      name,
      scopes: input.scopes ?? ['all'],
      loginType: input.loginType ?? 'token',
      lifetimeSeconds: String(input.lifetimeSeconds),
      expiresAt: new Date(Date.now() + input.lifetimeSeconds * 1000),
      ipAddress: input.ipAddress ?? '',
      passwordConfirmedAt: input.passwordConfirmedAt ?? null,
    });
    await this.tokens.insert(token, manager);
    return { token, key: `${id}-${secret}` };
  }

  /**
   * The credential lookup: one primary-key read with the owner joined, cached (VersionedCache) so a
   * repeated token costs no query until the token or a user changes. Entities are built fresh from
   * the row on every call, so callers may change them. Unknown ids are never cached.
   */
  async findWithUser(id: string): Promise<ApiToken | null> {
    const row = await this.lookupCache.get(id, () => this.lookupRows.findRowWithUser(id));
    if (!row) return null;
    return this.lookupRows.hydrateWithUser(row);
  }

  listForUser(userId: string, loginType?: LoginType): Promise<ApiToken[]> {
    return this.tokens.listForUser(userId, loginType);
  }

  /** Nextcloud-style password confirmation of a session (workflows need it for cookie sessions). */
  async markPasswordConfirmed(id: string, at: Date): Promise<void> {
    await this.tokens.update(id, { passwordConfirmedAt: at });
  }

  async delete(id: string, manager?: EntityManager): Promise<void> {
    await this.tokens.delete(id, manager);
  }

  /** Whether the user has a key with this name. */
  nameTaken(userId: string, name: string): Promise<boolean> {
    return this.accountRows.tokenNameTaken(userId, name);
  }

  /** Programmatic keys (login type `token`) with their owners, oldest first; every user's when userId is null. */
  listProgrammatic(userId: string | null): Promise<ApiToken[]> {
    return this.accountRows.listProgrammaticTokens(userId);
  }

  /** The user's programmatic key of this name, with its owner. */
  findProgrammaticByName(userId: string, name: string): Promise<ApiToken | null> {
    return this.accountRows.findProgrammaticTokenByName(userId, name);
  }

  /** A key by id with its owner (uncached: for management, not for authentication). */
  findWithOwner(id: string): Promise<ApiToken | null> {
    return this.accountRows.findTokenWithOwner(id);
  }

  /** Deletes the user's application-connect keys (Coder's logout). */
  async revokeApplicationConnect(userId: string, manager?: EntityManager): Promise<void> {
    await this.accountRows.deleteApplicationConnectTokens(userId, manager);
  }

  async deleteAllForUser(userId: string, manager?: EntityManager): Promise<void> {
    await this.tokens.deleteAllForUser(userId, manager);
  }

  /**
   * After a successful use: record last use at most hourly, and slide the expiry of login
   * sessions (never of programmatic tokens), as Coder does.
   */
  async recordUse(token: ApiToken, ipAddress: string): Promise<void> {
    const now = Date.now();
    const changes: Partial<ApiToken> = {};
    if (
      !token.lastUsedAt ||
      now - token.lastUsedAt.getTime() >= ONE_HOUR_MS ||
      token.ipAddress !== ipAddress
    ) {
      changes.lastUsedAt = new Date(now);
      changes.ipAddress = ipAddress;
    }
    const lifetimeMs = Number(token.lifetimeSeconds) * 1000;
    if (token.loginType !== 'token' && token.expiresAt.getTime() - now <= lifetimeMs - ONE_HOUR_MS) {
      changes.expiresAt = new Date(now + lifetimeMs);
    }
    if (Object.keys(changes).length === 0) return;
    Object.assign(token, changes);
    // An activity write, batched (ActivityRecorder): it bumps no table version, so it leaves every
    // other cached credential in place; this token's cached row is patched instead. Only ever extends the expiry.
    const updatedAt = new Date(now);
    this.activity.tokenUsed(token.id, {
      lastUsedAt: token.lastUsedAt,
      ipAddress: token.ipAddress,
      expiresAt: token.expiresAt,
      updatedAt,
    });
    token.updatedAt = updatedAt;
    this.lookupCache.patchKey(token.id, (row) => {
      if (!row) return;
      row.t_last_used_at = token.lastUsedAt;
      row.t_ip_address = token.ipAddress;
      row.t_expires_at = token.expiresAt;
      row.t_updated_at = updatedAt;
    });
  }

  /**
   * After UsersService.touchLastSeen wrote `users.last_seen_at` as an activity write: the cached row
   * of the token that was used takes the new time, so its next requests neither write again nor
   * reload. The user's other cached tokens keep the older time and write once more when used:
   * finding them meant scanning the whole cache on every user's first request of the minute.
   */
  rememberLastSeen(tokenId: string, at: Date): void {
    this.lookupCache.patchKey(tokenId, (row) => {
      if (row) row.u_last_seen_at = at;
    });
  }
}
