import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import { JobQueue } from '../../../platform/jobs/job-queue.service';
import { CODER_NOT_FOUND } from '../../../api/coder/coder-error.renderer';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { IdentityDirectory } from '../../identity/identity-directory.service';
import { RealtimeHub } from '../../../platform/realtime/realtime-hub.service';
import { type RealtimeSubject, realtimeSubject } from '../../../platform/realtime/realtime-subjects';
import type { TemplateAction } from '../entities/notification-template.entity';
import { fallbackIcon } from '../template-ids';
import type { InboxFilters } from './inbox-query';
import { type InboxRow, InboxRepository } from './inbox.repository';

/** Realtime hub subject of a user's new inbox items (payload: InboxCreatedEvent). */
export function inboxSubject(userUuid: string): RealtimeSubject<InboxCreatedEvent> {
  return realtimeSubject('inbox', userUuid);
}

declare module '../../../platform/realtime/realtime-subjects' {
  interface RealtimeSubjects {
    /** `inbox:<user uuid>`: the user's new inbox items. */
    inbox: InboxCreatedEvent;
  }
}
export const INBOX_PAGE_SIZE = 25;

/** The durable job that writes a mark-all-as-read watermark on the items under it (payload: the user id). */
export const INBOX_READ_ALL_JOB = 'notifications.inbox-read-all';

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

function present(row: InboxRow, userUuid: string): InboxNotificationView {
  return {
    id: row.id,
    user_id: userUuid,
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
export class InboxService implements OnModuleInit {
  private readonly logger = new Logger(InboxService.name);

  constructor(
    private readonly rows: InboxRepository,
    private readonly hub: RealtimeHub,
    private readonly directory: IdentityDirectory,
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobQueue,
  ) {}

  onModuleInit(): void {
    this.jobs.register<{ userId: string }>(
      INBOX_READ_ALL_JOB,
      async (job) => {
        // Bounded statements: a 100,000-item inbox is 20 short updates, not one long one.
        while ((await this.rows.applyWatermarkBatch(job.payload.userId)) > 0) {
          if (job.signal.aborted) throw new Error('aborted');
        }
        await this.rows.recount(job.payload.userId);
      },
      { maxAttempts: 10, backoffMs: 1_000, maxBackoffMs: 600_000 },
    );
  }

  /** The items with their recipients' uuids (items of an account that is gone are dropped). */
  private async present(rows: InboxRow[]): Promise<InboxNotificationView[]> {
    if (rows.length === 0) return [];
    const recipients = await this.directory.namesByIds(rows.map((row) => row.user_id));
    return rows.flatMap((row) => {
      const recipient = recipients.get(row.user_id);
      return recipient ? [present(row, recipient.uuid)] : [];
    });
  }

  /** A page of the caller's inbox and their unread count (one statement). */
  async list(
    user: { id: string; uuid: string },
    filters: InboxFilters,
  ): Promise<{ notifications: InboxNotificationView[]; unreadCount: number }> {
    const { rows, unreadCount } = await this.rows.listWithUnreadCount(user.id, filters, INBOX_PAGE_SIZE);
    return { notifications: rows.map((row) => present(row, user.uuid)), unreadCount };
  }

  unreadCount(userId: string): Promise<number> {
    return this.rows.unreadCount(userId);
  }

  /** Unread counts by user uuid (watch fan-out knows uuids only); one query for a batch. */
  async unreadCounts(userUuids: string[]): Promise<Map<string, number>> {
    const users = [...(await this.directory.namesByUuids(userUuids)).values()];
    if (users.length === 0) return new Map();
    const counts = await this.rows.unreadCounts(users.map((user) => user.id));
    return new Map(users.map((user) => [user.uuid, counts.get(user.id) ?? 0]));
  }

  async find(id: string): Promise<InboxNotificationView | undefined> {
    const row = await this.rows.find(id);
    return row ? (await this.present([row]))[0] : undefined;
  }

  async setReadStatus(userId: string, id: string, read: boolean): Promise<InboxNotificationView> {
    const found = await this.transactions.run(async (tx) => {
      const counter = await this.rows.lockCounter(tx.manager, userId);
      if (!read && counter?.readAllBefore) {
        // An item under the mark-all-as-read watermark is read by it: to make it unread, the watermark is
        // first written on the items it covers and dropped (rare: unread right after mark-all).
        const createdAt = await this.rows.createdAtOf(tx.manager, userId, id);
        if (createdAt && createdAt <= counter.readAllBefore)
          await this.rows.applyWatermarkNow(tx.manager, userId);
      }
      return this.rows.setReadStatus(tx.manager, userId, id, read);
    });
    if (!found) throw new NotFoundError(CODER_NOT_FOUND, { code: 'INBOX_NOTIFICATION_NOT_FOUND' });
    const view = await this.find(id);
    if (!view) throw new NotFoundError(CODER_NOT_FOUND, { code: 'INBOX_NOTIFICATION_NOT_FOUND' });
    return view;
  }

  /**
   * Answers at once (issue 52.2): one single-row write moves the user's watermark to now and sets the
   * count to 0, and a durable job (same transaction) writes `read_at` on the items under it in batches.
   * Every later read honours the watermark, so the answer is true before the job ran.
   */
  async markAllRead(userId: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.rows.markAllReadWatermark(tx.manager, userId);
      await this.jobs.enqueue(
        tx.manager,
        INBOX_READ_ALL_JOB,
        { userId },
        { dedupeKey: `inbox-read-all:${userId}` },
      );
    });
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
