import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { BadRequestError } from '../../platform/errors/domain-error';
import { NotificationTemplatesService } from './notification-templates.service';

export interface NotificationPreferenceView {
  id: string;
  disabled: boolean;
  updated_at: string;
}

/** Per-user `template_disabled_map`: only explicitly stored rows are listed. */
@Injectable()
export class NotificationPreferencesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly templates: NotificationTemplatesService,
  ) {}

  async list(userId: string): Promise<NotificationPreferenceView[]> {
    const rows: { template_id: string; disabled: boolean; updated_at: Date }[] = await this.dataSource.query(
      'SELECT template_id, disabled, updated_at FROM notification_preferences WHERE user_id = $1 ORDER BY template_id',
      [userId],
    );
    return rows.map((row) => ({
      id: row.template_id,
      disabled: row.disabled,
      updated_at: new Date(row.updated_at).toISOString(),
    }));
  }

  /** Upserts the given entries in one statement; entries not named stay untouched. */
  async update(userId: string, entries: Map<string, boolean>): Promise<NotificationPreferenceView[]> {
    if (entries.size > 0) {
      const ids = [...entries.keys()];
      const existing = await this.templates.existingIds(ids);
      const unknown = ids.find((id) => !existing.has(id));
      if (unknown)
        throw new BadRequestError('Unknown notification template.', {
          code: 'UNKNOWN_TEMPLATE',
          detail: unknown,
        });
      await this.dataSource.query(
        `INSERT INTO notification_preferences (user_id, template_id, disabled, created_at, updated_at)
         SELECT $1, t.id, t.disabled, now(), now() FROM unnest($2::uuid[], $3::boolean[]) AS t(id, disabled)
         ON CONFLICT (user_id, template_id) DO UPDATE SET disabled = EXCLUDED.disabled, updated_at = now()`,
        [userId, ids, ids.map((id) => entries.get(id))],
      );
    }
    return this.list(userId);
  }
}
