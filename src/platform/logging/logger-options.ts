import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';
import { levels } from 'pino';
import type { Options } from 'pino-http';
import type { AppConfig } from '../config/app-config';
import { requestCaller } from '../http/request-caller';

/** Structured JSON logs with a request id (taken from `X-Request-Id` or generated, echoed back). */
export function loggerOptions(config: AppConfig): Options {
  const threshold = config.logLevel === 'silent' ? Infinity : levels.values[config.logLevel]!;
  return {
    level: config.logLevel,
    // LOG_FORMAT=pretty: readable lines for a terminal (pino-pretty); json (default) for collectors.
    ...(config.logFormat === 'pretty'
      ? { transport: { target: 'pino-pretty', options: { singleLine: true, colorize: false } } }
      : {}),
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // No `redact` paths: the request serializer below writes neither headers nor the parsed query, and
    // removes credentials from the URL, so a path such as `req.headers.authorization` never exists in a
    // line; redaction ran on every request's bindings for nothing (issue 10 item 14).
    // Our serializers read the raw request: pino's wrapped request object costs more than the log line.
    wrapSerializers: false,
    // The signed-in user, known once the auth guard ran: read when the response is logged. Nothing
    // (not `{}`) without one: pino-http also calls this as the request arrives, and an empty object
    // there cost every request a second child logger.
    customProps: ((req: IncomingMessage) => {
      const userId = requestCaller(req as unknown as Request)?.userId;
      return userId ? { userId } : undefined;
    }) as Options['customProps'],
    serializers: {
      req: (req: IncomingMessage & { id: unknown; ip?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactQueryCredentials(req.url ?? ''),
        // The client (X-Forwarded-For only from TRUSTED_PROXIES: Express's req.ip), the user, the agent.
        remoteAddress: req.ip ?? req.socket?.remoteAddress,
        userAgent: req.headers['user-agent'],
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    // A line the level would drop is 'silent' for pino-http: it then skips the finished request's
    // bindings (customProps, serialized, and a child logger) instead of building them for nothing.
    customLogLevel: (_req, res, error) => {
      const level = error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
      return levels.values[level]! >= threshold ? level : 'silent';
    },
  };
}

const QUERY_CREDENTIAL = /([?&](?:token|access_token|service_session_token|coder_session_token)=)[^&#]*/gi;

/** Gitea's `?token=` and Coder's `?service_session_token=` (`?coder_session_token=`) must not reach the logs. */
export function redactQueryCredentials(url: string): string {
  return url.includes('=') ? url.replace(QUERY_CREDENTIAL, '$1[redacted]') : url;
}
