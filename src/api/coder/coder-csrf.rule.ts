import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { BadRequestError } from '../../platform/errors/domain-error';
import {
  CSRF_COOKIE,
  CSRF_HEADER,
  firstNamed,
  SESSION_COOKIE_NAMES,
  SESSION_HEADER_NAMES,
} from '../../platform/http/credential-names';
import type { CallerRule } from '../../platform/http/request-caller';

export const CSRF_FAILURE =
  'Something is wrong with your CSRF token. Please refresh the page. If this error persists, try clearing your cookies.';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || a === '' || b === '') return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Coder's rule (reference A.4): a cookie-authenticated request that changes something must prove
 * it was not forged by another site: the session token also in the `Service-Session-Token` header
 * or the query, a Bearer header, or the `X-CSRF-Token` header equal to the `csrf_token` cookie.
 */
export function csrfSatisfied(req: Request): boolean {
  if (SAFE_METHODS.has(req.method)) return true;
  const cookies = (req.cookies ?? {}) as Record<string, unknown>;
  const session = firstNamed(cookies, SESSION_COOKIE_NAMES);
  const query = (req.query ?? {}) as Record<string, unknown>;
  const header = firstNamed(req.headers, SESSION_HEADER_NAMES);
  if (same(header, session) || same(firstNamed(query, SESSION_COOKIE_NAMES), session)) return true;
  if (/^bearer\s/i.test(req.headers.authorization ?? '')) return true;
  return same(req.headers[CSRF_HEADER], cookies[CSRF_COOKIE]);
}

/** The Coder dialect's cookie CSRF rule, applied to every `@CoderController` route (route metadata, never the path). */
export const CODER_CSRF_RULE: CallerRule = {
  stage: 'authenticated',
  check({ req, caller }) {
    if (caller?.source === 'cookie' && !csrfSatisfied(req))
      throw new BadRequestError(CSRF_FAILURE, { code: 'CSRF' });
  },
};
