import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { SESSION_COOKIE, SESSION_HEADER } from './credential-resolver.service';

/** Double-submit CSRF token: a readable cookie set at login, echoed by browsers in a header. */
export const CSRF_COOKIE = 'csrf_token';
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FAILURE =
  'Something is wrong with your CSRF token. Please refresh the page. If this error persists, try clearing your cookies.';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

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
  const session = cookies[SESSION_COOKIE];
  if (same(req.headers[SESSION_HEADER], session) || same(req.query[SESSION_COOKIE], session)) return true;
  if (/^bearer\s/i.test(req.headers.authorization ?? '')) return true;
  return same(req.headers[CSRF_HEADER], cookies[CSRF_COOKIE]);
}
