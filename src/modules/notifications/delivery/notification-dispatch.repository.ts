import { resultRows } from '../../../platform/database/result-rows';
import type { DataSource, QueryRunner } from 'typeorm';
import type { MessageStatus } from '../entities/notification-message.entity';
import type { MessagePayload } from './payload';

/** A message leased by a dispatch round, with the user's preference for its template. */
export interface LeasedRow {
  id: string;
  template_id: string;
  user_id: string;
  method: string;
  payload: MessagePayload;
  attempt_count: number;
  targets: string[];
  /** The user turned this template off (or left a default-off template off). */
  disabled: boolean | null;
}

/** One inbox item of a batch (the message id is the item id). */
export interface InboxItemInput {
  id: string;
  userId: string;
  templateId: string;
  targets: string[];
  title: string;
  content: string;
  icon: string;
  actions: unknown[];
}

/**
 * The `notification_messages` statements of one dispatcher (each one dispatcher has its own: with a
 * PostgreSQL server and a pool of 4 or more it keeps one pooled connection, so its statements never
 * queue behind request traffic in the pool; under 50 concurrent writers each round's statements
 * waited ~100 ms there, issue 10 item 14). Every outcome is fenced by the dispatcher's lease.
 */
export class NotificationDispatchRepository {
  private reserving: boolean;
  private reserved: QueryRunner | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly reserveConnection: boolean,
  ) {
    this.reserving = false;
  }

  /** Statements go to the reserved connection (when there is one) from now on. */
  startReserving(): void {
    this.reserving = this.reserveConnection;
  }

  /** Statements go to the pool from now on. */
  stopReserving(): void {
    this.reserving = false;
  }

  /** Gives the reserved connection back to the pool. */
  async releaseReserved(): Promise<void> {
    await this.reserved?.release().catch(() => undefined);
    this.reserved = undefined;
  }

  /** A statement of the dispatcher: on its reserved connection when it has one. */
  private async query<T = unknown>(sql: string, parameters: unknown[]): Promise<T> {
    if (!this.reserving) return this.dataSource.query(sql, parameters) as Promise<T>;
    if (!this.reserved || this.reserved.isReleased) {
      const runner = this.dataSource.createQueryRunner('master');
      await runner.connect();
      this.reserved = runner;
    }
    // A connection that fails is released by TypeORM itself (`isReleased`): the next statement reserves another.
    return (await this.reserved.query(sql, parameters)) as T;
  }

  /**
   * Leases up to `count` due messages with FOR UPDATE SKIP LOCKED in one autocommit statement (none
   * while the pause switch `pauseKey` = `pausedValue` is set), with each message's preference.
   */
  async lease(
    dispatcherId: string,
    options: {
      leaseSeconds: number;
      maxAttempts: number;
      count: number;
      pauseKey: string;
      pausedValue: string;
    },
  ): Promise<LeasedRow[]> {
    return resultRows<LeasedRow>(
      await this.query(
        `UPDATE notification_messages m
            SET status = 'leased', leased_by = $1, updated_at = now(),
                leased_until = now() + make_interval(secs => $2),
                status_reason = NULL,
                queued_seconds = GREATEST(0, EXTRACT(EPOCH FROM now() - m.updated_at))
          WHERE m.id IN (
            SELECT id FROM notification_messages
             WHERE (status IN ('pending', 'temporary_failure') OR (status = 'leased' AND leased_until < now()))
               AND attempt_count < $3
               AND (next_retry_after IS NULL OR next_retry_after <= now())
               AND NOT EXISTS (SELECT 1 FROM site_configs WHERE key = $5 AND value = $6)
             ORDER BY created_at
             LIMIT $4
             FOR UPDATE SKIP LOCKED)
        RETURNING m.id, m.template_id, m.user_id, m.method, m.payload, m.attempt_count, m.targets,
                  COALESCE(
                    (SELECT p.disabled FROM notification_preferences p WHERE p.user_id = m.user_id AND p.template_id = m.template_id),
                    (SELECT NOT t.enabled_by_default FROM notification_templates t WHERE t.id = m.template_id)) AS disabled`,
        [
          dispatcherId,
          options.leaseSeconds,
          options.maxAttempts,
          options.count,
          options.pauseKey,
          options.pausedValue,
        ],
      ),
    );
  }

  /**
   * Inbox items and their messages' `sent` marks for a whole batch in one statement (atomic, one
   * round trip). Returns the items written (a redelivery after a lost lease writes none) with the
   * user's unread count before the batch.
   */
  writeInbox(
    dispatcherId: string,
    items: InboxItemInput[],
  ): Promise<{ id: string; created_at: Date; unread_before: string }[]> {
    return this.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
           AS t(id, user_id, template_id, targets, title, content, icon, actions)
       ), created AS (
         INSERT INTO inbox_notifications (id, user_id, template_id, targets, title, content, icon, actions, created_at)
         SELECT id, user_id, template_id, ARRAY(SELECT jsonb_array_elements_text(targets::jsonb))::uuid[], title, content, icon,
                actions::jsonb, now()
           FROM input
         ON CONFLICT (id) DO NOTHING RETURNING id, user_id, created_at
       ), unread AS (
         -- The statement's snapshot of the maintained counts (the triggers run after the statement): unread
         -- items before this batch (for the watchers' unread_count), one row per recipient.
         SELECT user_id, unread AS n FROM inbox_counters
          WHERE user_id IN (SELECT DISTINCT user_id FROM input)
       ), marked AS (
         UPDATE notification_messages m
            SET status = 'sent', attempt_count = m.attempt_count + 1, updated_at = now(), leased_until = NULL,
                leased_by = NULL, next_retry_after = NULL, status_reason = NULL
           FROM input
          WHERE m.id = input.id AND m.leased_by = $9
          RETURNING m.id
       )
       SELECT c.id, c.created_at, COALESCE(u.n, 0) AS unread_before FROM created c LEFT JOIN unread u ON u.user_id = c.user_id`,
      [
        items.map((i) => i.id),
        items.map((i) => i.userId),
        items.map((i) => i.templateId),
        items.map((i) => JSON.stringify(i.targets)),
        items.map((i) => i.title),
        items.map((i) => i.content),
        items.map((i) => i.icon),
        items.map((i) => JSON.stringify(i.actions)),
        dispatcherId,
      ],
    );
  }

  /** Gives a leased message back untouched. */
  async release(dispatcherId: string, messageId: string): Promise<void> {
    await this.query(
      `UPDATE notification_messages
          SET status = CASE WHEN attempt_count = 0 THEN 'pending' ELSE 'temporary_failure' END,
              leased_until = NULL, leased_by = NULL, status_reason = NULL
        WHERE id = $1 AND leased_by = $2`,
      [messageId, dispatcherId],
    );
  }

  /** Counts a failed attempt and schedules the next one `delaySeconds` from now. */
  async retryLater(
    dispatcherId: string,
    messageId: string,
    reason: string,
    delaySeconds: number,
  ): Promise<void> {
    await this.query(
      `UPDATE notification_messages
          SET status = 'temporary_failure', attempt_count = attempt_count + 1, updated_at = now(), leased_until = NULL,
              leased_by = NULL, status_reason = $3, next_retry_after = now() + make_interval(secs => $4)
        WHERE id = $1 AND leased_by = $2`,
      [messageId, dispatcherId, reason, delaySeconds],
    );
  }

  /** Records a final status (`attempted`: counts an attempt; `scrub`: drops the labels and actions). */
  async finish(
    dispatcherId: string,
    messageId: string,
    outcome: { status: MessageStatus; reason: string | null; attempted: boolean; scrub: boolean },
  ): Promise<void> {
    await this.query(
      `UPDATE notification_messages
          SET status = $3, attempt_count = attempt_count + $5, updated_at = now(), leased_until = NULL,
              leased_by = NULL, next_retry_after = NULL, status_reason = $4,
              payload = CASE WHEN $6::boolean THEN payload || '{"labels": {}, "actions": []}'::jsonb ELSE payload END
        WHERE id = $1 AND leased_by = $2`,
      [messageId, dispatcherId, outcome.status, outcome.reason, outcome.attempted ? 1 : 0, outcome.scrub],
    );
  }

  /** Coder's retention: finished rows older than `retentionDays` go (on the pool). */
  async purge(retentionDays: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM notification_messages
        WHERE status IN ('sent', 'permanent_failure', 'inhibited') AND updated_at < now() - make_interval(days => $1)`,
      [retentionDays],
    );
  }
}
