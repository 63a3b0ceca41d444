import { timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { BadRequestError, UnauthenticatedError } from '../../platform/errors/domain-error';
import {
  CSRF_COOKIE,
  CSRF_HEADER,
  SESSION_COOKIE,
  SESSION_HEADER,
} from '../../platform/http/credential-names';
import type { CallerRule } from '../../platform/http/request-caller';

/** Gitea's CSRF cookie and form field (`_csrf`); its header is `X-Csrf-Token` (CSRF_HEADER). */
export const GITEA_CSRF_COOKIE = '_csrf';
export const GITEA_CSRF_FIELD = '_csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

function same(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || a === '' || b === '') return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Gitea's rule for a cookie session on the API (`reqToken` → `APIContext.RequireCSRF`): a write needs
 * the CSRF token, as the `X-Csrf-Token` header or the `_csrf` parameter (query), equal to the CSRF
 * cookie (Gitea's `_csrf`, or the `csrf_token` cookie devplane's login sets). No token at all: 401
 * "Missing CSRF token."; a wrong one: 400 "Invalid CSRF token.", both before the body is read.
 * A request that also carries an `Authorization` header or the session token in the
 * `Service-Session-Token` header cannot come from a cross-site form and passes; calls authenticated
 * by a token or Basic never reach this (their source is not `cookie`). Issue #46.2.
 */
export function giteaCsrfProblem(req: Request): 'missing' | 'invalid' | null {
  if (SAFE_METHODS.has(req.method)) return null;
  const cookies = (req.cookies ?? {}) as Record<string, unknown>;
  if (req.headers.authorization) return null;
  if (same(req.headers[SESSION_HEADER], cookies[SESSION_COOKIE])) return null;
  const query = (req.query ?? {}) as Record<string, unknown>;
  const presented = req.headers[CSRF_HEADER] || first(query[GITEA_CSRF_FIELD]);
  if (typeof presented !== 'string' || presented === '') return 'missing';
  return same(presented, cookies[GITEA_CSRF_COOKIE]) || same(presented, cookies[CSRF_COOKIE])
    ? null
    : 'invalid';
}

/** The Gitea dialect's cookie CSRF rule, applied to every `@GiteaController` route (route metadata). */
export const GITEA_CSRF_RULE: CallerRule = {
  stage: 'identified',
  check({ req, caller }) {
    if (caller?.source !== 'cookie') return;
    const problem = giteaCsrfProblem(req);
    if (problem === 'missing')
      throw new UnauthenticatedError('malformed', 'Missing CSRF token.', { code: 'GITEA_CSRF' });
    if (problem === 'invalid') throw new BadRequestError('Invalid CSRF token.', { code: 'GITEA_CSRF' });
  },
};
