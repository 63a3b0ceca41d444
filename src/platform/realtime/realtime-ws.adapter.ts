import type { INestApplicationContext } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { RealtimeGateways } from './realtime-gateways.service';

/**
 * `@nestjs/platform-ws`'s adapter with devplane's upgrade rules on every gateway: each ws server
 * gets a `verifyClient` from RealtimeGateways (credentials and access declarations as on HTTP,
 * Origin for cookies, the gateway's pre-check), and each socket is registered (heartbeats,
 * backpressure, revocation) before the gateway's `handleConnection` runs. Gateways cannot opt out.
 */
export class RealtimeWsAdapter extends WsAdapter {
  private gatewaysService: RealtimeGateways | undefined;

  constructor(private readonly app: INestApplicationContext) {
    super(app);
  }

  private get gateways(): RealtimeGateways {
    const service = this.gatewaysService ?? this.app.get(RealtimeGateways, { strict: false });
    if (!service)
      throw new Error('RealtimeModule is not loaded: no RealtimeGateways to guard WebSocket upgrades.');
    this.gatewaysService = service;
    return service;
  }

  override create(port: number, options?: Record<string, unknown> & { path?: string }): WebSocketServer {
    const server = super.create(port, options as never) as WebSocketServer;
    (server.options as { verifyClient?: unknown }).verifyClient = this.gateways.verifyClient(
      options?.path ?? '/',
    );
    return server;
  }

  override bindClientConnect(
    server: WebSocketServer,
    callback: (socket: WebSocket, req: IncomingMessage) => void,
  ): void {
    server.on('connection', (socket: WebSocket, req: IncomingMessage) => {
      if (this.gateways.connect(socket, req)) callback(socket, req);
    });
  }
}
