import type { ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Dialect } from '../../../api/dialect';
import type { AccessDeclaration } from '../../../api/access/access.decorators';
import type { AnyPrincipal } from '../../../api/access/principal';
import type { CallerRule, CallerRuleContext } from '../../../platform/http/request-caller';

/**
 * What the AuthGuard's policies read and fill in for one HTTP request (or WebSocket upgrade): the
 * route's declaration and dialect, the request, and, once the credentials policy ran, the caller.
 */
export interface AccessCheck {
  readonly context: ExecutionContext;
  readonly access: AccessDeclaration;
  readonly dialect: Dialect;
  readonly req: Request;
  readonly res: Response;
  /** The dialect's caller rules declared on the route (metadata `CALLER_RULES`). */
  readonly rules: readonly CallerRule[];
  /** Set by the credentials policy; undefined for an anonymous caller. */
  principal: AnyPrincipal | undefined;
  /** Set by the credentials policy: what the dialects' caller rules see. */
  ruleContext: CallerRuleContext;
}

/** `next`: the following policy decides; `allow`: the request passes now. A refusal throws its DomainError. */
export type Verdict = 'next' | 'allow';

/**
 * One step of the guard's chain (Gitea chains its middleware the same way: each handler may answer
 * and stop the chain). Synchronous policies return the verdict itself, so a request pays no extra
 * microtask for them.
 */
export interface AccessPolicy {
  readonly name: string;
  check(request: AccessCheck): Verdict | Promise<Verdict>;
}

/** Runs the policies in order until one allows (each refusal throws); the last one allows. */
export async function runPolicies(policies: readonly AccessPolicy[], request: AccessCheck): Promise<true> {
  for (const policy of policies) {
    const verdict = policy.check(request);
    if ((typeof verdict === 'string' ? verdict : await verdict) === 'allow') return true;
  }
  return true;
}
