import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { upgradedConnection } from '../../../platform/realtime/realtime-gateways.service';
import { type UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { ConnectionPolls } from '../../../platform/realtime/connection-polls';
import type { WsConnection } from '../../../platform/realtime/ws-connection';
import { AGENTS_EXPERIMENT } from '../agents-experiment.guard';
import { CHATS_CONFIG, type ChatsConfig } from '../chats.config';
import { presentChat } from '../chats.presenter';
import { ChatsService } from '../chats.service';
import type { Chat } from '../entities/chat.entity';
import { CoderGateway, gatewayUser } from '../../../api/coder/coder-gateway';

export const CHATS_WATCH_PATH = '/api/experimental/chats/watch';

/** Coder's ChatWatchEventKind values devplane sends. */
export type ChatWatchKind = 'created' | 'deleted' | 'status_change' | 'title_change';

/** What the watch remembers of a chat between two comparisons. */
interface Seen {
  status: string;
  title: string;
  archived: boolean;
}

/**
 * The kinds of change between two snapshots of a user's chats (Coder's ChatWatchEvent kinds): a new
 * or unarchived chat is `created`, a gone or archived one `deleted`, else `status_change` and
 * `title_change` as they happen. Pure: unit-tested.
 */
export function chatWatchChanges(
  before: ReadonlyMap<string, Seen>,
  after: ReadonlyMap<string, Seen>,
): { id: string; kind: ChatWatchKind }[] {
  const changes: { id: string; kind: ChatWatchKind }[] = [];
  for (const [id, now] of after) {
    const was = before.get(id);
    if (now.archived) {
      if (was && !was.archived) changes.push({ id, kind: 'deleted' });
      continue;
    }
    if (!was || was.archived) {
      changes.push({ id, kind: 'created' });
      continue;
    }
    if (was.status !== now.status) changes.push({ id, kind: 'status_change' });
    if (was.title !== now.title) changes.push({ id, kind: 'title_change' });
  }
  for (const [id, was] of before) if (!after.has(id) && !was.archived) changes.push({ id, kind: 'deleted' });
  return changes;
}

interface Watcher {
  ownerUuid: string;
  owner: { name: string; full_name: string };
  connection: WsConnection;
  seen: Map<string, Seen> | undefined;
}

/**
 * `GET /api/experimental/chats/watch` over WebSocket (Coder's `watchChats`, reference D.4): a best-effort
 * stream of hints about the caller's own chats, one bare ChatWatchEvent `{"kind":…,"chat":Chat}` per text frame
 * (as Coder's server sends it: no `{"type":"data"}` envelope, issue 48 item 5), no initial snapshot and no replay: clients refetch the list over REST
 * for correctness. Decision: the watch compares the caller's chats every CHAT_WATCH_POLL_MS (default 1 s)
 * instead of listening to every writer, so a change on any instance (runner, API, retention) shows up
 * without each of them announcing it. A chat that is gone is sent as `{id}` only.
 */
@CoderGateway(CHATS_WATCH_PATH, { tokenScope: { type: 'chat', action: 'read' }, refuseBeforeUpgrade: true })
export class ChatsWatchGateway implements OnGatewayConnection, OnModuleDestroy, UpgradePrecheck {
  private readonly logger = new Logger(ChatsWatchGateway.name);
  private readonly polls = new ConnectionPolls();
  private readonly pollMs: number;

  constructor(
    private readonly chats: ChatsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHATS_CONFIG) chatsConfig: ChatsConfig,
  ) {
    this.pollMs = chatsConfig.watchPollMs;
  }

  onModuleDestroy(): void {
    this.polls.stopAll();
  }

  precheckUpgrade(_req: IncomingMessage, _url: URL, context?: unknown): Promise<void> {
    if (!this.config.experiments.includes(AGENTS_EXPERIMENT))
      return Promise.reject(new NotFoundError('Route not found.'));
    const principal = gatewayUser(context);
    if (!principal?.user) return Promise.reject(new NotFoundError('Route not found.'));
    return Promise.resolve();
  }

  handleConnection(_socket: unknown, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    const principal = gatewayUser(connection?.context);
    if (!connection || !principal?.user) return;
    const watcher: Watcher = {
      ownerUuid: principal.user.uuid,
      owner: { name: principal.user.name, full_name: principal.user.fullName },
      connection,
      seen: undefined,
    };
    this.polls.start(
      connection,
      this.pollMs,
      () => this.compare(watcher),
      // Best effort: a failed comparison is tried again at the next round.
      (error) => this.logger.warn({ err: error }, 'chats watch comparison failed'),
    );
  }

  private async compare(watcher: Watcher): Promise<void> {
    const chats = await this.chats.chatsOfOwner(watcher.ownerUuid);
    const now = new Map(
      chats.map((chat) => [chat.id, { status: chat.status, title: chat.title, archived: chat.archived }]),
    );
    if (watcher.seen) {
      const byId = new Map(chats.map((chat) => [chat.id, chat]));
      for (const change of chatWatchChanges(watcher.seen, now))
        this.send(watcher, change.kind, byId.get(change.id), change.id);
    }
    watcher.seen = now;
  }

  private send(watcher: Watcher, kind: ChatWatchKind, chat: Chat | undefined, id: string): void {
    const payload = chat ? presentChat(chat, watcher.owner) : { id };
    watcher.connection.send(JSON.stringify({ kind, chat: payload }));
  }
}
