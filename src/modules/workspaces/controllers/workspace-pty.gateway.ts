import { Inject, Logger } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { BadRequestError, InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import { type UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import { isUuid } from '../../../platform/text/uuid';
import { AuthorizationService } from '../../auth/authorization.service';
import { type AgentStream, AgentStreamsService } from '../agent-streams.service';
import { agentStatus } from '../coder-workspace.presenter';
import { WorkspaceAgentsService } from '../workspace-agents.service';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from '../workspaces.config';
import { workspaceObject, WorkspacesService } from '../workspaces.service';
import { CoderGateway, requireGatewayUser } from '../../../api/coder/coder-gateway';

export const PTY_PATH = '/api/v2/workspaceagents/:workspaceagent/pty';

const OPENED = Symbol('devplane:pty');
/** An opened PTY stream whose client upgrade never completed is closed after this. */
const CLAIM_MS = 10_000;
const NOT_FOUND = 'Resource not found or you do not have access to this resource';

interface OpenedPty {
  stream: AgentStream;
  unclaimed: NodeJS.Timeout;
  agentId: string;
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

/** Coder parses height/width as uint16 and falls back to 80 on anything else. */
function dimension(value: string | null): number {
  if (value === null || !/^\d{1,5}$/.test(value)) return 80;
  const number = Number(value);
  return number <= 65_535 ? number : 80;
}

function clientIp(req: IncomingMessage): string | null {
  const address = req.socket.remoteAddress ?? null;
  return address?.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * Coder's reconnecting PTY (issue 50): `GET /api/v2/workspaceagents/{id}/pty?reconnect=<uuid>&width=
 * &height=&command=` upgrades to a WebSocket. The client sends JSON `{data}` / `{height,width}` (text or
 * binary frames, as Coder's web terminal sends them); the server sends the terminal's raw output bytes as
 * binary frames. The PTY runs in the workspace through its agent (agent-streams.service.ts) and survives a
 * dropped socket: the same `reconnect` id gets the same terminal and its recent output. Refusals are HTTP
 * answers before the upgrade: 401 without credentials, 403 for a token without `workspace:ssh`, 404 when
 * the caller may not ssh into the workspace (Coder's ResourceNotFound), 400 for a bad `reconnect` or an
 * agent that is not connected, 503 when the agent does not open it. Sessions go to the connection log
 * (`reconnecting_pty`).
 */
@CoderGateway(PTY_PATH, { tokenScope: { type: 'workspace', action: 'ssh' }, refuseBeforeUpgrade: true })
export class WorkspacePtyGateway implements OnGatewayConnection, UpgradePrecheck {
  private readonly logger = new Logger(WorkspacePtyGateway.name);
  /** Relays open now (tests read it). */
  open = 0;

  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly agents: WorkspaceAgentsService,
    private readonly streams: AgentStreamsService,
    private readonly authz: AuthorizationService,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
  ) {}

  async precheckUpgrade(req: IncomingMessage, url: URL, context?: unknown): Promise<void> {
    const principal = requireGatewayUser(context);
    const agentId = upgradePathParams(req).workspaceagent ?? '';
    if (!isUuid(agentId)) throw new NotFoundError(NOT_FOUND);
    const agent = await this.agents.findAgent(agentId);
    if (!agent) throw new NotFoundError(NOT_FOUND);
    const workspace = await this.workspaces.requireWorkspace(principal, agent.workspace_id);
    if (!(await this.authz.authorize(principal, 'ssh', workspaceObject(workspace))))
      throw new NotFoundError(NOT_FOUND);
    const status = agentStatus(agent, this.config.agentDisconnectMs);
    if (status !== 'connected')
      throw new BadRequestError(`Agent state is "${status}", it must be in the "connected" state.`);
    const reconnect = url.searchParams.get('reconnect') ?? '';
    if (!isUuid(reconnect))
      throw new InvalidError("Query param 'reconnect' must be a valid UUID.", {
        fields: [{ field: 'reconnect', detail: 'invalid UUID' }],
      });
    const stream = await this.streams.open(
      agent,
      'pty',
      {
        reconnect: reconnect.toLowerCase(),
        width: dimension(url.searchParams.get('width')),
        height: dimension(url.searchParams.get('height')),
        command: url.searchParams.get('command') ?? '',
        container: url.searchParams.get('container') ?? '',
      },
      30_000,
    );
    const unclaimed = setTimeout(() => stream.close(), CLAIM_MS);
    unclaimed.unref();
    const opened: OpenedPty = {
      stream,
      unclaimed,
      agentId: agent.id,
      userId: principal.user.uuid,
      ip: clientIp(req),
      userAgent: (req.headers['user-agent'] ?? '').slice(0, 512) || null,
    };
    (req as unknown as Record<symbol, OpenedPty>)[OPENED] = opened;
  }

  handleConnection(client: WebSocket, req: IncomingMessage): void {
    const opened = (req as unknown as Record<symbol, OpenedPty | undefined>)[OPENED];
    if (!opened) {
      client.close(1011, 'Terminal not available.');
      return;
    }
    clearTimeout(opened.unclaimed);
    this.relay(client, opened);
  }

  private relay(client: WebSocket, opened: OpenedPty): void {
    this.open++;
    const { stream } = opened;
    const connectionId = randomUUID();
    const identity = { agentId: opened.agentId, workspaceId: '', ownerId: '' };
    const logged = this.agents
      .reportConnectionLog(identity, {
        id: connectionId,
        action: 'connect',
        type: 'reconnecting_pty',
        ip: opened.ip ?? undefined,
        userAgent: opened.userAgent ?? undefined,
        userId: opened.userId,
      })
      .catch((error: unknown) => this.logger.warn({ err: error }, 'connection log failed'));
    let closed = false;
    const close = (reason: string, code: number): void => {
      if (closed) return;
      closed = true;
      this.open--;
      stream.close();
      if (client.readyState === client.OPEN) client.close(1000, reason);
      void logged.then(() =>
        this.agents
          .reportConnectionLog(identity, {
            id: connectionId,
            action: 'disconnect',
            type: 'reconnecting_pty',
            reason,
            code,
          })
          .catch((error: unknown) => this.logger.warn({ err: error }, 'connection log failed')),
      );
    };
    // Output: raw bytes, binary frames. Input: every client frame as text (the agent reads JSON objects).
    stream.onMessage((data) => {
      if (client.readyState === client.OPEN) client.send(data, { binary: true });
    });
    stream.onClose(() => close('process exited', 0));
    client.on('message', (data: Buffer) => stream.send(data, false));
    client.on('close', () => close('client disconnected', 0));
    client.on('error', () => close('client error', 1));
  }
}
