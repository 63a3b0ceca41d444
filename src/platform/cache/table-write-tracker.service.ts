import { type BeforeApplicationShutdown, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type {
  AfterQueryEvent,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { DataSource } from 'typeorm';
import { ClusterBus } from '../events/cluster-bus.service';
import { bumpTables, watchedTablesWrittenBy } from './table-versions';

const TOPIC = 'tables.changed';

/**
 * Feeds the table versions of VersionedCache: a TypeORM subscriber that sees every statement the
 * app runs (repositories, query builders and raw `query()` alike). A write to a watched table bumps
 * its version at once; inside a transaction it bumps again at commit or rollback (reads taken
 * between the statement and the commit saw the old row). Committed changes go to the other
 * instances over the ClusterBus.
 */
@Injectable()
export class TableWriteTracker implements OnModuleInit, BeforeApplicationShutdown, EntitySubscriberInterface {
  private readonly logger = new Logger(TableWriteTracker.name);
  private readonly pendingInTransaction = new WeakMap<QueryRunner, Set<string>>();
  private readonly toPublish = new Set<string>();
  private flushScheduled = false;
  /** Announcements on their way: shutdown waits for them, so none meets a closed connection. */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: ClusterBus,
  ) {}

  onModuleInit(): void {
    this.dataSource.subscribers.push(this);
    this.bus.subscribe(TOPIC, (payload) => {
      const tables = (payload as { tables?: unknown }).tables;
      if (Array.isArray(tables))
        bumpTables(tables.filter((table): table is string => typeof table === 'string'));
    });
  }

  afterQuery(event: AfterQueryEvent): void {
    const tables = watchedTablesWrittenBy(event.query);
    if (tables.length === 0) return;
    bumpTables(tables);
    const runner = event.queryRunner;
    if (runner.isTransactionActive) {
      let pending = this.pendingInTransaction.get(runner);
      if (!pending) this.pendingInTransaction.set(runner, (pending = new Set()));
      for (const table of tables) pending.add(table);
    } else {
      this.publish(tables);
    }
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    this.settle(event.queryRunner, true);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    this.settle(event.queryRunner, false);
  }

  private settle(runner: QueryRunner, committed: boolean): void {
    // Nested transactions (savepoints) settle with the outermost one.
    if (runner.isTransactionActive) return;
    const pending = this.pendingInTransaction.get(runner);
    if (!pending) return;
    this.pendingInTransaction.delete(runner);
    bumpTables(pending);
    if (committed) this.publish(pending);
  }

  private publish(tables: Iterable<string>): void {
    if (!this.bus.crossInstance) return;
    for (const table of tables) this.toPublish.add(table);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.toPublish.size === 0) return;
    const batch = [...this.toPublish];
    this.toPublish.clear();
    const sent = this.bus
      .publish(TOPIC, { tables: batch })
      .catch((error: unknown) => {
        this.logger.warn({ err: error }, 'could not announce table changes to other instances');
      })
      .finally(() => this.inFlight.delete(sent));
    this.inFlight.add(sent);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.inFlight]);
  }
}
