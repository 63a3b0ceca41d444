import { Inject, Logger, Optional } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../../platform/errors/domain-error';
import { WorkspaceAgentCalls } from '../../../platform/ports/workspace-agent-calls';
import { WorkspaceLookup, workspaceRbacObject } from '../../../platform/ports/workspace-lookup';
import type { UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import { isUuid } from '../../../platform/text/uuid';
import { AuthorizationService } from '../../auth/authorization.service';
import { AGENTS_EXPERIMENT } from '../agents-experiment.guard';
import { ChatsService } from '../chats.service';
import { CoderGateway, requireGatewayUser } from '../../../api/coder/coder-gateway';

export const DESKTOP_PATH = '/api/experimental/chats/:chat/desktop';
/** Coder's path for the same stream. */
export const DESKTOP_STREAM_PATH = '/api/experimental/chats/:chat/stream/desktop';

const DESKTOP = Symbol('devplane:chat-desktop');
/** An opened desktop whose client upgrade never completed is closed after this. */
const CLAIM_MS = 10_000;

/**
 * `GET /api/experimental/chats/{chat}/desktop` over WebSocket (issue 19.9): the raw RFB (VNC) byte
 * stream of the chat workspace's desktop, binary frames both ways, relayed by the workspace agent
 * (which starts the template's VNC command). Coder's preconditions are HTTP errors before the upgrade:
 * 400 no workspace, workspace not found, no eligible agent, agent not connected; 403 without
 * `application_connect` or `ssh` on the workspace. The desktop is opened before the upgrade too, so a
 * desktop that cannot start is an HTTP error (503), not a socket that closes at once.
 */
@CoderGateway(DESKTOP_PATH, { tokenScope: { type: 'chat', action: 'read' }, refuseBeforeUpgrade: true })
export class DesktopGateway implements OnGatewayConnection, UpgradePrecheck {
  private readonly logger = new Logger(DesktopGateway.name);
  /** Relays open now (tests read it). */
  open = 0;

  constructor(
    private readonly chats: ChatsService,
    private readonly authz: AuthorizationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly workspaces?: WorkspaceLookup,
    @Optional() private readonly agentCalls?: WorkspaceAgentCalls,
  ) {}

  async precheckUpgrade(req: IncomingMessage, _url: URL, context?: unknown): Promise<void> {
    if (!this.config.experiments.includes(AGENTS_EXPERIMENT)) throw new NotFoundError('Route not found.');
    const principal = requireGatewayUser(context);
    const chat = await this.chats.requireChat(principal, upgradePathParams(req).chat ?? '');
    if (!chat.workspaceId) throw new BadRequestError('Chat has no workspace.');
    const workspace = isUuid(chat.workspaceId) ? await this.workspaces?.find(chat.workspaceId) : null;
    const object = workspace ? workspaceRbacObject(workspace) : null;
    if (!object || !(await this.authz.authorize(principal, 'read', object)))
      throw new BadRequestError('Chat workspace not found.');
    if (
      !(await this.authz.authorize(principal, 'application_connect', object)) &&
      !(await this.authz.authorize(principal, 'ssh', object))
    )
      throw new ForbiddenError();
    const state = (await this.agentCalls?.agentState(chat.workspaceId)) ?? null;
    if (state === null) throw new BadRequestError('No eligible agent found for chat workspace.');
    if (state !== 'connected') throw new BadRequestError(`Agent state is "${state}", must be connected.`);
    const desktop = await this.agentCalls!.openDesktop(chat.workspaceId, 30_000);
    const unclaimed = setTimeout(() => desktop.destroy(), CLAIM_MS);
    unclaimed.unref();
    (req as unknown as Record<symbol, unknown>)[DESKTOP] = { desktop, unclaimed };
  }

  handleConnection(client: WebSocket, req: IncomingMessage): void {
    const opened = (
      req as unknown as Record<symbol, { desktop: Duplex; unclaimed: NodeJS.Timeout } | undefined>
    )[DESKTOP];
    if (!opened) {
      client.close(1011, 'Desktop not available.');
      return;
    }
    clearTimeout(opened.unclaimed);
    this.relay(client, opened.desktop);
  }

  /** Bytes both ways, binary frames, with backpressure (a stream pauses while the other side is full). */
  private relay(client: WebSocket, desktopStream: Duplex): void {
    this.open++;
    const clientStream = createWebSocketStream(client);
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      this.open--;
      clientStream.destroy();
      desktopStream.destroy();
      if (client.readyState === client.OPEN) client.close(1000, 'desktop closed');
    };
    for (const stream of [clientStream, desktopStream]) {
      stream.on('error', (error) => {
        this.logger.debug({ err: error }, 'desktop relay ended');
        close();
      });
      stream.on('close', close);
    }
    clientStream.pipe(desktopStream);
    desktopStream.pipe(clientStream);
  }
}

/** The same stream at Coder's path (`/chats/{chat}/stream/desktop`). */
@CoderGateway(DESKTOP_STREAM_PATH, {
  tokenScope: { type: 'chat', action: 'read' },
  refuseBeforeUpgrade: true,
})
export class DesktopStreamGateway extends DesktopGateway {}
