import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/** The columns of a message to queue (and, for an inbox row, its item rendered). */
export interface QueueRowColumns {
  id: string;
  templateId: string;
  userId: string;
  method: string;
  createdBy: string;
  /** JSON text. */
  payload: string;
  /** PostgreSQL array literal of the target uuids. */
  targets: string;
  dedupeHash: string;
  enabledByDefault: boolean;
  inboxItem: { title: string; content: string; icon: string; actions: unknown[] } | null;
}

/** What became of a queued row: `sent` with `created_at` when its inbox item was written at once. */
export interface QueuedOutcome {
  id: string;
  status: string;
  created_at: Date | null;
  unread_before: string;
}

/** A recipient row (an individual user). */
/**
 * Writes of `notification_messages` (the enqueuer's and the listeners' side of the queue). Recipients
 * come from identity's directory; queries here take their user ids.
 */
@Injectable()
export class NotificationMessagesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Inserts the rows in one statement, with the inbox items of inbox rows (unless notifications are
   * paused: `pauseKey` = `pausedValue`; then every row waits for the dispatcher). Rows are skipped
   * when the user turned the template off (or left a default-off template off) and for a duplicate
   * of the same day (the unique dedupe hash).
   */
  insertQueued(
    manager: EntityManager | undefined,
    rows: QueueRowColumns[],
    pause: { key: string; pausedValue: string },
  ): Promise<QueuedOutcome[]> {
    const column = <T>(value: (row: QueueRowColumns) => T) => rows.map(value);
    return (manager ?? this.dataSource.manager).query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[],
                              $8::text[], $9::boolean[], $10::text[], $11::text[], $12::text[], $13::text[])
           AS m(id, template_id, user_id, method, created_by, payload, targets, dedupe_hash, enabled_by_default,
                title, content, icon, actions)
       ), settings AS (
         SELECT EXISTS (SELECT 1 FROM site_configs WHERE key = $14 AND value = $15) AS paused
       ), messages AS (
         INSERT INTO notification_messages (id, template_id, user_id, method, status, attempt_count, created_by, payload,
                                            targets, dedupe_hash, created_at, updated_at, queued_seconds)
         SELECT m.id, m.template_id, m.user_id, m.method, d.status, CASE WHEN d.status = 'sent' THEN 1 ELSE 0 END,
                m.created_by, m.payload::jsonb, m.targets::uuid[], m.dedupe_hash, clock_timestamp(), clock_timestamp(),
                CASE WHEN d.status = 'sent' THEN 0 END
           FROM input m CROSS JOIN settings s
           CROSS JOIN LATERAL (SELECT CASE WHEN m.title IS NOT NULL AND NOT s.paused THEN 'sent' ELSE 'pending' END AS status) d
          WHERE NOT COALESCE(
            (SELECT p.disabled FROM notification_preferences p WHERE p.user_id = m.user_id AND p.template_id = m.template_id),
            NOT m.enabled_by_default)
         ON CONFLICT (dedupe_hash) DO NOTHING RETURNING id, user_id, status
       ), delivered AS (
         INSERT INTO inbox_notifications (id, user_id, template_id, targets, title, content, icon, actions, created_at)
         SELECT m.id, m.user_id, i.template_id, i.targets::uuid[], i.title, i.content, i.icon, i.actions::jsonb, now()
           FROM messages m JOIN input i ON i.id = m.id
          WHERE m.status = 'sent'
         ON CONFLICT (id) DO NOTHING RETURNING id, user_id, created_at
       ), unread AS (
         -- The statement's snapshot of the maintained counts (the triggers run after the statement): unread
         -- items before these (for the watchers' unread_count), one row per recipient, no count of items.
         SELECT user_id, unread AS n FROM inbox_counters
          WHERE user_id IN (SELECT user_id FROM delivered)
       )
       SELECT m.id, m.status, d.created_at, COALESCE(u.n, 0) AS unread_before
         FROM messages m LEFT JOIN delivered d ON d.id = m.id LEFT JOIN unread u ON u.user_id = d.user_id`,
      [
        column((row) => row.id),
        column((row) => row.templateId),
        column((row) => row.userId),
        column((row) => row.method),
        column((row) => row.createdBy),
        column((row) => row.payload),
        column((row) => row.targets),
        column((row) => row.dedupeHash),
        column((row) => row.enabledByDefault),
        column((row) => row.inboxItem?.title ?? null),
        column((row) => row.inboxItem?.content ?? null),
        column((row) => row.inboxItem?.icon ?? null),
        column((row) => (row.inboxItem ? JSON.stringify(row.inboxItem.actions) : null)),
        pause.key,
        pause.pausedValue,
      ],
    );
  }

  /** Drops the undelivered messages of a deleted user. */
  async inhibitPendingOf(userId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notification_messages SET status = 'inhibited', status_reason = 'user deleted', updated_at = now(),
              leased_until = NULL, leased_by = NULL
        WHERE user_id = $1 AND status IN ('pending', 'temporary_failure')`,
      [userId],
    );
  }

  /** Whether one of these users receives the template (their preference, else the template's default). */
  async anyReceives(templateId: string, userIds: string[]): Promise<boolean> {
    if (userIds.length === 0) return false;
    const recipients: unknown[] = await this.dataSource.query(
      `SELECT u.id FROM unnest($1::bigint[]) AS u(id)
         JOIN notification_templates t ON t.id = $2
         LEFT JOIN notification_preferences p ON p.user_id = u.id AND p.template_id = t.id
        WHERE NOT COALESCE(p.disabled, NOT t.enabled_by_default)
        LIMIT 1`,
      [userIds, templateId],
    );
    return recipients.length > 0;
  }
}
