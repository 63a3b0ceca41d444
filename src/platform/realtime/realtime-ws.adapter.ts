import type { INestApplicationContext } from '@nestjs/common';
import { WsAdapter } from '@nestjs/platform-ws';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { RealtimeGateways } from './realtime-gateways.service';

const PATH_PARAMS = Symbol('devplane:ws-path-params');

/** The `:name` segments of a templated gateway path, as the upgrade's URL filled them. */
export function upgradePathParams(req: IncomingMessage): Record<string, string> {
  return (req as unknown as Record<symbol, Record<string, string> | undefined>)[PATH_PARAMS] ?? {};
}

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

  private readonly templates: { path: string; pattern: RegExp; names: string[] }[] = [];
  private rewriting = false;

  /**
   * Gateways may declare a path with `:name` segments (`/api/experimental/chats/:chat/git/watch`):
   * ws and Nest's adapter match paths exactly, so a matching upgrade's URL is rewritten to the template
   * before they see it, and the values are kept for `upgradePathParams(req)`.
   */
  private registerTemplate(path: string): void {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${path
        .split('/')
        .map((segment) => {
          if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(segment.slice(1));
          return '([^/]+)';
        })
        .join('/')}$`,
    );
    this.templates.push({ path, pattern, names });
    if (this.rewriting) return;
    this.rewriting = true;
    const server = (this as unknown as { httpServer?: import('node:http').Server }).httpServer;
    server?.prependListener('upgrade', (req: IncomingMessage) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      for (const template of this.templates) {
        const match = template.pattern.exec(url.pathname);
        if (!match) continue;
        const params: Record<string, string> = {};
        template.names.forEach((name, index) => (params[name] = decodeURIComponent(match[index + 1]!)));
        (req as unknown as Record<symbol, Record<string, string>>)[PATH_PARAMS] = params;
        req.url = `${template.path}${url.search}`;
        return;
      }
    });
  }

  override create(port: number, options?: Record<string, unknown> & { path?: string }): WebSocketServer {
    if (options?.path?.includes('/:')) this.registerTemplate(options.path);
    const server = super.create(port, options as never) as WebSocketServer;
    (server.options as { verifyClient?: unknown }).verifyClient = this.gateways.verifyClient(
      options?.path ?? '/',
    );
    return server;
  }

  /**
   * Nest's adapter parses every incoming message as JSON (`{event, data}`) for the gateway's
   * `@SubscribeMessage` handlers, even when it has none: a gateway without handlers (the agent's byte
   * streams carry binary frames of up to 64 KiB) would pay a UTF-8 decode and a failed JSON.parse per frame.
   */
  override bindMessageHandlers(...args: Parameters<WsAdapter['bindMessageHandlers']>): void {
    if (args[1].length === 0) return;
    super.bindMessageHandlers(...args);
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
