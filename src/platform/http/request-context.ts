import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import { requestCaller } from './request-caller';

/** What services may learn about the HTTP request they run for (the audit log's ip, agent, request id). */
export interface RequestContext {
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  /** The signed-in user's numeric id, once the auth guard has resolved the caller. */
  userId: string | null;
}

const storage = new AsyncLocalStorage<Request>();

/** Express middleware: the rest of the request runs inside its context. */
export function requestContextMiddleware(req: Request, _res: Response, next: NextFunction): void {
  storage.run(req, next);
}

/**
 * The current request's context, or undefined outside a request (jobs, the CLI). Read when asked:
 * the request id is assigned by the logger's middleware, after this one.
 */
export function currentRequestContext(): RequestContext | undefined {
  const req = storage.getStore();
  if (!req) return undefined;
  const id = (req as unknown as { id?: unknown }).id;
  const agent = req.headers['user-agent'];
  return {
    ip: req.ip ?? null,
    userAgent: typeof agent === 'string' ? agent.slice(0, 1024) : null,
    requestId: typeof id === 'string' ? id : null,
    userId: requestCaller(req)?.userId ?? null,
  };
}
