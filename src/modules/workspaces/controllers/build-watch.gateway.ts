import { Inject, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { ForbiddenError } from '../../../platform/errors/domain-error';
import { RealtimeHub } from '../../../platform/realtime/realtime-hub.service';
import type { UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradedConnection } from '../../../platform/realtime/realtime-gateways.service';
import type { WsConnection } from '../../../platform/realtime/ws-connection';
import { AuthorizationService } from '../../auth/authorization.service';
import { BUILD_UPDATES_SUBJECT, type BuildUpdateFrame } from '../events';
import { CoderGateway, gatewayUser } from '../../../api/coder/coder-gateway';

export const BUILD_WATCH_PATH = '/api/experimental/watch-all-workspacebuilds';
export const BUILD_WATCH_EXPERIMENT = 'workspace-build-updates';
/** Frames a watcher may have unsent before new ones are dropped (Coder's buffer). */
const MAX_PENDING_FRAMES = 256;

/**
 * `GET /api/experimental/watch-all-workspacebuilds` (reference D.6): every build state change of
 * every workspace on every instance, for callers with site-wide workspace read, behind the
 * `workspace-build-updates` experiment. A slow client loses frames (bounded buffer), not the server's memory.
 */
@CoderGateway(BUILD_WATCH_PATH, { tokenScope: { type: 'workspace', action: 'read' } })
export class BuildWatchGateway implements OnGatewayConnection, OnModuleDestroy, UpgradePrecheck {
  private readonly watchers = new Set<{ connection: WsConnection; pending: number }>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly hub: RealtimeHub,
    private readonly authz: AuthorizationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  async precheckUpgrade(_req: IncomingMessage, _url: URL, context?: unknown): Promise<void> {
    if (!this.config.experiments.includes(BUILD_WATCH_EXPERIMENT))
      throw new ForbiddenError(
        `Workspace build updates functionality requires enabling the '${BUILD_WATCH_EXPERIMENT}' experiment.`,
        'permission',
        { code: 'EXPERIMENT_DISABLED' },
      );
    const principal = gatewayUser(context);
    if (!principal?.user || !(await this.authz.authorize(principal, 'read', { type: 'workspace' })))
      throw new ForbiddenError('You are not authorized to watch all workspace builds.', 'permission');
  }

  handleConnection(_socket: WebSocket, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    if (!connection) return;
    const watcher = { connection, pending: 0 };
    this.watchers.add(watcher);
    this.unsubscribe ??= this.hub.subscribe(BUILD_UPDATES_SUBJECT, (frame) => this.fanOut(frame));
    connection.onClose(() => this.watchers.delete(watcher));
  }

  watcherCount(): number {
    return this.watchers.size;
  }

  private fanOut(frame: BuildUpdateFrame): void {
    const text = JSON.stringify(frame);
    for (const watcher of this.watchers) {
      if (watcher.pending >= MAX_PENDING_FRAMES) continue; // the slow client misses this one
      watcher.pending++;
      const socket = (watcher.connection as unknown as { socket?: WebSocket }).socket;
      if (socket && typeof socket.send === 'function' && socket.readyState === 1) {
        socket.send(text, () => watcher.pending--);
      } else {
        watcher.connection.send(text);
        watcher.pending--;
      }
    }
  }
}
