import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { NotificationTemplate, type TemplateKind } from './entities/notification-template.entity';

/** The `notification_templates` table (changed only by migrations). */
@Injectable()
export class NotificationTemplatesRepository {
  constructor(
    @InjectRepository(NotificationTemplate) private readonly templates: Repository<NotificationTemplate>,
  ) {}

  /** `manager`: the caller's transaction. */
  findById(id: string, manager?: EntityManager): Promise<NotificationTemplate | null> {
    const repo = manager ? manager.getRepository(NotificationTemplate) : this.templates;
    return repo.findOneBy({ id });
  }

  listByKind(kind: TemplateKind): Promise<NotificationTemplate[]> {
    return this.templates.find({ where: { kind } });
  }

  async existingIds(ids: string[]): Promise<Set<string>> {
    const rows: { id: string }[] = await this.templates.query(
      'SELECT id FROM notification_templates WHERE id = ANY($1::uuid[])',
      [ids],
    );
    return new Set(rows.map((row) => row.id));
  }
}
