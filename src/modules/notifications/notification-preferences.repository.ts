import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

/** The `notification_preferences` table: a user's explicit choices per template. */
@Injectable()
export class NotificationPreferencesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A user's stored rows, by template id. */
  listOf(userId: string): Promise<{ template_id: string; disabled: boolean; updated_at: Date }[]> {
    return this.dataSource.query(
      'SELECT template_id, disabled, updated_at FROM notification_preferences WHERE user_id = $1 ORDER BY template_id',
      [userId],
    );
  }

  /** Upserts the entries in one statement; templates not named stay untouched. */
  async upsert(userId: string, templateIds: string[], disabled: (boolean | undefined)[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO notification_preferences (user_id, template_id, disabled, created_at, updated_at)
       SELECT $1, t.id, t.disabled, now(), now() FROM unnest($2::uuid[], $3::boolean[]) AS t(id, disabled)
       ON CONFLICT (user_id, template_id) DO UPDATE SET disabled = EXCLUDED.disabled, updated_at = now()`,
      [userId, templateIds, disabled],
    );
  }

  /** Turns a template back on for a user who had a stored row for it. */
  async enable(userId: string, templateId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notification_preferences SET disabled = false, updated_at = now() WHERE user_id = $1 AND template_id = $2`,
      [userId, templateId],
    );
  }
}
