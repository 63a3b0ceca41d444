import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CODER_NOT_FOUND } from '../../../api/coder/coder-error.renderer';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { RealtimeHub } from '../../../platform/realtime/realtime-hub.service';
import type { TemplateAction } from '../entities/notification-template.entity';
import { fallbackIcon } from '../template-ids';
import type { InboxFilters } from './inbox-query';

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

interface InboxRow {
  id: string;
  user_uuid: string;
  template_id: string;
  targets: string[] | null;
  title: string;
  content: string;
  icon: string;
  actions: TemplateAction[] | null;
  read_at: Date | null;
  created_at: Date;
}

const SELECT = `SELECT i.id, u.uuid AS user_uuid, i.template_id, i.targets, i.title, i.content, i.icon, i.actions, i.read_at, i.created_at
                  FROM inbox_notifications i JOIN users u ON u.id = i.user_id`;

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

function rowsOf<T>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}

/** The per-user inbox: list with filters and keyset paging, read status, unread count, fan-out. */
@Injectable()
export class InboxService {
  private readonly logger = new Logger(InboxService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly hub: RealtimeHub,
  ) {}

  async list(userId: string, filters: InboxFilters): Promise<InboxNotificationView[]> {
    const params: unknown[] = [userId];
    const where = ['i.user_id = $1'];
    if (filters.targets.length > 0) {
      params.push(filters.targets);
      where.push(`i.targets @> $${params.length}::uuid[]`);
    }
    if (filters.templates.length > 0) {
      params.push(filters.templates);
      where.push(`i.template_id = ANY($${params.length}::uuid[])`);
    }
    if (filters.readStatus === 'read') where.push('i.read_at IS NOT NULL');
    if (filters.readStatus === 'unread') where.push('i.read_at IS NULL');
    if (filters.startingBefore) {
      const cursor: unknown[] = await this.dataSource.query(
        'SELECT 1 FROM inbox_notifications WHERE id = $1 AND user_id = $2',
        [filters.startingBefore, userId],
      );
      if (cursor.length > 0) {
        params.push(filters.startingBefore);
        where.push(
          `(i.created_at, i.id) < (SELECT c.created_at, c.id FROM inbox_notifications c WHERE c.id = $${params.length})`,
        );
      }
    }
    const rows: InboxRow[] = await this.dataSource.query(
      `${SELECT} WHERE ${where.join(' AND ')} ORDER BY i.created_at DESC, i.id DESC LIMIT ${INBOX_PAGE_SIZE}`,
      params,
    );
    return rows.map(present);
  }

  async unreadCount(userId: string): Promise<number> {
    const rows: { count: string }[] = await this.dataSource.query(
      'SELECT count(*) AS count FROM inbox_notifications WHERE user_id = $1 AND read_at IS NULL',
      [userId],
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** Unread counts by user uuid (watch fan-out knows uuids only); one query for a batch. */
  async unreadCounts(userUuids: string[]): Promise<Map<string, number>> {
    const rows: { uuid: string; count: string }[] = await this.dataSource.query(
      `SELECT u.uuid, (SELECT count(*) FROM inbox_notifications i WHERE i.user_id = u.id AND i.read_at IS NULL) AS count
         FROM users u WHERE u.uuid = ANY($1::uuid[])`,
      [userUuids],
    );
    return new Map(rows.map((row) => [row.uuid, Number(row.count)]));
  }

  async find(id: string): Promise<InboxNotificationView | undefined> {
    const rows: InboxRow[] = await this.dataSource.query(`${SELECT} WHERE i.id = $1`, [id]);
    return rows[0] ? present(rows[0]) : undefined;
  }

  async setReadStatus(userId: string, id: string, read: boolean): Promise<InboxNotificationView> {
    const updated = rowsOf<{ id: string }>(
      await this.dataSource.query(
        `UPDATE inbox_notifications SET read_at = CASE WHEN $3::boolean THEN now() ELSE NULL END
          WHERE id = $1 AND user_id = $2 RETURNING id`,
        [id, userId, read],
      ),
    );
    if (updated.length === 0)
      throw new NotFoundError(CODER_NOT_FOUND, { code: 'INBOX_NOTIFICATION_NOT_FOUND' });
    const view = await this.find(id);
    if (!view) throw new NotFoundError(CODER_NOT_FOUND, { code: 'INBOX_NOTIFICATION_NOT_FOUND' });
    return view;
  }

  async markAllRead(userId: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE inbox_notifications SET read_at = now() WHERE user_id = $1 AND read_at IS NULL',
      [userId],
    );
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
