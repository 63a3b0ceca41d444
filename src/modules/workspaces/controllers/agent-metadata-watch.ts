import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../../../api/access/principal';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { ConnectionPolls } from '../../../platform/realtime/connection-polls';
import type { RealtimeConnection } from '../../../platform/realtime/realtime-connection';
import { upgradedConnection } from '../../../platform/realtime/realtime-gateways.service';
import { type UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import { isUuid } from '../../../platform/text/uuid';
import type { AgentMetadataItem } from '../entities/workspace-agent.entity';
import { WorkspaceAgentsService } from '../workspace-agents.service';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from '../workspaces.config';
import { WorkspacesService } from '../workspaces.service';
import { CoderGateway, gatewayUser, requireGatewayUser } from '../../../api/coder/coder-gateway';

export const WATCH_METADATA_WS_PATH = '/api/v2/workspaceagents/:workspaceagent/watch-metadata-ws';

const NOT_FOUND = 'Resource not found or you do not have access to this resource';
/** Go's zero time: what Coder sends for an item not collected yet. */
const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Coder's WorkspaceAgentMetadata: `{result: {collected_at, age, value, error}, description: {...}}`. */
export function presentMetadata(items: AgentMetadataItem[], now = Date.now()) {
  return items.map((item) => {
    const collected = item.collected_at ? new Date(item.collected_at).getTime() : Number.NaN;
    return {
      result: {
        collected_at: Number.isNaN(collected) ? ZERO_TIME : new Date(collected).toISOString(),
        age: Number.isNaN(collected) ? 0 : Math.max(0, Math.floor((now - collected) / 1000)),
        value: item.value ?? '',
        error: item.error ?? '',
      },
      description: {
        display_name: item.display_name,
        key: item.key,
        script: item.script,
        interval: item.interval,
        timeout: item.timeout,
      },
    };
  });
}

/**
 * Coder's agent metadata watch (`watchAgentMetadata`, issue 50.2): the agent's metadata items with
 * their latest results at once, then again whenever a result changed (`{type:"data",data:[...]}` on the
 * WebSocket, `event: data` on the event stream). Results are re-read every WORKSPACE_WATCH_POLL_MS, so
 * what an agent reported to any instance shows up; the stream ends when the workspace is no longer readable.
 */
@Injectable()
export class AgentMetadataWatches implements OnModuleDestroy {
  private readonly logger = new Logger(AgentMetadataWatches.name);
  private readonly polls = new ConnectionPolls();

  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly agents: WorkspaceAgentsService,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
  ) {}

  onModuleDestroy(): void {
    this.polls.stopAll();
  }

  /** The agent's workspace must be readable (404 as Coder's ResourceNotFound). */
  async check(principal: Principal, agentId: string): Promise<string> {
    if (!isUuid(agentId)) throw new NotFoundError(NOT_FOUND);
    const agent = await this.agents.findAgent(agentId);
    if (!agent) throw new NotFoundError(NOT_FOUND);
    await this.workspaces.requireWorkspace(principal, agent.workspace_id);
    return agent.workspace_id;
  }

  watch(
    principal: Principal,
    agentId: string,
    workspaceId: string,
    connection: RealtimeConnection,
    send: (json: string) => void,
  ): void {
    let last = '';
    this.polls.start(
      connection,
      this.config.watchPollMs,
      async () => {
        const readable = await this.workspaces
          .requireWorkspace(principal, workspaceId)
          .catch(() => undefined);
        if (!readable) {
          connection.close(1000, 'workspace gone');
          return 'stop';
        }
        const items = await this.agents.metadataOf(agentId);
        // Compared without the age (it changes every second), sent with it.
        const state = JSON.stringify(
          items.map((item) => [item.key, item.value, item.error, item.collected_at]),
        );
        if (state !== last) {
          last = state;
          send(JSON.stringify(presentMetadata(items)));
        }
      },
      (error) => this.logger.warn({ err: error, agent: agentId }, 'metadata watch failed'),
    );
  }
}

/** `GET /api/v2/workspaceagents/{id}/watch-metadata-ws` (Coder's one-way WebSocket of ServerSentEvent frames). */
@CoderGateway(WATCH_METADATA_WS_PATH, {
  tokenScope: { type: 'workspace', action: 'read' },
  refuseBeforeUpgrade: true,
})
export class AgentMetadataWatchGateway implements OnGatewayConnection, UpgradePrecheck {
  constructor(private readonly watches: AgentMetadataWatches) {}

  async precheckUpgrade(req: IncomingMessage, _url: URL, context?: unknown): Promise<void> {
    const workspaceId = await this.watches.check(
      requireGatewayUser(context),
      upgradePathParams(req).workspaceagent ?? '',
    );
    (req as unknown as { devplaneWorkspaceId?: string }).devplaneWorkspaceId = workspaceId;
  }

  handleConnection(_socket: unknown, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    const principal = gatewayUser(connection?.context);
    const agentId = upgradePathParams(req).workspaceagent ?? '';
    const workspaceId = (req as unknown as { devplaneWorkspaceId?: string }).devplaneWorkspaceId;
    if (!connection || !principal || !workspaceId) return;
    this.watches.watch(principal, agentId, workspaceId, connection, (json) =>
      connection.send(`{"type":"data","data":${json}}`),
    );
  }
}
