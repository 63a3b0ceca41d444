import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { EventBus } from '../events/event-bus.service';
import type { DomainEventMap, DomainEventName } from '../events/event-map';

/** A unit of work: its EntityManager, plus events and callbacks that run only after commit. */
export interface Transaction {
  readonly manager: EntityManager;
  emit<K extends DomainEventName>(name: K, payload: DomainEventMap[K]): void;
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
  ) {}

  /**
   * Runs `work` in one database transaction. Events it emits are published after the commit,
   * and dropped on rollback. Their listeners are awaited, so a caller's reaction (an inbox item, a
   * notification preference) is in place when `run` returns; a failing listener is logged and
   * does not fail the committed work. Inside, use only `tx.manager` (embedded PGlite would deadlock on
   * a second connection).
   */
  async run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const pending: (() => void | Promise<void>)[] = [];
    const undo: (() => void | Promise<void>)[] = [];
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
          afterCommit: (callback) => pending.push(callback),
          onRollback: (callback) => undo.push(callback),
        };
        return work(tx);
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
    return result;
  }
}
