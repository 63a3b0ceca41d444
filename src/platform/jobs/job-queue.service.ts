import { resultRows } from '../database/result-rows';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { ClusterBus } from '../events/cluster-bus.service';
import { wellFormed } from '../text/well-formed';
import { LeaseLoop } from './lease-loop';
import { JOBS_CONFIG, type JobsConfig } from './jobs.config';
import { PermanentJobError } from './permanent-job-error';

/** What a handler gets for one run of one job. */
export interface JobContext<P = unknown> {
  id: string;
  type: string;
  payload: P;
  /** 1 for the first run; a run whose worker died counted too. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the lease is about to expire or the process shuts down: stop and throw. */
  signal: AbortSignal;
}

export type JobHandler<P = unknown> = (job: JobContext<P>) => Promise<void>;

export interface JobTypeOptions {
  /** Runs in all (first run + retries) unless the enqueue says otherwise. Default 5. */
  maxAttempts?: number;
  /** Delay before the first retry, doubled for each further retry. Default 1 s. */
  backoffMs?: number;
  /** Cap of the retry delay. Default 1 h. */
  maxBackoffMs?: number;
  /** How long a run may take: past it the job is due again (a crashed worker's job is taken over). Default 60 s. */
  leaseMs?: number;
}

export interface EnqueueOptions {
  /** Not before this time (default: now). */
  runAt?: Date;
  /** Not before now + this many milliseconds. */
  delayMs?: number;
  maxAttempts?: number;
  /** At most one pending or running job per (type, dedupeKey): the second enqueue returns null and adds nothing. */
  dedupeKey?: string;
}

export interface QueueDepth {
  type: string;
  /** Due now, waiting for a worker. */
  ready: number;
  /** Waiting for their time (delayed or backing off before a retry). */
  scheduled: number;
  running: number;
  failed: number;
}

interface RegisteredType {
  handler: JobHandler<never>;
  maxAttempts: number;
  backoffMs: number;
  maxBackoffMs: number;
  leaseMs: number;
}

interface LeasedJob {
  id: string;
  type: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
}

