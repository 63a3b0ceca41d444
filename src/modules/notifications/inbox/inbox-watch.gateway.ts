import { Logger, type OnModuleDestroy } from '@nestjs/common';
import { type OnGatewayConnection } from '@nestjs/websockets';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { RealtimeHub } from '../../../platform/realtime/realtime-hub.service';
import type { UpgradePrecheck } from '../../../platform/realtime/realtime-ports';
import { upgradedConnection } from '../../../platform/realtime/realtime-gateways.service';
import type { WsConnection } from '../../../platform/realtime/ws-connection';
import { markdownToPlaintext } from '../rendering/markdown';
import { parseInboxQuery, type WatchFilters } from './inbox-query';
import {
  inboxSubject,
  type InboxCreatedEvent,
  InboxService,
  type InboxNotificationView,
} from './inbox.service';
import { CoderGateway, gatewayUser } from '../../../api/coder/coder-gateway';

export const WATCH_PATH = '/api/v2/notifications/inbox/watch';

interface Watcher {
  connection: WsConnection;
  userId: string;
  filters: WatchFilters;
}

/**
 * GET /api/v2/notifications/inbox/watch over WebSocket, on the realtime layer
 * (src/platform/realtime): the upgrade goes through the AuthGuard like any route (every
 * credential form; bad or missing credentials upgrade and close 4401 with the reason; cookies need
 * an allowed Origin), the query is validated before the upgrade (400 with Coder's body,
 * `precheckUpgrade`), heartbeats, backpressure and revocation come with the connection. New
 * items arrive on the hub subject `inbox:<user uuid>` from every instance.
 */
@CoderGateway(WATCH_PATH, { tokenScope: { type: 'inbox_notification', action: 'read' } })
export class InboxWatchGateway implements OnGatewayConnection, OnModuleDestroy, UpgradePrecheck {
  private readonly logger = new Logger(InboxWatchGateway.name);
  /** Watchers by user uuid; one hub subscription per user with watchers here. */
  private readonly watchers = new Map<string, { set: Set<Watcher>; unsubscribe: () => void }>();
  private pending: InboxCreatedEvent[] = [];

  constructor(
    private readonly inbox: InboxService,
    private readonly hub: RealtimeHub,
  ) {}

  onModuleDestroy(): void {
    for (const entry of this.watchers.values()) entry.unsubscribe();
    this.watchers.clear();
  }

  /** Bad query values refuse the upgrade with HTTP 400 (a DomainError, rendered in Coder's shape). */
  precheckUpgrade(_req: IncomingMessage, url: URL): void {
    parseInboxQuery(url.searchParams, 'watch');
  }

  handleConnection(_socket: WebSocket, req: IncomingMessage): void {
    const connection = upgradedConnection(req);
    const principal = gatewayUser(connection?.context);
    if (!connection || !principal) {
      connection?.close(4401, 'Unauthorized');
      return;
    }
    const filters = parseInboxQuery(new URL(req.url ?? '/', 'http://localhost').searchParams, 'watch');
    const watcher: Watcher = { connection, userId: principal.user.uuid, filters };
    let entry = this.watchers.get(watcher.userId);
    if (!entry) {
      const subject = inboxSubject(watcher.userId);
      entry = {
        set: new Set(),
        unsubscribe: this.hub.subscribe(subject, (event) => this.enqueueFanOut(event)),
      };
      this.watchers.set(watcher.userId, entry);
    }
    entry.set.add(watcher);
    connection.onClose(() => {
      const current = this.watchers.get(watcher.userId);
      if (!current) return;
      current.set.delete(watcher);
      if (current.set.size === 0) {
        current.unsubscribe();
        this.watchers.delete(watcher.userId);
      }
    });
  }

  /** Local watcher count (tests and the benchmark wait on it). */
  watcherCount(): number {
    let count = 0;
    for (const entry of this.watchers.values()) count += entry.set.size;
    return count;
  }

  /**
   * Items whose event carries the item and its unread count go out at once; the others (item too
   * large to inline, or no count) are fanned out per event-loop turn with one unread-count query.
   */
  private enqueueFanOut(event: InboxCreatedEvent): void {
    if (!this.watchers.has(event.userId)) return;
    if (event.notification && event.unreadCount !== undefined) {
      // Everything is in the event: send now, no query (the common case).
      this.send(event.notification, event.unreadCount);
      return;
    }
    this.pending.push(event);
    if (this.pending.length === 1) {
      setImmediate(() => {
        const batch = this.pending.splice(0);
        void this.fanOut(batch).catch((error: unknown) =>
          this.logger.warn({ err: error }, 'inbox watch fan-out failed'),
        );
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
    const entry = this.watchers.get(notification.user_id);
    if (!entry) return;
    let markdownFrame: string | undefined;
    let plaintextFrame: string | undefined;
    for (const watcher of entry.set) {
      if (!this.matches(watcher.filters, notification)) continue;
      let frame: string;
      if (watcher.filters.format === 'plaintext') {
        plaintextFrame ??= `${JSON.stringify({
          notification: {
            ...notification,
            title: markdownToPlaintext(notification.title),
            content: markdownToPlaintext(notification.content),
          },
          unread_count: unreadCount,
        })}\n`;
        frame = plaintextFrame;
      } else {
        markdownFrame ??= `${JSON.stringify({ notification, unread_count: unreadCount })}\n`;
        frame = markdownFrame;
      }
      // A client that does not read is dropped by the connection (bounded buffer), not fed forever.
      if (!watcher.connection.send(frame) && watcher.connection.droppedAsSlow) {
        this.logger.warn({ userId: watcher.userId }, 'inbox watcher too slow, dropped');
      }
    }
  }

  private matches(filters: WatchFilters, notification: InboxNotificationView): boolean {
    if (filters.readStatus === 'read' && notification.read_at === null) return false;
    if (filters.readStatus === 'unread' && notification.read_at !== null) return false;
    if (filters.templates.length > 0 && !filters.templates.includes(notification.template_id)) return false;
    return filters.targets.every((target) => notification.targets.includes(target));
  }
}
