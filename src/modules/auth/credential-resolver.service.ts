import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { UnauthenticatedError } from '../../platform/errors/domain-error';
import { EventBus } from '../../platform/events/event-bus.service';
import { parseToken, secretMatches } from '../identity/api-token-codec';
import { ApiTokensService } from '../identity/api-tokens.service';
import { UsersService } from '../identity/users.service';
import type { CredentialSource, Principal } from './principal';

export const SESSION_COOKIE = 'service_session_token';
export const SESSION_HEADER = 'service-session-token';
export const QUERY_TOKEN_WARNING =
  'token and access_token API authentication is deprecated and will be removed in a future release. Please use AuthorizationHeaderToken instead. Existing queries will continue to work but without authorization.';

interface Presented {
  source: CredentialSource;
  token?: string;
  login?: string;
  password?: string;
}

function firstString(value: unknown): string | undefined {
  if (Array.isArray(value)) return firstString(value[0]);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Every credential form, resolved in one place (ARCHITECTURE rule 4). Lookup order follows
 * Coder (cookie, query, header, Authorization) and then Gitea's query forms. A token costs one
 * primary-key read; only Basic with a password hashes.
 */
@Injectable()
export class CredentialResolver {
  constructor(
    private readonly users: UsersService,
    private readonly tokens: ApiTokensService,
    private readonly events: EventBus,
  ) {}

  /** What the request presents, without checking it. `undefined` = no credentials. */
  presented(req: Request): Presented | undefined {
    const cookie = firstString((req.cookies as Record<string, unknown> | undefined)?.[SESSION_COOKIE]);
    if (cookie) return { source: 'cookie', token: cookie };
    const sessionQuery = firstString(req.query[SESSION_COOKIE]);
    if (sessionQuery) return { source: 'session_query', token: sessionQuery };
    const header = firstString(req.headers[SESSION_HEADER]);
    if (header) return { source: 'session_header', token: header.trim() };
    const authorization = firstString(req.headers.authorization);
    if (authorization) {
      const [scheme = '', value = '', ...rest] = authorization.trim().split(/\s+/);
      const kind = scheme.toLowerCase();
      if ((kind === 'bearer' || kind === 'token') && value !== '' && rest.length === 0) {
        return { source: kind === 'bearer' ? 'bearer' : 'token_header', token: value };
      }
      if (kind === 'basic' && value !== '') {
        const decoded = Buffer.from(value, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        const login = colon === -1 ? decoded : decoded.slice(0, colon);
        const password = colon === -1 ? '' : decoded.slice(colon + 1);
        // `token:` and `token:x-oauth-basic` carry the token as the user name.
        if ((password === '' || password === 'x-oauth-basic') && !('problem' in parseToken(login))) {
          return { source: 'basic_token', token: login };
        }
        return { source: 'basic_password', login, password };
      }
      return { source: 'bearer', token: '' };
    }
    const queryToken = firstString(req.query.access_token) ?? firstString(req.query.token);
    if (queryToken) return { source: 'query_token', token: queryToken };
    return undefined;
  }

  /**
   * Resolves the caller. Returns undefined when no credentials were presented; throws
   * UnauthenticatedError when they were and are wrong, expired or belong to an inactive user.
   */
  async resolve(req: Request, res: Response): Promise<Principal | undefined> {
    const presented = this.presented(req);
    if (!presented) return undefined;
    if (presented.source === 'query_token') res.setHeader('X-Service-Warning', QUERY_TOKEN_WARNING);
    const principal =
      presented.source === 'basic_password'
        ? await this.fromPassword(presented.login ?? '', presented.password ?? '')
        : await this.fromToken(presented.token ?? '', presented.source, req);
    await this.checkUserCanSignIn(principal);
    return principal;
  }

  private async fromToken(raw: string, source: CredentialSource, req: Request): Promise<Principal> {
    const parsed = parseToken(raw);
    if ('problem' in parsed) {
      throw new UnauthenticatedError('malformed', 'invalid username, password or token', { detail: parsed.problem });
    }
    const token = await this.tokens.findWithUser(parsed.id);
    if (!token) throw new UnauthenticatedError('unknown_key', 'invalid username, password or token');
    if (!secretMatches(parsed.secret, token.hashedSecret)) {
      throw new UnauthenticatedError('bad_secret', 'invalid username, password or token');
    }
    if (token.expiresAt.getTime() <= Date.now()) {
      throw new UnauthenticatedError('expired', 'invalid username, password or token', {
        detail: token.expiresAt.toISOString(),
      });
    }
    await this.tokens.recordUse(token, req.ip ?? '');
    return { user: token.user, token, source, scopes: token.scopes };
  }

  private async fromPassword(login: string, password: string): Promise<Principal> {
    // Gitea tries the password as a token first.
    if (!('problem' in parseToken(password))) {
      const principal = await this.fromToken(password, 'basic_token', { ip: '' } as Request).catch(() => undefined);
      if (principal) {
        const matches = [principal.user.lowerName, principal.user.lowerEmail].includes(login.toLowerCase());
        if (matches) return principal;
      }
    }
    const user = login === '' ? null : await this.users.findByLogin(login);
    if (!user || !(await this.users.verifyPassword(user, password))) {
      throw new UnauthenticatedError('bad_password', 'invalid username, password or token');
    }
    return { user, token: null, source: 'basic_password', scopes: ['all'] };
  }

  private async checkUserCanSignIn(principal: Principal): Promise<void> {
    const { user } = principal;
    if (user.status === 'dormant') {
      // Coder reactivates dormant users on use.
      user.status = 'active';
      await this.users.reactivate(user);
      this.events.emit('user.status_changed', { userId: user.id, from: 'dormant', to: 'active', actorId: null });
    }
    if (user.status !== 'active') {
      throw new UnauthenticatedError(
        'inactive',
        `User is not active (status = "${user.status}"). Contact an admin to reactivate your account.`,
      );
    }
    if (user.prohibitLogin) {
      throw new UnauthenticatedError(
        'login_prohibited',
        'This account is prohibited from signing in, please contact your site administrator.',
      );
    }
    await this.users.touchLastSeen(user);
  }
}