const ENQUEUED_TOPIC = 'jobs.enqueued';
/** Marks a transaction's QueryRunner that enqueued jobs: the workers are woken after its commit. */
const ENQUEUED_FLAG = 'devplaneJobsEnqueued';
const ERROR_TEXT_LIMIT = 2_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Durable jobs on the `jobs` table. `enqueue(manager, …)` inserts a row with the caller's
 * EntityManager, so the job commits or rolls back with the write that causes it. Workers
 * (`register(type, handler)`) lease due rows with FOR UPDATE SKIP LOCKED in one autocommit
 * statement, so instances share the queue; a lease expires (a crashed worker's job runs again);
 * failures are retried with exponential backoff, then kept as `failed`. Woken by enqueues (after
 * the commit, in process and over the cluster bus), by retry timers, and by a fallback poll.
 */
@Injectable()
export class JobQueue
  implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy, EntitySubscriberInterface
{
  private readonly logger = new Logger(JobQueue.name);
  readonly workerId = randomUUID();
  private readonly types = new Map<string, RegisteredType>();
  private readonly running = new Map<string, { promise: Promise<void>; controller: AbortController }>();
  private started = false;
  private stopped = false;
  private readonly loop = new LeaseLoop(
    () => this.fill(),
    (error) => this.logger.error({ err: error }, 'jobs: leasing failed'),
  );
  private poller: NodeJS.Timeout | undefined;
  private housekeeper: NodeJS.Timeout | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(JOBS_CONFIG) private readonly config: JobsConfig,
    private readonly cluster: ClusterBus,
  ) {}

  onModuleInit(): void {
    // Told about every commit and rollback: a transaction that enqueued wakes the workers once it committed.
    this.dataSource.subscribers.push(this);
  }

  onApplicationBootstrap(): void {
    this.started = true;
    this.unsubscribe = this.cluster.subscribe(ENQUEUED_TOPIC, () => this.kick());
    this.poller = setInterval(() => {
      void this.expireExhausted();
      this.kick();
    }, this.config.pollIntervalMs);
    this.poller.unref();
    this.housekeeper = setInterval(() => void this.purge(), 3_600_000);
    this.housekeeper.unref();
    void this.expireExhausted();
    this.kick();
  }

  /**
   * Whether this instance still leases jobs: false once shutdown began. Nest destroys the feature modules
   * before the platform's, so leasing stops some time after `app.close()` is called, not at once.
   */
  get leasing(): boolean {
    return !this.stopped;
  }

  /** Stops leasing, then waits for the running jobs (up to JOBS_SHUTDOWN_GRACE_MS; the rest are left to lease expiry). */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poller);
    clearInterval(this.housekeeper);
    for (const timer of this.timers) clearTimeout(timer);
    this.unsubscribe?.();
    await this.loop.stop();
    const runs = [...this.running.values()];
    if (runs.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), this.config.shutdownGraceMs)),
    );
    const outcome = await Promise.race([Promise.allSettled(runs.map((r) => r.promise)), grace]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      // Aborted handlers usually end at once and record a retry while the database is still open.
      const left = [...this.running.values()];
      for (const run of left) run.controller.abort(new Error('shutting down'));
      await Promise.race([
        Promise.allSettled(left.map((r) => r.promise)),
        new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
      ]);
      if (this.running.size > 0)
        this.logger.warn(
          { running: this.running.size },
          'shutdown: jobs still running are left to lease expiry',
        );
    }
  }

  /** Declares the handler of a job type on this instance (call it in a provider's constructor or onModuleInit). */
  register<P>(type: string, handler: JobHandler<P>, options: JobTypeOptions = {}): void {
    if (this.types.has(type)) throw new Error(`job type ${type} is registered twice`);
    this.types.set(type, {
      handler: handler as JobHandler<never>,
      maxAttempts: options.maxAttempts ?? 5,
      backoffMs: options.backoffMs ?? 1_000,
      maxBackoffMs: options.maxBackoffMs ?? 3_600_000,
      leaseMs: options.leaseMs ?? 60_000,
    });
    if (this.started) this.kick();
  }

  /**
   * Adds a job with the given EntityManager: inside a transaction it becomes visible (and wakes
   * the workers) only when that transaction commits, and disappears if it rolls back. Returns the
   * job id, or null when `dedupeKey` matched a pending or running job.
   */
  async enqueue<P>(
    manager: EntityManager,
    type: string,
    payload: P,
    options: EnqueueOptions = {},
  ): Promise<string | null> {
    const maxAttempts = options.maxAttempts ?? this.types.get(type)?.maxAttempts ?? 5;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      throw new Error('maxAttempts must be a positive integer');
    const delayMs = options.runAt ? options.runAt.getTime() - Date.now() : (options.delayMs ?? 0);
    const rows = resultRows<{ id: string }>(
      await manager.query(
        `INSERT INTO jobs (type, payload, max_attempts, run_at, dedupe_key)
         VALUES ($1, $2::jsonb, $3, now() + make_interval(secs => $4), $5)
         ON CONFLICT (type, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('pending', 'running') DO NOTHING
         RETURNING id`,
        [
          type,
          JSON.stringify(wellFormed(payload ?? null)),
          maxAttempts,
          Math.max(0, delayMs) / 1000,
          options.dedupeKey ?? null,
        ],
      ),
    );
    const id = rows[0]?.id ?? null;
    if (id === null) return null;
    const runner = manager.queryRunner;
    if (runner && runner.isTransactionActive) (runner.data as Record<string, unknown>)[ENQUEUED_FLAG] = true;
    else this.announce();
    return id;
  }

  /** Removes a job no worker took yet (pending); false when it was leased, finished or gone. */
  async discard(id: string): Promise<boolean> {
    const rows = resultRows<{ id: string }>(
      await this.dataSource.query(`DELETE FROM jobs WHERE id = $1 AND status = 'pending' RETURNING id`, [id]),
    );
    return rows.length > 0;
  }

  // TypeORM broadcasts these for savepoints (nested transactions) too: only the outermost end counts.
  afterTransactionCommit(event: TransactionCommitEvent): void {
    const data = event.queryRunner.data as Record<string, unknown> | undefined;
    if (!data?.[ENQUEUED_FLAG] || event.queryRunner.isTransactionActive) return;
    delete data[ENQUEUED_FLAG];
    this.announce();
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    const data = event.queryRunner.data as Record<string, unknown> | undefined;
    if (data?.[ENQUEUED_FLAG] && !event.queryRunner.isTransactionActive) delete data[ENQUEUED_FLAG];
  }

  /** Wakes this instance's workers and, over the cluster bus, the other instances'. */
  private announce(): void {
    this.cluster
      .publish(ENQUEUED_TOPIC, {})
      .catch((error: unknown) => this.logger.warn({ err: error }, 'jobs: cluster wake-up failed'));
  }

  /** Leases and starts due jobs now (or right after the round in progress). */
  kick(): void {
    if (!this.started || this.stopped || this.config.concurrency === 0 || this.types.size === 0) return;
    this.loop.kick();
  }

  /** One round: leases as many due jobs as there are free slots; true when a full batch came (more may be due). */
  private async fill(): Promise<boolean> {
    const free = this.config.concurrency - this.running.size;
    if (free <= 0) return false; // a finishing job kicks again
    const leased = await this.lease(free);
    for (const job of leased) this.start(job);
    return leased.length >= free;
  }

  private async lease(limit: number): Promise<LeasedJob[]> {
    const leases: Record<string, number> = {};
    for (const [type, registered] of this.types) leases[type] = registered.leaseMs / 1000;
    return resultRows<LeasedJob>(
      await this.dataSource.query(
        `UPDATE jobs j
            SET status = 'running', leased_by = $1, attempts = j.attempts + 1, updated_at = now(),
                leased_until = now() + make_interval(secs => ($2::jsonb ->> j.type)::double precision)
          WHERE j.id IN (
            SELECT id FROM jobs
             WHERE type = ANY($3::text[])
               AND ((status = 'pending' AND run_at <= now()) OR (status = 'running' AND leased_until < now()))
               AND attempts < max_attempts
             ORDER BY run_at
             LIMIT $4
             FOR UPDATE SKIP LOCKED)
        RETURNING j.id, j.type, j.payload, j.attempts, j.max_attempts`,
        [this.workerId, JSON.stringify(leases), [...this.types.keys()], limit],
      ),
    );
  }

  private start(job: LeasedJob): void {
    const registered = this.types.get(job.type)!;
    const controller = new AbortController();
    // The handler is told to stop a little before the lease ends, so no other worker starts it meanwhile.
    const leaseTimer = setTimeout(
      () => controller.abort(new Error('lease expired')),
      Math.max(0, registered.leaseMs - 1_000),
    );
    leaseTimer.unref();
    const promise = (async () => {
      if (this.config.testStartDelayMs > 0) await sleep(this.config.testStartDelayMs);
      try {
        await (registered.handler as JobHandler)({
          id: job.id,
          type: job.type,
          payload: job.payload,
          attempt: job.attempts,
          maxAttempts: job.max_attempts,
          signal: controller.signal,
        });
      } catch (error) {
        await this.recordFailure(job, registered, error);
        return;
      }
      await this.recordSuccess(job);
    })()
      .catch((error: unknown) =>
        this.logger.error({ err: error, jobId: job.id, type: job.type }, 'jobs: recording an outcome failed'),
      )
      .finally(() => {
        clearTimeout(leaseTimer);
        this.running.delete(job.id);
        this.kick();
      });
    this.running.set(job.id, { promise, controller });
  }

  /**
   * Fenced by the lease (worker id and run number). Retried a few times: once the side effect
   * happened, the job must not stay `running` and be taken over (that would repeat it).
   */
  private async recordSuccess(job: LeasedJob): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.dataSource.query(
          `UPDATE jobs SET status = 'succeeded', finished_at = now(), updated_at = now(), leased_by = NULL, leased_until = NULL, last_error = NULL
            WHERE id = $1 AND leased_by = $2 AND attempts = $3`,
          [job.id, this.workerId, job.attempts],
        );
        return;
      } catch (error) {
        if (attempt >= 4) throw error;
        await sleep(200 * 2 ** attempt);
      }
    }
  }

  private async recordFailure(job: LeasedJob, registered: RegisteredType, error: unknown): Promise<void> {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_TEXT_LIMIT);
    const permanent = error instanceof PermanentJobError;
    if (permanent || job.attempts >= job.max_attempts) {
      this.logger.warn(
        { jobId: job.id, type: job.type, attempts: job.attempts, reason: message },
        'job failed',
      );
      await this.dataSource.query(
        `UPDATE jobs SET status = 'failed', finished_at = now(), updated_at = now(), leased_by = NULL, leased_until = NULL, last_error = $4
          WHERE id = $1 AND leased_by = $2 AND attempts = $3`,
        [job.id, this.workerId, job.attempts, message],
      );
      return;
    }
    const delay = Math.min(registered.backoffMs * 2 ** (job.attempts - 1), registered.maxBackoffMs);
    await this.dataSource.query(
      `UPDATE jobs SET status = 'pending', updated_at = now(), leased_by = NULL, leased_until = NULL, last_error = $4,
              run_at = now() + make_interval(secs => $5)
        WHERE id = $1 AND leased_by = $2 AND attempts = $3`,
      [job.id, this.workerId, job.attempts, message, delay / 1000],
    );
    if (!this.stopped) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.kick();
      }, delay + 5);
      timer.unref();
      this.timers.add(timer);
    }
  }

  /** A job whose last run's worker died after its final attempt: failed, not retried forever. */
  private async expireExhausted(): Promise<void> {
    if (this.stopped || this.types.size === 0) return;
    await this.dataSource
      .query(
        `UPDATE jobs SET status = 'failed', finished_at = now(), updated_at = now(), leased_by = NULL, leased_until = NULL,
                last_error = 'the lease of the last attempt expired (worker crashed or too slow)'
          WHERE status = 'running' AND leased_until < now() AND attempts >= max_attempts AND type = ANY($1::text[])`,
        [[...this.types.keys()]],
      )
      .catch((error: unknown) => this.logger.warn({ err: error }, 'jobs: expiring exhausted leases failed'));
  }

  /** Retention: succeeded jobs after JOBS_SUCCEEDED_RETENTION_HOURS, failed ones after JOBS_FAILED_RETENTION_DAYS. */
  async purge(): Promise<void> {
    if (this.stopped) return;
    await this.dataSource
      .query(
        `DELETE FROM jobs
          WHERE (status = 'succeeded' AND finished_at < now() - make_interval(hours => $1))
             OR (status = 'failed' AND finished_at < now() - make_interval(days => $2))`,
        [this.config.succeededRetentionHours, this.config.failedRetentionDays],
      )
      .catch((error: unknown) => this.logger.warn({ err: error }, 'jobs: purge failed'));
  }

  /** Open and failed jobs per type (for the metrics endpoint and operators). */
  async depth(): Promise<QueueDepth[]> {
    const rows: { type: string; ready: string; scheduled: string; running: string; failed: string }[] =
      await this.dataSource.query(
        `SELECT type,
              count(*) FILTER (WHERE status = 'pending' AND run_at <= now()) AS ready,
              count(*) FILTER (WHERE status = 'pending' AND run_at > now()) AS scheduled,
              count(*) FILTER (WHERE status = 'running') AS running,
              count(*) FILTER (WHERE status = 'failed') AS failed
         FROM jobs WHERE status IN ('pending', 'running', 'failed')
        GROUP BY type ORDER BY type`,
      );
    return rows.map((r) => ({
      type: r.type,
      ready: Number(r.ready),
      scheduled: Number(r.scheduled),
      running: Number(r.running),
      failed: Number(r.failed),
    }));
  }

  /**
   * Waits until no job of the registered types (or of `types`) is pending or running, kicking
   * the workers meanwhile (tests, CLI). Rejects after `timeoutMs`.
   */
  async drain(options: { types?: string[]; timeoutMs?: number } = {}): Promise<void> {
    const types = options.types ?? [...this.types.keys()];
    const deadline = Date.now() + (options.timeoutMs ?? 15_000);
    for (;;) {
      const [{ open }] = (await this.dataSource.query(
        `SELECT count(*)::int AS open FROM jobs WHERE status IN ('pending', 'running') AND type = ANY($1::text[])`,
        [types],
      )) as [{ open: number }];
      if (open === 0 && this.running.size === 0) return;
      if (Date.now() > deadline) throw new Error(`jobs: ${open} job(s) still open after the drain timeout`);
      this.kick();
      await sleep(20);
    }
  }
}
