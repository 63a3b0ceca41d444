import { Inject, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { BadRequestError, NotFoundError } from '../../../platform/errors/domain-error';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import { WorkspaceAgentCalls } from '../../../platform/ports/workspace-agent-calls';
import { upgradedConnection } from '../../../platform/realtime/realtime-gateways.service';
import type { UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import type { WsConnection } from '../../../platform/realtime/ws-connection';
import { AGENTS_EXPERIMENT } from '../agents-experiment.guard';
import { CHATS_CONFIG, type ChatsConfig } from '../chats.config';
import { ChatsService } from '../chats.service';
import type { Chat } from '../entities/chat.entity';
import { GIT_DIRTY_TOPIC } from '../events';
import { CoderGateway, requireGatewayUser } from '../../../api/coder/coder-gateway';

export const GIT_WATCH_PATH = '/api/experimental/chats/:chat/git/watch';
/** Coder's path for the same watch. */
export const GIT_STREAM_PATH = '/api/experimental/chats/:chat/stream/git';

interface Repository {
  repo_root: string;
  branch: string;
  remote_origin: string;
  unified_diff: string;
}

interface Watcher {
  chat: Chat;
  connection: WsConnection;
  last: Map<string, string>;
  lastScan: number;
  scheduled: NodeJS.Timeout | undefined;
  scanning: boolean;
  again: boolean;
  /** The first scan's snapshot is always sent. */
  sent: boolean;
  poll: NodeJS.Timeout;
  unsubscribe: () => void;
}

/**
 * `GET /api/experimental/chats/{chat}/git/watch` over WebSocket (issue 19.8): the agent scans the
 * git repositories holding the paths the chat and its ancestors touched; a `changes` message carries
 * each repository's whole unified diff, branch and origin, and goes out only when that snapshot
 * changed. Scans: at connection, every CHAT_GIT_WATCH_POLL_MS (30 s), on `{"type":"refresh"}` and
 * after the chat's tools ran, at most one a second.
 */
@CoderGateway(GIT_WATCH_PATH, { tokenScope: { type: 'chat', action: 'read' }, refuseBeforeUpgrade: true })
export class GitWatchGateway implements OnGatewayConnection, OnModuleDestroy, UpgradePrecheck {
  private readonly logger = new Logger(GitWatchGateway.name);
  private readonly watchers = new Set<Watcher>();
  private readonly pollMs: number;
  /** Scans done (tests and the benchmark read it). */
  scans = 0;

  constructor(
    private readonly chats: ChatsService,
    private readonly cluster: ClusterBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHATS_CONFIG) chatsConfig: ChatsConfig,
    @Optional() private readonly agentCalls?: WorkspaceAgentCalls,
  ) {
    this.pollMs = chatsConfig.gitWatchPollMs;
  }

  onModuleDestroy(): void {
    for (const watcher of this.watchers) this.stop(watcher);
  }

  /** Coder's preconditions, before the upgrade (HTTP errors in Coder's shape). */
  async precheckUpgrade(req: IncomingMessage, _url: URL, context?: unknown): Promise<void> {
    if (!this.config.experiments.includes(AGENTS_EXPERIMENT)) throw new NotFoundError('Route not found.');
    const principal = requireGatewayUser(context);
    const chat = await this.chats.requireChat(principal, upgradePathParams(req).chat ?? '');
    if (!chat.workspaceId) throw new BadRequestError('Chat has no workspace.');
    const state = (await this.agentCalls?.agentState(chat.workspaceId)) ?? null;
    if (state === null) throw new BadRequestError('No eligible agent found for chat workspace.');
    if (state !== 'connected')
      throw new BadRequestError(`Agent state is "${state}", it must be in the "connected" state.`);
    (req as unknown as { devplaneChat?: Chat }).devplaneChat = chat;
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    const chat = (req as unknown as { devplaneChat?: Chat }).devplaneChat;
    if (!connection || !chat) return;
    const watcher: Watcher = {
      chat,
      connection,
      last: new Map(),
      lastScan: 0,
      scheduled: undefined,
      scanning: false,
      again: false,
      sent: false,
      poll: setInterval(() => this.request(watcher), this.pollMs),
      unsubscribe: this.cluster.subscribe(GIT_DIRTY_TOPIC + chat.id, () => this.request(watcher)),
    };
    watcher.poll.unref();
    this.watchers.add(watcher);
    socket.on('message', (data: Buffer) => {
      let message: { type?: unknown };
      try {
        message = JSON.parse(data.toString('utf8')) as { type?: unknown };
      } catch {
        connection.send(JSON.stringify({ type: 'error', message: 'Invalid message.' }));
        return;
      }
      if (message.type === 'refresh') this.request(watcher);
      else
        connection.send(
          JSON.stringify({ type: 'error', message: `Unknown message type "${String(message.type)}".` }),
        );
    });
    connection.onClose(() => this.stop(watcher));
    this.request(watcher);
  }

  private stop(watcher: Watcher): void {
    clearInterval(watcher.poll);
    clearTimeout(watcher.scheduled);
    watcher.unsubscribe();
    this.watchers.delete(watcher);
  }

  /** A scan now, or at the next free second (requests in between are one scan). */
  private request(watcher: Watcher): void {
    if (!this.watchers.has(watcher)) return;
    if (watcher.scanning) {
      watcher.again = true;
      return;
    }
    if (watcher.scheduled) return;
    const wait = Math.max(0, watcher.lastScan + 1_000 - Date.now());
    watcher.scheduled = setTimeout(() => {
      watcher.scheduled = undefined;
      void this.scan(watcher);
    }, wait);
  }

  private async scan(watcher: Watcher): Promise<void> {
    if (!this.watchers.has(watcher) || !this.agentCalls) return;
    watcher.scanning = true;
    watcher.lastScan = Date.now();
    this.scans++;
    try {
      const paths = await this.chats.touchedPaths(watcher.chat);
      const result = await this.agentCalls.call(watcher.chat.workspaceId!, 'git_scan', { paths }, 30_000);
      if (!result.ok) throw new Error(result.output);
      const repositories = JSON.parse(result.output) as Repository[];
      const changed: (Repository | { repo_root: string; removed: true })[] = [];
      const seen = new Set<string>();
      for (const repository of repositories) {
        seen.add(repository.repo_root);
        const key = JSON.stringify([repository.branch, repository.remote_origin, repository.unified_diff]);
        if (watcher.last.get(repository.repo_root) !== key) {
          watcher.last.set(repository.repo_root, key);
          changed.push(repository);
        }
      }
      for (const root of [...watcher.last.keys()])
        if (!seen.has(root)) {
          watcher.last.delete(root);
          changed.push({ repo_root: root, removed: true });
        }
      if (changed.length > 0 || !watcher.sent) {
        watcher.sent = true;
        watcher.connection.send(
          JSON.stringify({ type: 'changes', scanned_at: new Date().toISOString(), repositories: changed }),
        );
      }
    } catch (error) {
      watcher.connection.send(
        JSON.stringify({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
      );
      this.logger.debug({ err: error }, 'git scan failed');
    } finally {
      watcher.scanning = false;
      watcher.lastScan = Date.now();
      if (watcher.again) {
        watcher.again = false;
        this.request(watcher);
      }
    }
  }
}

/** The same watch at Coder's path (`/chats/{chat}/stream/git`). */
@CoderGateway(GIT_STREAM_PATH, { tokenScope: { type: 'chat', action: 'read' }, refuseBeforeUpgrade: true })
export class GitStreamGateway extends GitWatchGateway {}
