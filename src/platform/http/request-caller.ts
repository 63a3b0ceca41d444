import type { Request } from 'express';
import { requestState } from './request-state';

/**
 * The facts about the caller that the dialects (`src/api`) need, filled in by the auth guard once
 * the credentials are resolved. `src/api` must not import `src/modules`, so this is the only way a
 * dialect learns who is calling (CSRF, must-change-password, admin-only error details).
 */
export interface RequestCaller {
  kind: 'user' | 'agent' | 'provisioner';
  /** The user's numeric id (user kind only). */
  userId?: string;
  isAdmin: boolean;
  mustChangePassword: boolean;
  /** How the credential was presented (`cookie`, `bearer`, `basic_password`, `agent_token`, ...). */
  source: string;
}

export function setRequestCaller(req: Request, caller: RequestCaller): void {
  requestState(req).caller = caller;
}

export function requestCaller(req: Request): RequestCaller | undefined {
  return requestState(req).caller as RequestCaller | undefined;
}

/** What a dialect's caller rule sees. */
export interface CallerRuleContext {
  req: Request;
  /** Undefined when the caller is anonymous. */
  caller: RequestCaller | undefined;
  publicRoute: boolean;
  /** The route admits a user who must change the password (`@Authenticated({ allowMustChangePassword })`). */
  allowMustChangePassword: boolean;
}

/**
 * A dialect's rule about the caller, set on its routes by the dialect's controller decorator
 * (metadata CALLER_RULES) and run by the auth guard: `identified` right after the credentials are
 * resolved (public routes too), `authenticated` once a caller is known to be present on an
 * authenticated route, before the route's own access checks. Throws a DomainError to refuse.
 */
export interface CallerRule {
  stage: 'identified' | 'authenticated';
  check(context: CallerRuleContext): void;
}

export const CALLER_RULES = 'devplane:caller-rules';
