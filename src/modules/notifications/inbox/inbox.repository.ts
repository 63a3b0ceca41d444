import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { TemplateAction } from '../entities/notification-template.entity';
import { resultRows } from '../../../platform/database/result-rows';
import type { InboxFilters } from './inbox-query';

export interface InboxRow {
  id: string;
  /** The recipient's numeric account id. */
  user_id: string;
  template_id: string;
  targets: string[] | null;
  title: string;
  content: string;
  icon: string;
  actions: TemplateAction[] | null;
  read_at: Date | null;
  created_at: Date;
}

/**
 * An item is read when `read_at` is set or it was created at or before the user's mark-all-as-read
 * watermark (`inbox_counters.read_all_before`, written on by a job): reads honour the watermark, showing
 * it as `read_at` until the job wrote it.
 */
const READ_AT = `COALESCE(i.read_at, CASE WHEN i.created_at <= m.read_all_before THEN m.read_all_before END)`;
const IS_UNREAD = `(i.read_at IS NULL AND (m.read_all_before IS NULL OR i.created_at > m.read_all_before))`;
const SELECT = `SELECT i.id, i.user_id::text AS user_id, i.template_id, i.targets, i.title, i.content, i.icon, i.actions,
                         ${READ_AT} AS read_at, i.created_at
                    FROM inbox_notifications i LEFT JOIN inbox_counters m ON m.user_id = i.user_id`;

/** Rows applied per statement by the mark-all-as-read job. */
const READ_ALL_BATCH = 5_000;

