import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Passport, type Strategy } from 'passport';
import { UnauthenticatedError } from '../../platform/errors/domain-error';
import type { AnyPrincipal, UserPrincipal } from './principal';
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
 * The request is parsed once (presentedCredential, in STRATEGY_ORDER) and passport runs the one
 * strategy of the form presented: the same outcome as passport trying the whole chain (every
 * earlier strategy would `fail`, every later one is never reached), without building a strategy
 * instance per skipped form. Measured in-process: the full chain cost ~80 µs per request for the
 * Authorization forms, the one strategy ~20 µs over calling the verifier directly. A token costs
 * one cached primary-key read; only Basic with a password hashes.
 */
@Injectable()
export class CredentialResolver {
  private readonly passport = new Passport();

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
    const strategies: Record<StrategyName, Strategy> = {
      'session-cookie': sessionCookie,
      'session-query': sessionQuery,
      'agent-token': agentToken,
      'session-header': sessionHeader,
      bearer,
      'authorization-token': authorizationToken,
      basic,
      'query-token': queryToken,
      'provisioner-key': provisionerKey,
    };
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
    return new Promise((resolve, reject) => {
      const authenticate = this.passport.authenticate(
        presented.strategy,
        { session: false },
        (error: unknown, principal: AnyPrincipal | false | undefined) => {
          if (error) reject(error instanceof Error ? error : new Error(String(error)));
          else resolve(principal || undefined);
        },
      ) as (req: Request, res: Response, next: (error?: unknown) => void) => void;
      authenticate(req, res, (error?: unknown) => (error ? reject(error as Error) : resolve(undefined)));
    });
  }

  /** Resolves a user (WebSocket upgrades and other user-only callers): agents and provisioners are refused. */
  async resolve(req: Request, res: Response): Promise<UserPrincipal | undefined> {
    const principal = await this.resolveAny(req, res);
    if (principal && principal.kind !== 'user') throw new UnauthenticatedError('missing', 'Authentication required.');
    return principal;
  }
}
