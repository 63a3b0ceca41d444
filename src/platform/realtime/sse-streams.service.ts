import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { ForbiddenError } from '../errors/domain-error';
import { allowedOrigins, originPermitted } from './origin';
import { ORIGIN_NOT_ALLOWED } from './realtime-gateways.service';
import { RealtimeConnections } from './realtime-connections.service';
import type { RealtimeIdentity } from './realtime-ports';
import { SseConnection } from './sse-connection';

/**
 * The SSE adapter for HTTP routes (which the AuthGuard already authenticated like any route):
 * `open(req, res, identity)` checks Origin for cookie credentials (throws ForbiddenError before
 * anything is written, so the route's dialect renders it), sends the `text/event-stream` head and
 * returns a registered SseConnection (heartbeat comments, backpressure, revocation). The route
 * resumes from `connection.lastEventId` (`Last-Event-ID`) if it can.
 */
@Injectable()
export class SseStreams {
  private readonly origins: Set<string>;

  constructor(
    private readonly connections: RealtimeConnections,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.origins = allowedOrigins(config);
  }

  open(req: IncomingMessage, res: ServerResponse, identity: RealtimeIdentity | undefined): SseConnection {
    if (identity?.viaCookie && !originPermitted(req.headers.origin, this.origins)) {
      throw new ForbiddenError(ORIGIN_NOT_ALLOWED, 'permission', { code: 'ORIGIN_NOT_ALLOWED' });
    }
    const lastEventId = req.headers['last-event-id'];
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const connection = new SseConnection(
      res,
      identity,
      this.connections.settings.maxBufferedBytes,
      typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : undefined,
    );
    this.connections.register(connection);
    return connection;
  }
}
