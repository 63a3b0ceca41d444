import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection, type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import type { WebSocket, WebSocketServer } from 'ws';
import { renderCoderError } from '../../../api/coder/coder-error.renderer';
import type { AppConfig } from '../../../platform/config/app-config';
import { DomainError, type AnyDomainError, UnauthenticatedError } from '../../../platform/errors/domain-error';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import { CredentialResolver } from '../../auth/credential-resolver.service';
import type { Principal } from '../../auth/principal';
import { markdownToPlaintext } from '../rendering/markdown';
import { parseInboxQuery, type WatchFilters } from './inbox-query';
import { INBOX_CREATED_TOPIC, type InboxCreatedEvent, InboxService, type InboxNotificationView } from './inbox.service';

export const WATCH_PATH = '/api/v2/notifications/inbox/watch';
const MAX_BUFFERED = 1024 * 1024;
const HEARTBEAT_MS = 15_000;

interface Watcher {
  socket: WebSocket;
  userId: string;
  filters: WatchFilters;
  alive: boolean;
}

interface UpgradeState {
  principal?: Principal;
  filters?: WatchFilters;
  authError?: string;
}

const STATE = Symbol('devplane:inbox-watch');

function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (!name || name in cookies) continue;
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      cookies[name] = decodeURIComponent(value);
    } catch {
      cookies[name] = value;
    }
  }
  return cookies;
}

/** WebSocket close reasons are limited to 123 bytes. */
function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

/**
 * GET /api/v2/notifications/inbox/watch over WebSocket. The upgrade is authenticated with the
 * same CredentialResolver as HTTP (every credential form); the query is validated before the
 * upgrade (400 with Coder's body). A bad credential upgrades and then closes with 4401 and the
 * reason. New items reach watchers of every instance through the cluster bus.
 */
