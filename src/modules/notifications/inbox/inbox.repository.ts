import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
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

const SELECT = `SELECT i.id, i.user_id::text AS user_id, i.template_id, i.targets, i.title, i.content, i.icon, i.actions,
                         i.read_at, i.created_at
                    FROM inbox_notifications i`;

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
    const joined: (Omit<InboxRow, 'id'> & { id: string | null; unread_count: number })[] =
      await this.dataSource.query(
        `SELECT u.unread_count, p.*
           FROM (SELECT count(*)::int AS unread_count FROM inbox_notifications
                  WHERE user_id = $1 AND read_at IS NULL) u
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

  async unreadCount(userId: string): Promise<number> {
    const rows: { count: string }[] = await this.dataSource.query(
      'SELECT count(*) AS count FROM inbox_notifications WHERE user_id = $1 AND read_at IS NULL',
      [userId],
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** Unread counts by numeric user id (users without unread items are absent); one query for a batch. */
  async unreadCounts(userIds: string[]): Promise<Map<string, number>> {
    const rows: { user_id: string; count: string }[] = await this.dataSource.query(
      `SELECT user_id::text AS user_id, count(*) AS count FROM inbox_notifications
        WHERE user_id = ANY($1::bigint[]) AND read_at IS NULL GROUP BY user_id`,
      [userIds],
    );
    return new Map(rows.map((row) => [row.user_id, Number(row.count)]));
  }

  async find(id: string): Promise<InboxRow | undefined> {
    const rows: InboxRow[] = await this.dataSource.query(`${SELECT} WHERE i.id = $1`, [id]);
    return rows[0];
  }

  /** Sets an item of the user read or unread; false when the user has no such item. */
  async setReadStatus(userId: string, id: string, read: boolean): Promise<boolean> {
    const updated = resultRows<{ id: string }>(
      await this.dataSource.query(
        `UPDATE inbox_notifications SET read_at = CASE WHEN $3::boolean THEN now() ELSE NULL END
          WHERE id = $1 AND user_id = $2 RETURNING id`,
        [id, userId, read],
      ),
    );
    return updated.length > 0;
  }

  async markAllRead(userId: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE inbox_notifications SET read_at = now() WHERE user_id = $1 AND read_at IS NULL',
      [userId],
    );
  }
}
