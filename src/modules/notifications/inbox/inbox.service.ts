import { Injectable, Logger } from '@nestjs/common';
import { CODER_NOT_FOUND } from '../../../api/coder/coder-error.renderer';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { RealtimeHub } from '../../../platform/realtime/realtime-hub.service';
import type { TemplateAction } from '../entities/notification-template.entity';
import { fallbackIcon } from '../template-ids';
import type { InboxFilters } from './inbox-query';
import { type InboxRow, InboxRepository } from './inbox.repository';

/** Realtime hub subject of a user's new inbox items (payload: InboxCreatedEvent). */
export function inboxSubject(userUuid: string): string {
  return `inbox:${userUuid}`;
}
export const INBOX_PAGE_SIZE = 25;

/** Wire shape (codersdk.InboxNotification). */
export interface InboxNotificationView {
  id: string;
  user_id: string;
  template_id: string;
  targets: string[];
  title: string;
  content: string;
  icon: string;
  actions: TemplateAction[];
  read_at: string | null;
  created_at: string;
}

/**
 * Cluster payload of a new inbox item: the ids, plus the item itself when it is small enough for
 * NOTIFY (8000 bytes); otherwise the receiver loads it by id.
 */
export interface InboxCreatedEvent {
  notificationId: string;
  /** The recipient's uuid. */
  userId: string;
  notification?: InboxNotificationView;
  /** The recipient's unread count as of this item, when the creator knew it (saves the watchers a query). */
  unreadCount?: number;
}

const MAX_INLINE_BYTES = 6000;

function present(row: InboxRow): InboxNotificationView {
  return {
    id: row.id,
    user_id: row.user_uuid,
    template_id: row.template_id,
    targets: row.targets ?? [],
    title: row.title,
    content: row.content,
    icon: row.icon || fallbackIcon(row.template_id),
    actions: row.actions ?? [],
    read_at: row.read_at ? new Date(row.read_at).toISOString() : null,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** The per-user inbox: list with filters and keyset paging, read status, unread count, fan-out. */
@Injectable()
export class InboxService {
  private readonly logger = new Logger(InboxService.name);

  constructor(
    private readonly rows: InboxRepository,
    private readonly hub: RealtimeHub,
  ) {}

  async list(userId: string, filters: InboxFilters): Promise<InboxNotificationView[]> {
    return (await this.rows.list(userId, filters, INBOX_PAGE_SIZE)).map(present);
  }

  unreadCount(userId: string): Promise<number> {
    return this.rows.unreadCount(userId);
  }

  /** Unread counts by user uuid (watch fan-out knows uuids only); one query for a batch. */
  unreadCounts(userUuids: string[]): Promise<Map<string, number>> {
    return this.rows.unreadCounts(userUuids);
  }

  async find(id: string): Promise<InboxNotificationView | undefined> {
    const row = await this.rows.find(id);
    return row ? present(row) : undefined;
  }

  async setReadStatus(userId: string, id: string, read: boolean): Promise<InboxNotificationView> {
    if (!(await this.rows.setReadStatus(userId, id, read)))
      throw new NotFoundError(CODER_NOT_FOUND, { code: 'INBOX_NOTIFICATION_NOT_FOUND' });
    const view = await this.find(id);
    if (!view) throw new NotFoundError(CODER_NOT_FOUND, { code: 'INBOX_NOTIFICATION_NOT_FOUND' });
    return view;
  }

  async markAllRead(userId: string): Promise<void> {
    await this.rows.markAllRead(userId);
  }

  /** Tells watchers on every instance about a new item. */
  /**
   * Announces the items one statement has just written. `unreadBefore` is the recipient's unread
   * count in that statement's snapshot; each item's count adds the recipient's items of the batch
   * up to it. Local watchers get them synchronously; the NOTIFY for other instances is not awaited.
   */
  announceWritten(items: { notification: InboxNotificationView; unreadBefore: number }[]): void {
    const addedFor = new Map<string, number>();
    for (const { notification, unreadBefore } of items) {
      const added = (addedFor.get(notification.user_id) ?? 0) + 1;
      addedFor.set(notification.user_id, added);
      void this.announce(notification, unreadBefore + added);
    }
  }

  async announce(notification: InboxNotificationView, unreadCount?: number): Promise<void> {
    const event: InboxCreatedEvent = {
      notificationId: notification.id,
      userId: notification.user_id,
      notification,
      unreadCount,
    };
    if (Buffer.byteLength(JSON.stringify(notification)) > MAX_INLINE_BYTES) delete event.notification;
    await this.hub
      .publish(inboxSubject(notification.user_id), event)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'inbox fan-out publish failed'));
  }
}
