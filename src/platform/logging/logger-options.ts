import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config';

/** Structured JSON logs with a request id (taken from `X-Request-Id` or generated, echoed back). */
export function loggerOptions(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      genReqId: (req: IncomingMessage, res: ServerResponse) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["service-session-token"]',
          'req.query.token',
          'req.query.access_token',
          'req.query.service_session_token',
        ],
        censor: '[redacted]',
      },
      // Our serializers read the raw request: pino's wrapped request object costs more than the log line.
      wrapSerializers: false,
      serializers: {
        req: (req: { id: unknown; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          url: redactQueryCredentials(req.url),
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
      customLogLevel: (_req, res, error) =>
        error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    },
  };
}

const QUERY_CREDENTIAL = /([?&](?:token|access_token|service_session_token)=)[^&#]*/gi;

/** Gitea's `?token=` and Coder's `?service_session_token=` must not reach the logs. */
export function redactQueryCredentials(url: string): string {
  return url.includes('=') ? url.replace(QUERY_CREDENTIAL, '$1[redacted]') : url;
}
