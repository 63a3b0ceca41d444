import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { Request } from 'express';

/** The wire dialects devplane speaks; `plain` covers everything outside the three APIs. */
export type Dialect = 'ocs' | 'coder' | 'gitea' | 'plain';

/** Route metadata set by each dialect's controller decorator (@CoderController, @GiteaController, ...). */
export const DIALECT_METADATA = 'devplane:dialect';

/**
 * The dialect of the route being served: the controller decorator's metadata. Guards, filters
 * and interceptors read this; nothing guesses a route's dialect from its path.
 */
export function routeDialect(reflector: Reflector, context: ExecutionContext): Dialect {
  return (
    reflector.getAllAndOverride<Dialect | undefined>(DIALECT_METADATA, [context.getHandler(), context.getClass()]) ??
    'plain'
  );
}

/**
 * Which dialect a path belongs to; only for failures raised before any route matched (404,
 * body parsing). Case-sensitive, as routing is.
 */
export function dialectOfPath(path: string): Dialect {
  if (path.startsWith('/ocs/')) return 'ocs';
  if (path.startsWith('/api/v2/') || path === '/api/v2' || path.startsWith('/api/experimental')) return 'coder';
  if (path.startsWith('/api/v1/') || path === '/api/v1' || path.startsWith('/api/packages/')) return 'gitea';
  return 'plain';
}

const REQUEST_DIALECT = Symbol('devplane:request-dialect');

/** Remembers the matched route's dialect on the request (set by the guard), for code that only has the request. */
export function setRequestDialect(req: Request, dialect: Dialect): void {
  (req as unknown as Record<symbol, Dialect>)[REQUEST_DIALECT] = dialect;
}

export function requestDialect(req: Request): Dialect | undefined {
  return (req as unknown as Record<symbol, Dialect | undefined>)[REQUEST_DIALECT];
}
