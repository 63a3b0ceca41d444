import type { Request, Response } from 'express';
import type { PassportStatic } from 'passport';
import { requestState } from '../../../platform/http/request-state';
import type { AnyPrincipal } from '../../../api/access/principal';
import { presentedCredential, type PresentedCredential, type StrategyName } from './presented-credential';

/**
 * The strategies are registered on the AuthGuard's own Passport instance (one per application, so
 * two apps in one process never share strategies), not on the module-global `passport` that
 * @nestjs/passport's mixin would use: each strategy class returns this no-op registry from
 * `getPassportInstance()`.
 */
export const NO_GLOBAL_REGISTRY = { use: () => NO_GLOBAL_REGISTRY } as unknown as PassportStatic;

/** The passport actions a strategy instance gets for one request. */
export interface StrategyActions {
  success(user: object, info?: object): void;
  fail(challenge?: string | number, status?: number): void;
  error(err: unknown): void;
}

/** The credential this strategy handles, or null when the request presents another form (or none). */
export function presentedTo(req: Request, name: StrategyName): PresentedCredential | null {
  const presented = presentedCredential(req);
  return presented?.strategy === name ? presented : null;
}

/**
 * Runs one verification for a project strategy: success with the principal, or `error` with the
 * DomainError (passport stops the chain there: bad credentials are never skipped over).
 */
export function settle(actions: StrategyActions, work: Promise<AnyPrincipal>): void {
  work.then(
    (principal) => actions.success(principal),
    (error: unknown) => actions.error(error),
  );
}

const REAL_REQUEST = Symbol('devplane:real-request');

/**
 * What the library strategies (passport-http-bearer, passport-http) get to parse: only the
 * Authorization header, normalised. They must not read credentials elsewhere (passport-http-bearer
 * also takes `access_token` from the body and query, which are not credentials of these forms).
 */
export function authorizationView(req: Request, authorization: string): Request {
  return { headers: { authorization }, [REAL_REQUEST]: req } as unknown as Request;
}

export function realRequest(view: Request): Request {
  return (view as unknown as Record<symbol, Request | undefined>)[REAL_REQUEST] ?? view;
}

/** The response the resolver answers on (strategies get only the request). */
export function attachResponse(req: Request, res: Response): void {
  requestState(req).response = res;
}

export function responseOf(req: Request): Response | undefined {
  return requestState(req).response as Response | undefined;
}
