import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull } from 'typeorm';
import { type DeliveryStatus, Webhook, WebhookDelivery } from './webhook.entity';

/** Whose hooks: a repository's or an organization's. */
export type HookScope = { repositoryId: string } | { ownerId: string };

/** The `webhooks` and `webhook_deliveries` tables. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  private hooks(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(Webhook);
  }

  private deliveries(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(WebhookDelivery);
  }

  private where(scope: HookScope) {
    return 'repositoryId' in scope
      ? { repositoryId: scope.repositoryId }
      : { ownerId: scope.ownerId, repositoryId: IsNull() };
  }

  async page(scope: HookScope, offset: number, limit: number): Promise<{ items: Webhook[]; total: number }> {
    const [items, total] = await this.hooks().findAndCount({
      where: this.where(scope),
      order: { id: 'ASC' },
      skip: offset,
      take: limit,
    });
    return { items, total };
  }

  find(scope: HookScope, id: string): Promise<Webhook | null> {
    if (!/^\d{1,18}$/.test(id)) return Promise.resolve(null);
    return this.hooks().findOne({ where: { ...this.where(scope), id } });
  }

  findById(id: string): Promise<Webhook | null> {
    return this.hooks().findOne({ where: { id } });
  }

  insert(row: Partial<Webhook>): Promise<Webhook> {
    return this.hooks().save(this.hooks().create(row));
  }

  async update(id: string, changes: Partial<Webhook>): Promise<void> {
    await this.hooks().update({ id }, changes);
  }

  /** The last delivery's outcome (not an edit: `updated_at` stays). */
  async setLastStatus(id: string, lastStatus: string): Promise<void> {
    await this.hooks()
      .createQueryBuilder()
      .update(Webhook)
      .set({ lastStatus, updatedAt: () => 'updated_at' })
      .where('id = :id', { id })
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.hooks().delete({ id });
  }

  /** The active hooks an event of this repository reaches: its own, then its owner's (Gitea's order). */
  activeFor(repositoryId: string, ownerId: string): Promise<Webhook[]> {
    return this.hooks()
      .createQueryBuilder('hook')
      .where('hook.active = true')
      .andWhere(
        '(hook.repository_id = :repositoryId OR (hook.owner_id = :ownerId AND hook.repository_id IS NULL))',
        { repositoryId, ownerId },
      )
      .orderBy('hook.repository_id IS NULL', 'ASC')
      .addOrderBy('hook.id', 'ASC')
      .getMany();
  }

  /**
   * Inserts a delivery unless this hook already has one for the key (the listener ran twice for one
   * event); its id when inserted, else null.
   */
  async insertDelivery(manager: EntityManager, row: Partial<WebhookDelivery>): Promise<string | null> {
    const result = await this.deliveries(manager)
      .createQueryBuilder()
      .insert()
      .into(WebhookDelivery)
      .values(row)
      .orIgnore()
      .returning(['id'])
      .execute();
    const inserted = result.raw as { id: string }[];
    return inserted[0]?.id ?? null;
  }

  findDelivery(id: string): Promise<WebhookDelivery | null> {
    return this.deliveries().findOne({ where: { id }, relations: { hook: true } });
  }

  async recordAttempt(
    id: string,
    outcome: {
      status: DeliveryStatus;
      attempts: number;
      responseStatus: number | null;
      responseBody: string;
    },
  ): Promise<void> {
    await this.deliveries().update(
      { id },
      { ...outcome, deliveredAt: outcome.status === 'pending' ? null : new Date() },
    );
  }

  /** The deliveries of a hook, newest first (tests and the README's hook task list). */
  deliveriesOf(hookId: string, limit = 50): Promise<WebhookDelivery[]> {
    return this.deliveries().find({ where: { hookId }, order: { id: 'DESC' }, take: limit });
  }
}
