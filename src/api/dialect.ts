import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { requestState } from '../platform/http/request-state';
import { routeMemo } from './route-memo';

/**
 * The wire dialects devplane speaks: the three APIs (`ocs`, `coder`, `gitea`), the protocol dialects
 * (`git` smart HTTP, the `npm` and `generic` package registries, `sse` event streams) and `plain` for
 * everything else.
 */
export type Dialect = 'ocs' | 'coder' | 'gitea' | 'git' | 'npm' | 'generic' | 'sse' | 'plain';

/** The dialects whose errors are JSON documents of an API; an SSE route answers pre-stream errors in one of them. */
export type ApiDialect = 'ocs' | 'coder' | 'gitea' | 'plain';

/** Route metadata set by each dialect's controller decorator (@CoderController, @GiteaController, ...). */
export const DIALECT_METADATA = 'devplane:dialect';

/**
 * The dialect of the route being served: the controller decorator's metadata. Guards, filters
 * and interceptors read this; nothing guesses a route's dialect from its path.
 */
export function routeDialect(reflector: Reflector, context: ExecutionContext): Dialect {
  return dialectOf(context, reflector);
}

/** Several guards and the filter ask per request: read once per route. */
const dialectOf = routeMemo(
  (handler, controller, reflector: Reflector) =>
    reflector.getAllAndOverride<Dialect | undefined>(DIALECT_METADATA, [handler, controller]) ?? 'plain',
);

/**
 * Which dialect a path belongs to; only for failures raised before any route matched (404,
 * body parsing). Case-sensitive, as routing is.
 */
export function dialectOfPath(path: string): Dialect {
  if (path.startsWith('/ocs/')) return 'ocs';
  if (/^\/api\/packages\/[^/]+\/npm(\/|$)/.test(path)) return 'npm';
  if (/^\/api\/packages\/[^/]+\/generic(\/|$)/.test(path)) return 'generic';
  if (path.startsWith('/api/v2/') || path === '/api/v2' || path.startsWith('/api/experimental'))
    return 'coder';
  if (path.startsWith('/api/v1/') || path === '/api/v1' || path.startsWith('/api/packages/')) return 'gitea';
  if (/^\/[^/]+\/[^/]+\.git(\/|$)/.test(path)) return 'git';
  return 'plain';
}

/** Remembers the matched route's dialect on the request (set by the guard), for code that only has the request. */
export function setRequestDialect(req: Request, dialect: Dialect): void {
  requestState(req).dialect = dialect;
}

export function requestDialect(req: Request): Dialect | undefined {
  return requestState(req).dialect as Dialect | undefined;
}

/** For an SSE route: the API whose JSON shape its errors take before the stream starts (set by the body guard). */
export function setRequestSseApi(req: Request, dialect: ApiDialect): void {
  requestState(req).sseApi = dialect;
}

export function requestSseApi(req: Request): ApiDialect | undefined {
  return requestState(req).sseApi as ApiDialect | undefined;
}
