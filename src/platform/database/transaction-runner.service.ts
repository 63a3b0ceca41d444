import { Injectable, Logger, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { EventBus } from '../events/event-bus.service';
import type { DomainEventMap, DomainEventName } from '../events/event-map';
import { type DurableEventName, EventOutbox, type OutboxEvent } from '../jobs/event-outbox.service';

/** A unit of work: its EntityManager, plus events and callbacks that run only after commit. */
export interface Transaction {
  readonly manager: EntityManager;
  /** Published after the commit, lost if the process dies first: fan-out, cache invalidation, wake-ups. */
  emit<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): void;
  /**
   * Published after the commit like `emit`, and durable: the event is written to the outbox (one
   * `events.dispatch` job per transaction) before the commit, so a crash after the commit cannot lose
   * it; listeners get it with an `idempotencyKey` and may get it again (platform/jobs/README.md).
   * For every event a workflow rule or a webhook reacts to.
   */
  emitDurable<K extends DurableEventName>(name: K, payload: DomainEventMap[K]): void;
  afterCommit(callback: () => void | Promise<void>): void;
  /** Undoes work outside the database (a moved directory, a stored blob) when the transaction fails. */
  onRollback(callback: () => void | Promise<void>): void;
}

@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger(TransactionRunner.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventBus,
    @Optional() private readonly outbox?: EventOutbox,
  ) {}

  /**
   * Runs `work` in one database transaction. Events it emits are published after the commit,
   * and dropped on rollback (durable ones are also in the outbox job written before the commit). Their listeners are awaited, so a caller's reaction (an inbox item, a
   * notification preference) is in place when `run` returns; a failing listener is logged and
   * does not fail the committed work. Inside, use only `tx.manager` (embedded PGlite would deadlock on
   * a second connection).
   */
  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const pending: (() => void | Promise<void>)[] = [];
    const undo: (() => void | Promise<void>)[] = [];
    const durable: OutboxEvent[] = [];
    let outboxJob: string | null = null;
    let delivered = true;
    const result = await this.dataSource
      .transaction(async (manager) => {
        const tx: Transaction = {
          manager,
          emit: (name, payload) =>
            pending.push(() =>
              this.events.emitAsync(name, payload).catch((error: unknown) => {
                this.logger.error({ err: error, event: name }, 'a listener of a committed event failed');
              }),
            ),
          emitDurable: (name, payload) => {
            if (!this.outbox) throw new Error('durable events need the jobs module (the outbox)');
            const index = durable.push({ name, payload } as OutboxEvent) - 1;
            pending.push(async () => {
              if (!(await this.outbox!.dispatch(outboxJob!, index, durable[index]!))) delivered = false;
            });
          },
          afterCommit: (callback) => pending.push(callback),
          onRollback: (callback) => undo.push(callback),
        };
        const value = await work(tx);
        // The outbox row: written last, in the same transaction as everything that caused the events.
        if (durable.length > 0) outboxJob = await this.outbox!.enqueue(manager, durable);
        return value;
      })
      .catch(async (error: unknown) => {
        for (const callback of undo.reverse()) {
          await Promise.resolve()
            .then(callback)
            .catch((undoError: unknown) =>
              this.logger.error({ err: undoError }, 'undoing work of a failed transaction failed'),
            );
        }
        throw error;
      });
    for (const callback of pending) await callback();
    if (outboxJob !== null && delivered) await this.outbox!.delivered(outboxJob);
    return result;
  }
}
