import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { WorkflowEventReceipt } from '../entities/workflow-event-receipt.entity';

/** Receipts are kept this long: far past the last retry of any job that may emit an event again. */
const RECEIPT_RETENTION_DAYS = 30;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * `workflow_event_receipts` (`WorkflowEventReceipt`): the idempotency keys of events the engine has acted on
 * (a retried push job emits its branch events again with the same keys; the engine queues their webhooks once).
 */
@Injectable()
export class WorkflowEventReceiptsRepository {
  private prunedAt = 0;

  constructor(private readonly dataSource: DataSource) {}

  seen(key: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    return manager.getRepository(WorkflowEventReceipt).existsBy({ key });
  }

  /** Records the key in the caller's transaction; false when it was recorded before (act on nothing). */
  async claim(manager: EntityManager, key: string): Promise<boolean> {
    if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      await manager
        .createQueryBuilder()
        .delete()
        .from(WorkflowEventReceipt)
        .where('created_at < now() - make_interval(days => :days)', { days: RECEIPT_RETENTION_DAYS })
        .execute();
    }
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(WorkflowEventReceipt)
      .values({ key })
      .orIgnore()
      .returning('key')
      .execute();
    return (inserted.raw as unknown[]).length > 0;
  }
}
