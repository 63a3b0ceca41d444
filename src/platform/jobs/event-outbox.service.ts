import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventBus } from '../events/event-bus.service';
import type { DomainEventMap, DomainEventName } from '../events/event-map';
import { type JobContext, JobQueue } from './job-queue.service';
import { JOBS_CONFIG, type JobsConfig } from './jobs.config';

/**
 * The events that may go through the outbox: those whose payload carries an `idempotencyKey`
 * (every subject event: `file.*`, `branch.*`, `package.*`; see platform/events/subject-events.ts).
 * Their listeners with lasting effects (the workflow engine: inbox items, webhook deliveries) act
 * once per key, so the outbox may deliver an event more than once.
 */
export type DurableEventName = {
  [K in DomainEventName]: 'idempotencyKey' extends keyof DomainEventMap[K] ? K : never;
}[DomainEventName];

/** One event of a transaction's outbox row. */
export interface OutboxEvent {
  name: DurableEventName;
  payload: DomainEventMap[DurableEventName];
}

export const EVENT_DISPATCH_JOB = 'events.dispatch';

/**
 * How long the dispatch job waits before a worker may take it. The writing process dispatches the
 * events itself right after the commit and then discards the job; the job runs only when that did
 * not happen (the process died between the commit and the dispatch, or a listener failed).
 */
export const OUTBOX_FALLBACK_DELAY_MS = 10_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The transactional outbox (issue 47.4). `tx.emitDurable(name, payload)` inside
 * `TransactionRunner.run` collects events; before the commit their list is one row of the `jobs`
 * table (`events.dispatch`), written with the transaction's EntityManager, so the events commit or
 * roll back with the write that causes them. After the commit the events are emitted in process at
 * once (their listeners awaited, as `tx.emit`'s are) and the job is discarded; if the process dies
 * first, or a listener throws, the job emits them again later (retried with backoff). Each event
 * carries an idempotency key (its own, else `outbox:<job id>:<index>`), the same on every delivery.
 */
@Injectable()
export class EventOutbox implements OnModuleInit {
  private readonly logger = new Logger(EventOutbox.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly events: EventBus,
    @Inject(JOBS_CONFIG) private readonly config: JobsConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register<{ events: OutboxEvent[] }>(EVENT_DISPATCH_JOB, (job) => this.run(job), {
      maxAttempts: 10,
      backoffMs: 1_000,
      maxBackoffMs: 600_000,
      leaseMs: 120_000,
    });
  }

  /** Writes the transaction's events as one dispatch job (call it inside the transaction); its id. */
  async enqueue(manager: EntityManager, events: OutboxEvent[]): Promise<string> {
    const id = await this.jobs.enqueue(
      manager,
      EVENT_DISPATCH_JOB,
      { events },
      { delayMs: OUTBOX_FALLBACK_DELAY_MS },
    );
    if (id === null) throw new Error('the outbox job was not written');
    return id;
  }

  /** The event as its listeners get it: with its idempotency key. */
  keyed(jobId: string, index: number, event: OutboxEvent): OutboxEvent['payload'] {
    return { ...event.payload, idempotencyKey: event.payload.idempotencyKey ?? `outbox:${jobId}:${index}` };
  }

  /** Emits one event of a committed transaction (awaited listeners); false when a listener failed. */
  async dispatch(jobId: string, index: number, event: OutboxEvent): Promise<boolean> {
    if (this.config.testOutboxDispatchDelayMs > 0) await sleep(this.config.testOutboxDispatchDelayMs);
    try {
      await this.events.emitAsync(event.name, this.keyed(jobId, index, event));
      return true;
    } catch (error) {
      this.logger.error(
        { err: error, event: event.name, jobId },
        'a listener of a committed event failed; the outbox job will emit it again',
      );
      return false;
    }
  }

  /** Every event was delivered in process: the fallback job is not needed (left alone if a worker took it). */
  async delivered(jobId: string): Promise<void> {
    await this.jobs
      .discard(jobId)
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error, jobId },
          'outbox: the delivered job could not be discarded; it will run once more',
        ),
      );
  }

  /** The fallback: the events emitted again, in order, with the same keys; a failing listener fails the run. */
  private async run(job: JobContext<{ events: OutboxEvent[] }>): Promise<void> {
    const events = job.payload.events;
    for (let index = 0; index < events.length; index++)
      await this.events.emitAsync(events[index]!.name, this.keyed(job.id, index, events[index]!));
  }
}