/** The `inbox_notifications` table (recipients by numeric account id; their uuids come from identity's directory). */
@Injectable()
export class InboxRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A page of a user's items, newest first, after the cursor item when it is theirs, and the user's
   * unread count, read in one statement (one snapshot, one round trip): the count row is always
   * there, joined to the page's rows when there are any.
   */
  async listWithUnreadCount(
    userId: string,
    filters: InboxFilters,
    pageSize: number,
  ): Promise<{ rows: InboxRow[]; unreadCount: number }> {
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
    if (filters.readStatus === 'read') where.push(`NOT ${IS_UNREAD}`);
    if (filters.readStatus === 'unread') where.push(IS_UNREAD);
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
    const joined: (Omit<InboxRow, 'id'> & { id: string | null; unread_count: number })[] =
      await this.dataSource.query(
        `SELECT u.unread_count, p.*
           FROM (SELECT COALESCE((SELECT unread FROM inbox_counters WHERE user_id = $1), 0) AS unread_count) u
           LEFT JOIN LATERAL (${SELECT} WHERE ${where.join(' AND ')}
                               ORDER BY i.created_at DESC, i.id DESC LIMIT ${pageSize}) p ON true
          ORDER BY p.created_at DESC, p.id DESC`,
        params,
      );
    const rows = joined
      .filter((row) => row.id !== null)
      .map(({ unread_count: _count, ...row }) => row as InboxRow);
    return { rows, unreadCount: Number(joined[0]?.unread_count ?? 0) };
  }

  /** The maintained unread count (inbox_counters; kept by triggers, no count over the items). */
  async unreadCount(userId: string): Promise<number> {
    const rows: { unread: number }[] = await this.dataSource.query(
      'SELECT unread FROM inbox_counters WHERE user_id = $1',
      [userId],
    );
    return Number(rows[0]?.unread ?? 0);
  }

  /** Unread counts by numeric user id (users without a counter are absent); one query for a batch. */
  async unreadCounts(userIds: string[]): Promise<Map<string, number>> {
    const rows: { user_id: string; unread: number }[] = await this.dataSource.query(
      `SELECT user_id::text AS user_id, unread FROM inbox_counters WHERE user_id = ANY($1::bigint[])`,
      [userIds],
    );
    return new Map(rows.map((row) => [row.user_id, Number(row.unread)]));
  }

  async find(id: string): Promise<InboxRow | undefined> {
    const rows: InboxRow[] = await this.dataSource.query(`${SELECT} WHERE i.id = $1`, [id]);
    return rows[0];
  }

  /** The user's counter row, locked until the transaction ends (null when the user has no items yet). */
  async lockCounter(manager: EntityManager, userId: string): Promise<{ readAllBefore: Date | null } | null> {
    const rows: { read_all_before: Date | null }[] = await manager.query(
      'SELECT read_all_before FROM inbox_counters WHERE user_id = $1 FOR UPDATE',
      [userId],
    );
    return rows[0] ? { readAllBefore: rows[0].read_all_before } : null;
  }

  /** The creation time of an item of the user (null when the user has no such item). */
  async createdAtOf(manager: EntityManager, userId: string, id: string): Promise<Date | null> {
    const rows: { created_at: Date }[] = await manager.query(
      'SELECT created_at FROM inbox_notifications WHERE id = $1 AND user_id = $2',
      [id, userId],
    );
    return rows[0]?.created_at ?? null;
  }

  /**
   * Writes the watermark on every item under it at once and drops it (an item under the watermark is to
   * become unread: the watermark can no longer stand for it). Runs with the counter row locked.
   */
  async applyWatermarkNow(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(
      `UPDATE inbox_notifications i SET read_at = m.read_all_before FROM inbox_counters m
        WHERE m.user_id = $1 AND i.user_id = $1 AND i.read_at IS NULL AND i.created_at <= m.read_all_before`,
      [userId],
    );
    await manager.query('UPDATE inbox_counters SET read_all_before = NULL WHERE user_id = $1', [userId]);
  }

  /** Sets an item of the user read or unread; false when the user has no such item. */
  async setReadStatus(manager: EntityManager, userId: string, id: string, read: boolean): Promise<boolean> {
    const updated = resultRows<{ id: string }>(
      await manager.query(
        `UPDATE inbox_notifications SET read_at = CASE WHEN $3::boolean THEN now() ELSE NULL END
          WHERE id = $1 AND user_id = $2 RETURNING id`,
        [id, userId, read],
      ),
    );
    return updated.length > 0;
  }

  /**
   * Mark all as read, at once: the watermark moves to now (every item created up to now is read for every
   * later read) and the count is 0, in one single-row statement; the caller enqueues the job that writes
   * `read_at` on the items under it. `clock_timestamp()` is taken after the row lock is held.
   */
  async markAllReadWatermark(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(
      `INSERT INTO inbox_counters AS c (user_id, unread, read_all_before) VALUES ($1, 0, clock_timestamp())
       ON CONFLICT (user_id) DO UPDATE SET unread = 0, read_all_before = clock_timestamp()`,
      [userId],
    );
  }

  /**
   * One batch of the mark-all-as-read job: writes the watermark as `read_at` on up to READ_ALL_BATCH
   * items under it (they are read already; the counters do not move). Returns how many.
   */
  async applyWatermarkBatch(userId: string): Promise<number> {
    const rows = resultRows<{ id: string }>(
      await this.dataSource.query(
        `UPDATE inbox_notifications i SET read_at = m.read_all_before FROM inbox_counters m
          WHERE m.user_id = $1 AND i.id IN (
                SELECT u.id FROM inbox_notifications u, inbox_counters w
                 WHERE w.user_id = $1 AND u.user_id = $1 AND u.read_at IS NULL AND u.created_at <= w.read_all_before
                 LIMIT ${READ_ALL_BATCH})
          RETURNING i.id`,
        [userId],
      ),
    );
    return rows.length;
  }

  /**
   * The count again from the items (once the watermark is written on them: the unread rows of the partial
   * index), correcting any drift of writes that raced the watermark.
   */
  async recount(userId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE inbox_counters m SET unread = (
         SELECT count(*) FROM inbox_notifications i
          WHERE i.user_id = $1 AND i.read_at IS NULL
            AND (m.read_all_before IS NULL OR i.created_at > m.read_all_before))
        WHERE m.user_id = $1`,
      [userId],
    );
  }
}
