import { Inject, Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../../api/access/principal';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  InvalidError,
  UnauthenticatedError,
} from '../../platform/errors/domain-error';
import { ApiTokensService } from '../identity/api-tokens.service';
import type { ApiToken } from '../identity/entities/api-token.entity';
import type { User } from '../identity/entities/user.entity';
import { UsersService } from '../identity/users.service';
import { AUTH_CONFIG, type AuthConfig, maxTokenLifetimeSeconds } from './auth.config';
import { isGiteaScope } from './token-scopes';

export interface GiteaTokenView {
  token: ApiToken;
  /** The full key: only right after creation. */
  key?: string;
}

const GITEA_SCOPE_LEVEL = { read: 1, write: 2 } as const;

/**
 * Gitea's scope normalisation: `all` swallows everything, `write:<c>` swallows `read:<c>`, order and
 * duplicates do not matter. An unknown scope is refused with Gitea's text.
 */
export function normalizeGiteaScopes(scopes: string[]): string[] {
  const requested = scopes
    .flatMap((scope) => scope.split(','))
    .map((scope) => scope.trim())
    .filter(Boolean);
  for (const scope of requested) {
    if (!isGiteaScope(scope))
      throw new BadRequestError(`invalid access token scope provided: invalid access token scope: ${scope}`, {
        code: 'TOKEN_SCOPE_INVALID',
      });
  }
  if (requested.includes('all')) return ['all'];
  const levels = new Map<string, number>();
  for (const scope of requested) {
    const [level, category] = scope.split(':') as ['read' | 'write', string];
    levels.set(category, Math.max(levels.get(category) ?? 0, GITEA_SCOPE_LEVEL[level]));
  }
  return [...levels.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([category, level]) => `${level === 2 ? 'write' : 'read'}:${category}`);
}

/**
 * Gitea's personal access tokens (`/api/v1/users/{username}/tokens`): only with Basic authentication
 * (a password, or a token presented as Basic), by the user or a site administrator, as Gitea's
 * `reqSelfOrAdmin()` + `reqBasicOrRevProxyAuth()` decide. The tokens are devplane API keys of login
 * type `token`, numbered by `api_tokens.numeric_id` (Gitea's int64 id).
 */
@Injectable()
export class GiteaTokensService {
  constructor(
    private readonly tokens: ApiTokensService,
    private readonly users: UsersService,
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
  ) {}

  /** The `{username}` of the path, after Gitea's checks in Gitea's order (user, self or admin, Basic). */
  async contextUser(principal: UserPrincipal, username: string): Promise<User> {
    const user = await this.users.findByName(username);
    if (!user)
      throw new NotFoundError(`user does not exist [uid: 0, name: ${username}]`, { code: 'USER_NOT_FOUND' });
    if (!principal.user.isAdmin && principal.user.id !== user.id)
      throw new ForbiddenError('doer should be the site admin or be same as the contextUser', 'permission', {
        code: 'TOKEN_OWNER_REQUIRED',
      });
    if (principal.source !== 'basic_password' && principal.source !== 'basic_token')
      throw new UnauthenticatedError('malformed', 'auth required', { code: 'BASIC_AUTH_REQUIRED' });
    return user;
  }

  async list(user: User): Promise<ApiToken[]> {
    const tokens = await this.tokens.listForUser(user.id, 'token');
    return tokens.sort((a, b) => Number(b.numericId) - Number(a.numericId));
  }

  async create(user: User, name: string, scopes: string[] | undefined): Promise<GiteaTokenView> {
    if (await this.tokens.nameTaken(user.id, name))
      throw new BadRequestError('access token name has been used already', { code: 'TOKEN_NAME_TAKEN' });
    const normalized = normalizeGiteaScopes(scopes ?? []);
    if (normalized.length === 0)
      throw new BadRequestError('access token must have a scope', { code: 'TOKEN_SCOPE_INVALID' });
    // Gitea's tokens do not expire; devplane's always do: the longest lifetime the user may have.
    const lifetimeSeconds = maxTokenLifetimeSeconds(this.config, user.isAdmin);
    const { token, key } = await this.tokens.create({
      userId: user.id,
      name,
      scopes: normalized,
      lifetimeSeconds,
      loginType: 'token',
    });
    return { token, key };
  }

  /** `{token}` is the numeric id, or else the name (Gitea: 422 when a name matches several). */
  async delete(user: User, ref: string): Promise<void> {
    const tokens = await this.tokens.listForUser(user.id, 'token');
    const numeric = /^[0-9]+$/.test(ref) && ref !== '0' ? ref.replace(/^0+/, '') : undefined;
    const matches = numeric
      ? tokens.filter((token) => String(token.numericId) === numeric)
      : tokens.filter((token) => token.name === ref);
    if (matches.length > 1)
      throw new InvalidError(`multiple matches for token name '${ref}'`, { code: 'TOKEN_NAME_AMBIGUOUS' });
    const token = matches[0];
    if (!token) throw new NotFoundError('access token does not exist', { code: 'TOKEN_NOT_FOUND' });
    await this.tokens.delete(token.id);
  }
}
