import { ActivityRecorder } from '../identity/activity-recorder.service';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { AuditLog } from '../../platform/audit/audit-log';
import { QueryFailedError } from 'typeorm';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors/domain-error';
import { ApiTokensService } from '../identity/api-tokens.service';
import { ApiToken } from '../identity/entities/api-token.entity';
import type { User } from '../identity/entities/user.entity';
import { AUTH_CONFIG, type AuthConfig, maxTokenLifetimeSeconds, tokenLifetime } from './auth.config';
import { AuthorizationService } from './authorization.service';
import type { Principal } from '../../api/access/principal';
import { canonicalExternalScope, resourceActions } from './rbac/rbac-catalogue';
import { ALLOW_ALL, type AllowListEntry, expandScopes, isAllScope } from './rbac/rbac-scopes';
import { AuthRepository } from './auth.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NOT_FOUND = 'Resource not found or you do not have access to this resource';
/** `api_tokens.name` is varchar(255). */
const MAX_TOKEN_NAME = 255;

export interface CreateTokenRequest {
  tokenName: string;
  scopes: string[];
  scope: string;
  /** Go duration in nanoseconds (0 = the default lifetime). */
  lifetimeNs: number;
  allowList: AllowListEntry[];
}

export interface TokenView {
  token: ApiToken;
  allowList: AllowListEntry[];
  owner: User;
}

/** Coder's API-key routes (`/users/{user}/keys...`) over the shared api_tokens table. */
@Injectable()
export class CoderTokensService {
  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly tokens: ApiTokensService,
    private readonly authz: AuthorizationService,
    private readonly transactions: TransactionRunner,
    private readonly authRows: AuthRepository,
    private readonly activity: ActivityRecorder,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  private keyObject(token: ApiToken, owner: User) {
    return { type: 'api_key', id: token.id, ownerId: owner.uuid };
  }

