import { Inject, Injectable, Logger } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { DomainError, ForbiddenError } from '../errors/domain-error';
import { allowedOrigins, originPermitted } from './origin';
import { closeReason } from './realtime-connection';
import { RealtimeConnections } from './realtime-connections.service';
import { hasUpgradePrecheck, type UpgradeAuthorizer, type UpgradeDecision } from './realtime-ports';
import { WsConnection } from './ws-connection';

/** @nestjs/websockets metadata keys (constants.js of the package). */
const GATEWAY_METADATA = 'websockets:is_gateway';
const GATEWAY_OPTIONS = 'websockets:gateway_options';

const DECISION = Symbol('devplane:upgrade-decision');
const CONNECTION = Symbol('devplane:ws-connection');

export const ORIGIN_NOT_ALLOWED = 'Origin not allowed.';

interface Gateway {
  metatype: Function;
  instance: unknown;
}

type Refusal = { status: number; body: string; headers: Record<string, string> };

function normalizePath(path: string): string {
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, '') : withSlash;
}

/**
 * The upgrade side of every `@WebSocketGateway` (RealtimeWsAdapter calls it): before an upgrade,
 * the gateway's access declaration and the caller's credentials go through the auth module's
 * UpgradeAuthorizer (the same strategies and guard as HTTP; undeclared = refused), cookie
 * credentials must come from an allowed Origin, then the gateway's own pre-check runs. After the
 * upgrade, each socket becomes a WsConnection in the registry (heartbeats, backpressure,
 * revocation) before the gateway's `handleConnection` sees it.
 */
@Injectable()
export class RealtimeGateways {
  private readonly logger = new Logger(RealtimeGateways.name);
  private gateways: Map<string, Gateway> | undefined;
  private authorizer: UpgradeAuthorizer | undefined;
  private readonly origins: Set<string>;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly connections: RealtimeConnections,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.origins = allowedOrigins(config);
  }

  /** The auth module plugs its authorizer in at start; without one every upgrade is refused. */
  useAuthorizer(authorizer: UpgradeAuthorizer): void {
    this.authorizer = authorizer;
  }

  /** ws `verifyClient` for the gateway on `path`. */
  verifyClient(path: string) {
    return (
      info: { req: IncomingMessage },
      callback: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void,
    ): void => {
      void this.decide(path, info.req).then(
        (refusal) =>
          refusal ? callback(false, refusal.status, refusal.body, refusal.headers) : callback(true),
        (error: unknown) => {
          this.logger.error({ err: error, path }, 'WebSocket upgrade failed');
          callback(false, 500);
        },
      );
    };
  }

  /**
   * A socket that was upgraded: closed at once when the decision says so (a 401 on a socket),
   * else registered. Returns whether the gateway should see it.
   */
  connect(socket: WebSocket, req: IncomingMessage): boolean {
    const decision = (req as unknown as Record<symbol, UpgradeDecision | undefined>)[DECISION];
    if (!decision || decision.kind === 'refuse') {
      socket.close(1008, 'Forbidden');
      return false;
    }
    if (decision.kind === 'close') {
      socket.close(decision.code, closeReason(decision.reason));
      return false;
    }
    const connection = new WsConnection(
      socket,
      decision.identity,
      this.connections.settings.maxBufferedBytes,
      decision.context,
    );
    (req as unknown as Record<symbol, WsConnection>)[CONNECTION] = connection;
    this.connections.register(connection);
    return !connection.closed;
  }

  private async decide(path: string, req: IncomingMessage): Promise<Refusal | undefined> {
    const gateway = this.gatewayAt(normalizePath(path));
    if (!gateway || !this.authorizer) {
      return {
        status: 403,
        body: JSON.stringify({ message: 'Forbidden.' }),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      };
    }
    const decision = await this.authorizer.authorizeUpgrade(gateway.metatype, req);
    if (decision.kind === 'refuse') return decision;
    if (decision.kind === 'accept') {
      try {
        if (decision.identity?.viaCookie && !originPermitted(req.headers.origin, this.origins)) {
          throw new ForbiddenError(ORIGIN_NOT_ALLOWED, 'permission', { code: 'ORIGIN_NOT_ALLOWED' });
        }
        if (hasUpgradePrecheck(gateway.instance)) {
          await gateway.instance.precheckUpgrade(
            req,
            new URL(req.url ?? '/', 'http://localhost'),
            decision.context,
          );
        }
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return this.authorizer.renderRefusal(gateway.metatype, req, error);
      }
    }
    (req as unknown as Record<symbol, UpgradeDecision>)[DECISION] = decision;
    return undefined;
  }

  private gatewayAt(path: string): Gateway | undefined {
    if (!this.gateways) {
      this.gateways = new Map();
      for (const wrapper of this.discovery.getProviders()) {
        const metatype = wrapper.metatype as Function | null | undefined;
        if (!metatype || typeof metatype !== 'function' || !Reflect.getMetadata(GATEWAY_METADATA, metatype))
          continue;
        const options = (Reflect.getMetadata(GATEWAY_OPTIONS, metatype) ?? {}) as { path?: string };
        this.gateways.set(normalizePath(options.path ?? '/'), { metatype, instance: wrapper.instance });
      }
    }
    return this.gateways.get(path);
  }
}

/** The connection of an upgraded socket (its identity and the authorizer's context: the principal). */
export function upgradedConnection(req: IncomingMessage): WsConnection | undefined {
  return (req as unknown as Record<symbol, WsConnection | undefined>)[CONNECTION];
}
