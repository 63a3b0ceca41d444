import { Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AppConfig } from '../platform/config/app-config';
import { renderCoderError } from './coder/coder-error.renderer';
import type { Dialect } from './dialect';
import { renderGiteaError } from './gitea/gitea-error.renderer';
import { InternalFailure } from './internal-failure';
import { normalizeException } from './normalize-exception';
import { ocsToXml, ocsWantsJson, type OcsEnvelope } from './ocs/ocs-envelope';
import { renderOcsError } from './ocs/ocs-error.renderer';
import type { ErrorRenderContext, RenderedError } from './rendered-error';
import { requestCaller } from '../platform/http/request-caller';

const logger = new Logger('Errors');

function renderPlain(error: ReturnType<typeof normalizeException>): RenderedError {
  if (error instanceof InternalFailure) return { status: 500, body: { message: 'Internal Server Error' } };
  const status: Record<typeof error.kind, number> = {
    bad_request: 400,
    invalid: 400,
    unauthenticated: 401,
    forbidden: 403,
    not_found: 404,
    conflict: 409,
    gone: 410,
    precondition_failed: 412,
    too_large: 413,
    unsupported_media_type: 415,
    locked: 423,
    rate_limited: 429,
    unavailable: 503,
  };
  return { status: status[error.kind], body: { message: error.message } };
}

/** Renders any thrown value in the dialect's error shape and sends it. */
export function sendError(dialect: Dialect, exception: unknown, req: Request, res: Response, config: AppConfig): void {
  const error = normalizeException(exception);
  if (error instanceof InternalFailure) {
    logger.error({ err: error.cause, reqId: (req as { id?: unknown }).id, path: req.path }, 'internal error');
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  const context: ErrorRenderContext = { req, config, callerIsAdmin: requestCaller(req)?.isAdmin === true };
  let rendered: RenderedError;
  switch (dialect) {
    case 'ocs':
      rendered = renderOcsError(error, context);
      break;
    case 'coder':
      rendered = renderCoderError(error, context);
      break;
    case 'gitea':
      rendered = renderGiteaError(error, context);
      break;
    case 'plain':
      rendered = renderPlain(error);
      break;
  }
  for (const [name, value] of Object.entries(rendered.headers ?? {})) res.setHeader(name, value);
  res.status(rendered.status);
  if (dialect === 'ocs' && !rendered.bypassEnvelope && !ocsWantsJson(req)) {
    res.type('application/xml; charset=utf-8').send(ocsToXml(rendered.body as OcsEnvelope));
    return;
  }
  res.type('application/json; charset=utf-8').send(JSON.stringify(rendered.body));
}
