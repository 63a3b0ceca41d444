import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../../../api/access/principal';
import { BadRequestError } from '../../../platform/errors/domain-error';
import { ConnectionPolls } from '../../../platform/realtime/connection-polls';
import type { RealtimeConnection } from '../../../platform/realtime/realtime-connection';
import { upgradedConnection } from '../../../platform/realtime/realtime-gateways.service';
import { type UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import { isUuid } from '../../../platform/text/uuid';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from '../workspaces.config';
import { WorkspacesService } from '../workspaces.service';
import { CoderWorkspacePresenter } from './coder-workspace-presenter.service';
import { CoderGateway, gatewayUser, requireGatewayUser } from '../../../api/coder/coder-gateway';

export const WORKSPACE_WATCH_WS_PATH = '/api/v2/workspaces/:workspace/watch-ws';

/**
 * Coder's workspace watch (`watchWorkspace`): the Workspace JSON at once, then again whenever it
 * changed (build state, agents, name, ...), until the caller disconnects or loses read access. One
 * loop per watcher compares the presented JSON every WORKSPACE_WATCH_POLL_MS, so a change made on any
 * instance (provisioner, agent, API) shows up without each writer announcing it. `send` frames it for
 * the transport: `{type:"data",data}` on the WebSocket, `event: data` on the event stream.
 */
@Injectable()
export class WorkspaceWatches implements OnModuleDestroy {
  private readonly logger = new Logger(WorkspaceWatches.name);
  private readonly polls = new ConnectionPolls();

  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly presenter: CoderWorkspacePresenter,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
  ) {}

  onModuleDestroy(): void {
    this.polls.stopAll();
  }

  /** Checks read access (404 as for `GET /workspaces/{id}`) before a stream starts. */
  async check(principal: Principal, id: string): Promise<void> {
    if (!isUuid(id)) throw new BadRequestError('Invalid UUID.');
    await this.workspaces.requireWorkspace(principal, id);
  }

  watch(
    principal: Principal,
    id: string,
    connection: RealtimeConnection,
    send: (json: string) => void,
  ): void {
    let last = '';
    this.polls.start(
      connection,
      this.config.watchPollMs,
      async () => {
        const workspace = await this.workspaces.requireWorkspace(principal, id).catch(() => undefined);
        if (!workspace) {
          // Deleted, or no longer readable: the stream ends.
          connection.close(1000, 'workspace gone');
          return 'stop';
        }
        const [dto] = await this.presenter.presentMany([workspace]);
        const json = dto ? JSON.stringify(dto) : '';
        if (json && json !== last) {
          last = json;
          send(json);
        }
      },
      (error) => this.logger.warn({ err: error, workspace: id }, 'workspace watch comparison failed'),
    );
  }
}

/** `GET /api/v2/workspaces/{id}/watch-ws` (Coder's one-way WebSocket: `{"type":"data","data":Workspace}` frames). */
@CoderGateway(WORKSPACE_WATCH_WS_PATH, {
  tokenScope: { type: 'workspace', action: 'read' },
  refuseBeforeUpgrade: true,
})
export class WorkspaceWatchGateway implements OnGatewayConnection, UpgradePrecheck {
  constructor(private readonly watches: WorkspaceWatches) {}

  async precheckUpgrade(req: IncomingMessage, _url: URL, context?: unknown): Promise<void> {
    await this.watches.check(requireGatewayUser(context), upgradePathParams(req).workspace ?? '');
  }

  handleConnection(_socket: unknown, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    const principal = gatewayUser(connection?.context);
    const id = upgradePathParams(req).workspace ?? '';
    if (!connection || !principal) return;
    this.watches.watch(principal, id, connection, (json) =>
      connection.send(`{"type":"data","data":${json}}`),
    );
  }
}
