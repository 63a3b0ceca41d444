import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { NotificationTemplate, TemplateKind } from './entities/notification-template.entity';
import { NotificationTemplatesRepository } from './notification-templates.repository';

/** Templates: read often, changed only by migrations, so cached per instance. */
@Injectable()
export class NotificationTemplatesService {
  private readonly cache = new Map<string, NotificationTemplate>();
  /** Loads in flight, so a burst of first uses of one template makes one query, not one each. */
  private readonly loading = new Map<string, Promise<NotificationTemplate | null>>();

  constructor(private readonly templates: NotificationTemplatesRepository) {}

  async find(id: string, manager?: EntityManager): Promise<NotificationTemplate | null> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    // A caller's transaction reads on its own connection: waiting for a load queued behind that
    // connection (one connection on embedded PGlite) would never end.
    if (manager) return this.remember(id, await this.templates.findById(id, manager));
    let load = this.loading.get(id);
    if (!load) {
      load = this.templates
        .findById(id)
        .then((template) => this.remember(id, template))
        .finally(() => this.loading.delete(id));
      this.loading.set(id, load);
    }
    return load;
  }

  private remember(id: string, template: NotificationTemplate | null): NotificationTemplate | null {
    if (template) this.cache.set(id, template);
    return template;
  }

  /** Sorted by name in byte order (Go's sort of the SQL `ORDER BY name`). */
  async listByKind(kind: TemplateKind): Promise<NotificationTemplate[]> {
    const rows = await this.templates.listByKind(kind);
    return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async existingIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    return this.templates.existingIds(ids);
  }
}
