import { Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AppConfig } from '../platform/config/app-config';
import { renderCoderError } from './coder/coder-error.renderer';
import { requestSseApi, type Dialect } from './dialect';
import { renderGenericError } from './generic/generic-error.renderer';
import { renderGitError } from './git/git-error.renderer';
import { renderGiteaError } from './gitea/gitea-error.renderer';
import { InternalFailure } from './internal-failure';
import { normalizeException } from './normalize-exception';
import { renderNpmError } from './npm/npm-error.renderer';
import { ocsToXml, ocsWantsJson, type OcsEnvelope } from './ocs/ocs-envelope';
import { protocolStatus } from './protocol-status';
import { sseErrorFrame } from './sse/sse-error.renderer';
import { renderOcsError } from './ocs/ocs-error.renderer';
import type { ErrorRenderContext, RenderedError } from './rendered-error';
import { requestCaller } from '../platform/http/request-caller';

const logger = new Logger('Errors');

type NormalizedError = ReturnType<typeof normalizeException>;

function renderPlain(error: NormalizedError): RenderedError {
  if (error instanceof InternalFailure) return { status: 500, body: { message: 'Internal Server Error' } };
  return { status: protocolStatus(error.kind), body: { message: error.message } };
}

/** Renders a normalised error in a dialect's shape (an SSE route's errors: in its API's shape). */
export function renderError(
  dialect: Dialect,
  error: NormalizedError,
  req: Request,
  config: AppConfig,
): RenderedError {
  const context: ErrorRenderContext = { req, config, callerIsAdmin: requestCaller(req)?.isAdmin === true };
  switch (dialect) {
    case 'ocs':
      return renderOcsError(error, context);
    case 'coder':
      return renderCoderError(error, context);
    case 'gitea':
      return renderGiteaError(error, context);
    case 'git':
      return renderGitError(error, context);
    case 'npm':
      return renderNpmError(error, context);
    case 'generic':
      return renderGenericError(error, context);
    case 'sse':
      return renderError(requestSseApi(req) ?? 'plain', error, req, config);
    case 'plain':
      return renderPlain(error);
  }
}

/** Renders any thrown value in the dialect's error shape and sends it. */
export function sendError(
  dialect: Dialect,
  exception: unknown,
  req: Request,
  res: Response,
  config: AppConfig,
): void {
  const error = normalizeException(exception);
  if (error instanceof InternalFailure) {
    logger.error({ err: error.cause, reqId: (req as { id?: unknown }).id, path: req.path }, 'internal error');
  }
  if (res.headersSent) {
    // An event stream that already started reports the failure as its last frame (sse/README.md).
    if (
      dialect === 'sse' &&
      !res.writableEnded &&
      String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')
    ) {
      res.end(sseErrorFrame(renderError(dialect, error, req, config)));
      return;
    }
    res.end();
    return;
  }
  const rendered = renderError(dialect, error, req, config);
  for (const [name, value] of Object.entries(rendered.headers ?? {})) res.setHeader(name, value);
  res.status(rendered.status);
  if (
    (dialect === 'ocs' || (dialect === 'sse' && requestSseApi(req) === 'ocs')) &&
    !rendered.bypassEnvelope &&
    !ocsWantsJson(req)
  ) {
    res.type('application/xml; charset=utf-8').send(ocsToXml(rendered.body as OcsEnvelope));
    return;
  }
  if (typeof rendered.body === 'string') {
    // git and the generic registry answer plain text, which their clients print.
    res.type('text/plain; charset=utf-8').send(rendered.body);
    return;
  }
  res.type('application/json; charset=utf-8').send(JSON.stringify(rendered.body));
}
