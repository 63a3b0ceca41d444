import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Passport, type Strategy } from 'passport';
import { UnauthenticatedError } from '../../platform/errors/domain-error';
import type { AnyPrincipal, UserPrincipal } from '../../api/access/principal';
import { AgentTokenStrategy } from './strategies/agent-token.strategy';
import { AuthorizationTokenStrategy } from './strategies/authorization-token.strategy';
import { BasicCredentialStrategy } from './strategies/basic.strategy';
import { BearerTokenStrategy } from './strategies/bearer.strategy';
import { attachResponse } from './strategies/credential-strategy';
import { presentedCredential, STRATEGY_ORDER, type StrategyName } from './strategies/presented-credential';
import { ProvisionerKeyStrategy } from './strategies/provisioner-key.strategy';
import { QueryTokenStrategy } from './strategies/query-token.strategy';
import { SessionCookieStrategy } from './strategies/session-cookie.strategy';
import { SessionHeaderStrategy } from './strategies/session-header.strategy';
import { SessionQueryStrategy } from './strategies/session-query.strategy';

export { SESSION_COOKIE, SESSION_HEADER } from './strategies/presented-credential';
export const QUERY_TOKEN_WARNING =
  'token and access_token API authentication is deprecated and will be removed in a future release. Please use AuthorizationHeaderToken instead. Existing queries will continue to work but without authorization.';

/**
 * Every credential form is a Passport strategy (strategies/), registered in STRATEGY_ORDER on a
 * Passport instance of this application. Lookup order follows Coder (cookie, query, header,
 * Authorization) and then Gitea's query forms, then provisioner keys. The first form present
 * decides: its strategy succeeds or errors (bad credentials are never skipped over).
 *
 * The request is parsed once (presentedCredential, in STRATEGY_ORDER) and the one strategy of the
 * form presented runs, through passport's strategy protocol (a per-request instance with success /
 * fail / error): the same outcome as passport.authenticate trying the whole chain (every earlier
 * strategy would `fail`, every later one is never reached), without building a strategy instance per
 * skipped form (~80 µs per request measured in-process) and without passport's middleware adding
 * login/logout helpers to every Express request. A token costs one cached primary-key read; only
 * Basic with a password hashes.
 */
@Injectable()
export class CredentialResolver {
  /** The strategies by passport name, also registered on this app's own Passport instance. */
  private readonly strategies: Record<StrategyName, Strategy>;
  readonly passport = new Passport();

  constructor(
    sessionCookie: SessionCookieStrategy,
    sessionQuery: SessionQueryStrategy,
    agentToken: AgentTokenStrategy,
    sessionHeader: SessionHeaderStrategy,
    bearer: BearerTokenStrategy,
    authorizationToken: AuthorizationTokenStrategy,
    basic: BasicCredentialStrategy,
    queryToken: QueryTokenStrategy,
    provisionerKey: ProvisionerKeyStrategy,
  ) {
    const strategies: Record<StrategyName, Strategy> = (this.strategies = {
      'session-cookie': sessionCookie,
      'session-query': sessionQuery,
      'agent-token': agentToken,
      'session-header': sessionHeader,
      bearer,
      'authorization-token': authorizationToken,
      basic,
      'query-token': queryToken,
      'provisioner-key': provisionerKey,
    });
    for (const name of STRATEGY_ORDER) this.passport.use(name, strategies[name]);
  }

  /**
   * Resolves the caller of any kind. Returns undefined when no credentials were presented; throws
   * UnauthenticatedError (or RateLimitedError for password guessing) when they were and are wrong,
   * expired or belong to an inactive user.
   */
  resolveAny(req: Request, res: Response): Promise<AnyPrincipal | undefined> {
    const presented = presentedCredential(req);
    if (!presented) return Promise.resolve(undefined);
    if (presented.source === 'query_token') res.setHeader('X-Service-Warning', QUERY_TOKEN_WARNING);
    attachResponse(req, res);
    const strategy = this.strategies[presented.strategy];
    return new Promise((resolve, reject) => {
      // Passport's action protocol on a per-request instance of the strategy, as passport.authenticate
      // does, without its middleware decorating every request with login/logout/isAuthenticated
      // helpers nothing here uses (they reshape Express's request object on the hot path).
      const instance = Object.create(strategy) as Strategy & {
        success(user: unknown): void;
        fail(): void;
        error(error: unknown): void;
        pass(): void;
        redirect(): void;
      };
      instance.success = (principal) => resolve(principal as AnyPrincipal);
      instance.fail = () => resolve(undefined);
      instance.pass = () => resolve(undefined);
      instance.error = (error) => reject(error instanceof Error ? error : new Error(String(error)));
      instance.redirect = () => reject(new Error(`strategy ${presented.strategy} redirected`));
      (instance.authenticate as (req: Request, options: object) => void)(req, {});
    });
  }

  /** Resolves a user (WebSocket upgrades and other user-only callers): agents and provisioners are refused. */
  async resolve(req: Request, res: Response): Promise<UserPrincipal | undefined> {
    const principal = await this.resolveAny(req, res);
    if (principal && principal.kind !== 'user') throw new UnauthenticatedError('missing');
    return principal;
  }
}