  async create(principal: Principal, target: User, input: CreateTokenRequest): Promise<string> {
    await this.authz.require(principal, 'create', { type: 'api_key', ownerId: target.uuid });
    const scopes = this.validScopes(principal, input);
    const allowList = this.validAllowList(input.allowList);
    const lifetimeSeconds = this.validLifetime(target, input.lifetimeNs);
    const name = input.tokenName;
    if (name.length > MAX_TOKEN_NAME) {
      throw new BadRequestError('Failed to create API key.', {
        detail: `token name must be at most ${MAX_TOKEN_NAME} characters`,
      });
    }
    const taken = () =>
      new ConflictError(`A token with name "${name}" already exists.`, {
        code: 'TOKEN_NAME_TAKEN',
        fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    if (name !== '' && (await this.tokens.nameTaken(target.id, name))) throw taken();
    return this.transactions
      .run(async (tx) => {
        const created = await this.tokens.create(
          { userId: target.id, name, scopes, lifetimeSeconds, loginType: 'token' },
          tx.manager,
        );
        if (!(allowList.length === 1 && allowList[0]!.type === '*' && allowList[0]!.id === '*')) {
          await this.authRows.insertAllowList(created.token.id, allowList, tx.manager);
        }
        await this.audit?.record(tx.manager, {
          action: 'create',
          resourceType: 'api_key',
          resourceId: created.token.id,
          resourceTarget: created.token.name,
          diff: { scopes: { old: [], new: scopes }, token_name: { old: '', new: created.token.name } },
          additionalFields: { owner: target.name },
          statusCode: 201,
        });
        return created.key;
      })
      .catch((error: unknown) => {
        // Two concurrent creates with one name: the unique index decides, the loser gets the 409.
        if (
          error instanceof QueryFailedError &&
          (error.driverError as { code?: string } | undefined)?.code === '23505'
        )
          throw taken();
        throw error;
      });
  }

  private validScopes(principal: Principal, input: CreateTokenRequest): string[] {
    const requested =
      input.scopes.length > 0 ? input.scopes : input.scope !== '' ? [input.scope] : ['coder:all'];
    const out: string[] = [];
    for (const scope of requested) {
      const canonical = canonicalExternalScope(scope);
      if (!canonical) {
        throw new BadRequestError('Failed to create API key.', {
          detail: `invalid or unsupported API key scope: "${scope}"`,
        });
      }
      if (!out.includes(canonical)) out.push(canonical);
    }
    // A scoped key cannot mint a key with more rights than it has itself.
    const callerScopes = principal.token ? principal.token.scopes : principal.scopes;
    if (!isAllScope(callerScopes)) {
      const have = new Set(expandScopes(callerScopes).map((p) => `${p.type}:${p.action}`));
      for (const scope of out) {
        const covered = expandScopes([scope]).every(
          (p) => have.has(`${p.type}:${p.action}`) || have.has(`${p.type}:*`) || have.has('*:*'),
        );
        if (!covered) {
          throw new BadRequestError('Failed to create API key.', {
            detail: `invalid or unsupported API key scope: "${scope}"`,
          });
        }
      }
    }
    return out;
  }

  private validAllowList(entries: AllowListEntry[]): AllowListEntry[] {
    if (entries.length === 0) return [ALLOW_ALL];
    for (const entry of entries) {
      if (entry.type !== '*' && !resourceActions(entry.type)) {
        throw new BadRequestError('Failed to create API key.', {
          detail: `invalid allow_list entry: unknown resource type "${entry.type}"`,
        });
      }
      if (entry.id !== '*' && !UUID.test(entry.id)) {
        throw new BadRequestError('Failed to create API key.', {
          detail: `invalid allow_list entry: id "${entry.id}" must be a uuid or "*"`,
        });
      }
    }
    return entries.some((e) => e.type === '*' && e.id === '*')
      ? [ALLOW_ALL]
      : entries.map((e) => ({ type: e.type, id: e.id.toLowerCase() }));
  }

  private validLifetime(target: User, lifetimeNs: number): number {
    const seconds = lifetimeNs === 0 ? 0 : lifetimeNs < 0 ? -1 : Math.floor(lifetimeNs / 1e9);
    // Under a second (but not 0): refused as a non-positive lifetime, as Coder does.
    const verdict = tokenLifetime(
      this.config,
      target.isAdmin,
      lifetimeNs > 0 && seconds === 0 ? -1 : seconds,
    );
    if ('refused' in verdict) {
      throw new BadRequestError('Failed to validate create API key request.', { detail: verdict.refused });
    }
    return verdict.seconds;
  }

  private async views(principal: Principal, action: string, rows: ApiToken[]): Promise<TokenView[]> {
    const allowed = await this.authz.filter(principal, action, rows, (row) => this.keyObject(row, row.user));
    const lists = allowed.length ? await this.authRows.allowListsOf(allowed.map((row) => row.id)) : [];
    const byId = new Map(lists.map((list) => [list.tokenId, list.entries]));
    return allowed.map((token) => ({
      token,
      owner: token.user,
      allowList: byId.get(token.id) ?? [ALLOW_ALL],
    }));
  }

  async list(
    principal: Principal,
    target: User,
    options: { includeExpired: boolean; includeAll: boolean },
  ): Promise<TokenView[]> {
    await this.activity.flush(); // last_used is written in batches
    const rows = await this.tokens.listProgrammatic(options.includeAll ? null : target.id);
    const now = Date.now();
    return this.views(
      principal,
      'read',
      options.includeExpired ? rows : rows.filter((row) => row.expiresAt.getTime() > now),
    );
  }

  async getByName(principal: Principal, target: User, name: string): Promise<TokenView> {
    await this.activity.flush();
    const row = await this.tokens.findProgrammaticByName(target.id, name);
    const [view] = row ? await this.views(principal, 'read', [row]) : [];
    if (!view) throw new NotFoundError(NOT_FOUND);
    return view;
  }

  async getById(principal: Principal, target: User, id: string): Promise<TokenView> {
    await this.activity.flush();
    const row = await this.findOwned(target, id);
    const [view] = row ? await this.views(principal, 'read', [row]) : [];
    if (!view) throw new NotFoundError(NOT_FOUND);
    return view;
  }

  async delete(principal: Principal, target: User, id: string): Promise<void> {
    const row = await this.findOwned(target, id);
    if (!row || !(await this.authz.authorize(principal, 'delete', this.keyObject(row, row.user)))) {
      throw new NotFoundError(NOT_FOUND);
    }
    await this.transactions.run(async (tx) => {
      await this.tokens.delete(row.id, tx.manager);
      await this.audit?.record(tx.manager, {
        action: 'delete',
        resourceType: 'api_key',
        resourceId: row.id,
        resourceTarget: row.name,
        additionalFields: { owner: row.user.name },
        statusCode: 204,
      });
      tx.emit('auth.token_revoked', { userId: row.userId, tokenId: row.id, reason: 'deleted' });
    });
  }

  private async findOwned(target: User, id: string): Promise<ApiToken | null> {
    if (id === '' || id.length > 10) return null;
    const row = await this.tokens.findWithOwner(id);
    return row && row.userId === target.id ? row : null;
  }

  maxLifetimeSeconds(target: User): number {
    return maxTokenLifetimeSeconds(this.config, target.isAdmin);
  }
}
