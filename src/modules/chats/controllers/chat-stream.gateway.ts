import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { BadRequestError, NotFoundError } from '../../../platform/errors/domain-error';
import { upgradedConnection } from '../../../platform/realtime/realtime-gateways.service';
import { type UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { ConnectionPolls } from '../../../platform/realtime/connection-polls';
import { upgradePathParams } from '../../../platform/realtime/realtime-ws.adapter';
import type { WsConnection } from '../../../platform/realtime/ws-connection';
import { AGENTS_EXPERIMENT } from '../agents-experiment.guard';
import { CHATS_CONFIG, type ChatsConfig } from '../chats.config';
import { presentMessage } from '../chats.presenter';
import { ChatsService } from '../chats.service';
import type { Chat } from '../entities/chat.entity';
import type { MessageRow } from '../repositories/chat-messages.repository';
import { CoderGateway, requireGatewayUser } from '../../../api/coder/coder-gateway';

export const CHAT_STREAM_PATH = '/api/experimental/chats/:chat/stream';

/** Messages read per query while catching up (the snapshot and each tick). */
const PAGE = 200;

/** Coder's ChatStreamEvent, as devplane sends it (no `message_part` deltas: devplane stores whole messages). */
export type ChatStreamEvent =
  | { type: 'message'; chat_id: string; message: ReturnType<typeof presentMessage> }
  | { type: 'status'; chat_id: string; status: { status: string } }
  | { type: 'error'; chat_id: string; error: { message: string } }
  | { type: 'queue_update'; chat_id: string; queued_messages: [] };

/** What the stream remembers of the chat between two reads. */
export interface StreamState {
  lastMessageId: number;
  status: string | undefined;
  lastError: string | null | undefined;
}

/**
 * The events for what changed since `state` (pure: unit-tested): each new message, then the status when
 * it changed, then the error when the chat is in `error` with a new reason. The first call (status
 * unknown) is Coder's snapshot: messages, `queue_update` (devplane queues nothing), status, error.
 */
export function chatStreamEvents(
  state: StreamState,
  chat: Pick<Chat, 'id' | 'status' | 'lastError'>,
  messages: MessageRow[],
): ChatStreamEvent[] {
  const events: ChatStreamEvent[] = messages.map((message) => ({
    type: 'message',
    chat_id: chat.id,
    message: presentMessage(message),
  }));
  const first = state.status === undefined;
  if (first) events.push({ type: 'queue_update', chat_id: chat.id, queued_messages: [] });
  if (first || state.status !== chat.status)
    events.push({ type: 'status', chat_id: chat.id, status: { status: chat.status } });
  const error = chat.status === 'error' ? chat.lastError : null;
  if (error && (first || error !== state.lastError || state.status !== 'error'))
    events.push({ type: 'error', chat_id: chat.id, error: { message: error } });
  return events;
}

/** A non-negative integer `after_id`, else 400; absent is 0 (the whole history). */
export function parseAfterId(raw: string | null): number {
  if (raw === null || raw === '') return 0;
  if (!/^\d{1,15}$/.test(raw)) throw new BadRequestError('Invalid "after_id" query parameter.');
  return Number(raw);
}

/**
 * `GET /api/experimental/chats/{chat}/stream` over WebSocket (Coder's `watchChat` / `StreamChat`): each text
 * frame is a bare JSON array of ChatStreamEvent (a batch per frame), as Coder's server sends it and its web UI
 * parses it (no `{"type":"data"}` envelope, no ping frames; issue 48 item 5). On connect the
 * snapshot: the messages after `after_id` (oldest first), `queue_update`, `status` and, for a chat in
 * `error`, its `error`; then new messages and status changes until the client closes. Who may not read the
 * chat gets 404 and no credential 401, both before the upgrade. Decision: as the chats watch, the stream
 * re-reads the chat every CHAT_WATCH_POLL_MS (new messages by id, the status) instead of every writer
 * announcing; devplane stores whole messages, so there are no `message_part` deltas.
 */
@CoderGateway(CHAT_STREAM_PATH, { tokenScope: { type: 'chat', action: 'read' }, refuseBeforeUpgrade: true })
export class ChatStreamGateway implements OnGatewayConnection, OnModuleDestroy, UpgradePrecheck {
  private readonly logger = new Logger(ChatStreamGateway.name);
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

  async precheckUpgrade(req: IncomingMessage, url: URL, context?: unknown): Promise<void> {
    if (!this.config.experiments.includes(AGENTS_EXPERIMENT)) throw new NotFoundError('Route not found.');
    const principal = requireGatewayUser(context);
    const chat = await this.chats.requireChat(principal, upgradePathParams(req).chat ?? '');
    const afterId = parseAfterId(url.searchParams.get('after_id'));
    (req as unknown as { devplaneChatStream?: { chat: Chat; afterId: number } }).devplaneChatStream = {
      chat,
      afterId,
    };
  }

  handleConnection(_socket: unknown, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    const start = (req as unknown as { devplaneChatStream?: { chat: Chat; afterId: number } })
      .devplaneChatStream;
    if (!connection || !start) return;
    const state: StreamState = { lastMessageId: start.afterId, status: undefined, lastError: undefined };
    this.polls.start(
      connection,
      this.pollMs,
      () => this.round(start.chat.id, state, connection),
      // Best effort: a failed read is tried again at the next round.
      (error) => this.logger.warn({ err: error }, 'chat stream read failed'),
    );
  }

  /** One read: the chat's new messages and state changes, sent as one frame. */
  private async round(chatId: string, state: StreamState, connection: WsConnection): Promise<'stop' | void> {
    const chat = await this.chats.chatById(chatId);
    if (!chat) {
      connection.close(1000, 'chat deleted');
      return 'stop';
    }
    const messages: MessageRow[] = [];
    for (;;) {
      const after = messages.length ? Number(messages[messages.length - 1].id) : state.lastMessageId;
      const page = await this.chats.messagesAfter(chat, after, PAGE);
      messages.push(...page);
      if (page.length < PAGE) break;
    }
    const events = chatStreamEvents(state, chat, messages);
    if (messages.length) state.lastMessageId = Number(messages[messages.length - 1].id);
    state.status = chat.status;
    state.lastError = chat.lastError;
    if (events.length && !connection.closed) connection.send(JSON.stringify(events));
  }
}
