import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { NotificationTemplate, type TemplateKind } from './entities/notification-template.entity';

/** Templates: read often, changed only by migrations, so cached per instance. */
@Injectable()
export class NotificationTemplatesService {
  private readonly cache = new Map<string, NotificationTemplate>();

  constructor(
    @InjectRepository(NotificationTemplate) private readonly templates: Repository<NotificationTemplate>,
  ) {}

  async find(id: string, manager?: EntityManager): Promise<NotificationTemplate | null> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const repo = manager ? manager.getRepository(NotificationTemplate) : this.templates;
    const template = await repo.findOneBy({ id });
    if (template) this.cache.set(id, template);
    return template;
  }

  /** Sorted by name in byte order (Go's sort of the SQL `ORDER BY name`). */
  async listByKind(kind: TemplateKind): Promise<NotificationTemplate[]> {
    const rows = await this.templates.find({ where: { kind } });
    return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async existingIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: { id: string }[] = await this.templates.query(
      'SELECT id FROM notification_templates WHERE id = ANY($1::uuid[])',
      [ids],
    );
    return new Set(rows.map((row) => row.id));
  }
}
