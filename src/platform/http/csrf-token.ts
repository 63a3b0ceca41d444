import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { CSRF_COOKIE } from './credential-names';

/** A fresh double-submit token (32 random bytes, base64url). */
export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

const WELL_FORMED = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * The CSRF token a response should (re)set: the request's own `csrf_token` cookie when it holds a
 * well-formed one, else a new one. Coder sets the cookie with its HTML page and keeps it: the page
 * renders the token into `<meta property="csrf-token">` once, so signing in must not replace it.
 */
export function keptCsrfToken(req: Request): string {
  const cookies = (req.cookies ?? {}) as Record<string, unknown>;
  const current = cookies[CSRF_COOKIE];
  return typeof current === 'string' && WELL_FORMED.test(current) ? current : newCsrfToken();
}