@WebSocketGateway({ path: WATCH_PATH })
export class InboxWatchGateway implements OnGatewayInit, OnGatewayConnection, OnModuleDestroy {
  private readonly logger = new Logger(InboxWatchGateway.name);
  private readonly watchers = new Map<string, Set<Watcher>>();
  private pending: InboxCreatedEvent[] = [];
  private unsubscribe: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly credentials: CredentialResolver,
    private readonly inbox: InboxService,
    private readonly cluster: ClusterBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  afterInit(server: WebSocketServer): void {
    (server.options as { verifyClient?: unknown }).verifyClient = (
      info: { req: IncomingMessage },
      callback: (ok: boolean, code?: number, message?: string, headers?: Record<string, string>) => void,
    ) => {
      void this.verify(info.req).then(
        (refusal) => (refusal ? callback(false, refusal.status, refusal.body, refusal.headers) : callback(true)),
        (error: unknown) => {
          this.logger.error({ err: error }, 'inbox watch upgrade failed');
          callback(false, 500);
        },
      );
    };
    this.unsubscribe = this.cluster.subscribe(INBOX_CREATED_TOPIC, (payload) => this.enqueueFanOut(payload as InboxCreatedEvent));
    this.heartbeat = setInterval(() => this.ping(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    clearInterval(this.heartbeat);
    for (const set of this.watchers.values()) {
      for (const watcher of set) watcher.socket.close(1001, 'server shutting down');
    }
    this.watchers.clear();
  }

  /** Returns a refusal (HTTP status + body) or undefined to accept the upgrade. */
  private async verify(req: IncomingMessage): Promise<{ status: number; body: string; headers: Record<string, string> } | undefined> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const query: Record<string, string> = {};
    for (const [key, value] of url.searchParams) if (!(key in query)) query[key] = value;
    const shim = {
      headers: req.headers,
      cookies: parseCookies(req.headers.cookie),
      query,
      ip: req.socket.remoteAddress ?? '',
    } as unknown as Request;
    const response = { setHeader: () => undefined } as unknown as Response;
    const state: UpgradeState = {};
    (req as unknown as Record<symbol, UpgradeState>)[STATE] = state;
    try {
      const principal = await this.credentials.resolve(shim, response);
      if (!principal) throw new UnauthenticatedError('missing', 'Authentication required.');
      state.principal = principal;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const rendered = renderCoderError(error as AnyDomainError, { req: shim, config: this.config, callerIsAdmin: false });
      const body = rendered.body as { message?: string; detail?: string };
      state.authError = body.detail || body.message || 'Unauthorized';
      return undefined;
    }
    try {
      state.filters = parseInboxQuery(url.searchParams, 'watch');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const rendered = renderCoderError(error as AnyDomainError, { req: shim, config: this.config, callerIsAdmin: false });
      return {
        status: rendered.status,
        body: JSON.stringify(rendered.body),
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      };
    }
    return undefined;
  }

  handleConnection(socket: WebSocket, req: IncomingMessage): void {
    const state = (req as unknown as Record<symbol, UpgradeState | undefined>)[STATE];
    if (!state?.principal || !state.filters) {
      socket.close(4401, closeReason(state?.authError ?? 'Unauthorized'));
      return;
    }
    const watcher: Watcher = { socket, userId: state.principal.user.uuid, filters: state.filters, alive: true };
    let set = this.watchers.get(watcher.userId);
    if (!set) this.watchers.set(watcher.userId, (set = new Set()));
    set.add(watcher);
    socket.on('pong', () => {
      watcher.alive = true;
    });
    socket.on('close', () => {
      const current = this.watchers.get(watcher.userId);
      current?.delete(watcher);
      if (current && current.size === 0) this.watchers.delete(watcher.userId);
    });
    socket.on('error', () => socket.terminate());
  }

  /** Local watcher count (tests and the benchmark wait on it). */
  watcherCount(): number {
    let count = 0;
    for (const set of this.watchers.values()) count += set.size;
    return count;
  }

  /** Events of one event-loop turn are fanned out together: one unread-count query per batch. */
  private enqueueFanOut(event: InboxCreatedEvent): void {
    if (!this.watchers.has(event.userId)) return;
    this.pending.push(event);
    if (this.pending.length === 1) {
      setImmediate(() => {
        const batch = this.pending.splice(0);
        void this.fanOut(batch).catch((error: unknown) => this.logger.warn({ err: error }, 'inbox watch fan-out failed'));
      });
    }
  }

  private async fanOut(events: InboxCreatedEvent[]): Promise<void> {
    const items: InboxNotificationView[] = [];
    for (const event of events) {
      if (!this.watchers.has(event.userId)) continue;
      const notification = event.notification ?? (await this.inbox.find(event.notificationId));
      if (notification) items.push(notification);
    }
    if (items.length === 0) return;
    const counts = await this.inbox.unreadCounts([...new Set(items.map((item) => item.user_id))]);
    // Items of one batch were created in order and unread: each frame carries the count as of its item.
    const frames: [InboxNotificationView, number][] = [];
    const later = new Map<string, number>();
    for (let i = items.length - 1; i >= 0; i -= 1) {
      const item = items[i]!;
      const after = later.get(item.user_id) ?? 0;
      frames.unshift([item, Math.max(0, (counts.get(item.user_id) ?? 0) - after)]);
      later.set(item.user_id, after + 1);
    }
    for (const [item, count] of frames) this.send(item, count);
  }

  private send(notification: InboxNotificationView, unreadCount: number): void {
    const set = this.watchers.get(notification.user_id);
    if (!set) return;
    let markdownFrame: string | undefined;
    let plaintextFrame: string | undefined;
    for (const watcher of set) {
      if (!this.matches(watcher.filters, notification)) continue;
      if (watcher.socket.readyState !== watcher.socket.OPEN) continue;
      let frame: string;
      if (watcher.filters.format === 'plaintext') {
        plaintextFrame ??= `${JSON.stringify({
          notification: { ...notification, title: markdownToPlaintext(notification.title), content: markdownToPlaintext(notification.content) },
          unread_count: unreadCount,
        })}\n`;
        frame = plaintextFrame;
      } else {
        markdownFrame ??= `${JSON.stringify({ notification, unread_count: unreadCount })}\n`;
        frame = markdownFrame;
      }
      if (watcher.socket.bufferedAmount > MAX_BUFFERED) {
        this.logger.warn({ userId: watcher.userId }, 'inbox watcher too slow, frame dropped');
        continue;
      }
      watcher.socket.send(frame);
    }
  }

  private matches(filters: WatchFilters, notification: InboxNotificationView): boolean {
    if (filters.readStatus === 'read' && notification.read_at === null) return false;
    if (filters.readStatus === 'unread' && notification.read_at !== null) return false;
    if (filters.templates.length > 0 && !filters.templates.includes(notification.template_id)) return false;
    return filters.targets.every((target) => notification.targets.includes(target));
  }

  private ping(): void {
    for (const set of this.watchers.values()) {
      for (const watcher of set) {
        if (!watcher.alive) {
          watcher.socket.terminate();
          continue;
        }
        watcher.alive = false;
        watcher.socket.ping();
      }
    }
  }
}
