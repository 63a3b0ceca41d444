import { Injectable } from '@nestjs/common';
import { BadRequestError } from '../../platform/errors/domain-error';
import { NotificationPreferencesRepository } from './notification-preferences.repository';
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
    private readonly preferences: NotificationPreferencesRepository,
    private readonly templates: NotificationTemplatesService,
  ) {}

  async list(userId: string): Promise<NotificationPreferenceView[]> {
    const rows = await this.preferences.listOf(userId);
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
      await this.preferences.upsert(
        userId,
        ids,
        ids.map((id) => entries.get(id)),
      );
    }
    return this.list(userId);
  }
}
