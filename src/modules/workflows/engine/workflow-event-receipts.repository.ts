import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { resultRows } from '../../../platform/database/result-rows';

/** Receipts are kept this long: far past the last retry of any job that may emit an event again. */
const RECEIPT_RETENTION_DAYS = 30;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * `workflow_event_receipts`: the idempotency keys of events the engine has acted on (a retried push
 * job emits its branch events again with the same keys; the engine queues their webhooks once).
 */
@Injectable()
export class WorkflowEventReceiptsRepository {
  private prunedAt = 0;

  constructor(private readonly dataSource: DataSource) {}

  async seen(key: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows = resultRows(
      await manager.query(`SELECT 1 FROM workflow_event_receipts WHERE key = $1`, [key]),
    );
    return rows.length > 0;
  }

  /** Records the key in the caller's transaction; false when it was recorded before (act on nothing). */
  async claim(manager: EntityManager, key: string): Promise<boolean> {
    if (Date.now() - this.prunedAt > PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      await manager.query(
        `DELETE FROM workflow_event_receipts WHERE created_at < now() - make_interval(days => $1)`,
        [RECEIPT_RETENTION_DAYS],
      );
    }
    const rows = resultRows(
      await manager.query(
        `INSERT INTO workflow_event_receipts (key) VALUES ($1) ON CONFLICT (key) DO NOTHING RETURNING key`,
        [key],
      ),
    );
    return rows.length > 0;
  }
}
