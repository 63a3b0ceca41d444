import { int, type Env } from '../config/app-config';

export const JOBS_CONFIG = Symbol('JOBS_CONFIG');

export interface JobsConfig {
  /** JOBS_CONCURRENCY: jobs this instance runs at once (all types together). 0 = this instance runs none (enqueue only). */
  concurrency: number;
  /** JOBS_POLL_INTERVAL_MS: the fallback poll; enqueues wake the workers at once (in-process and over the cluster bus). */
  pollIntervalMs: number;
  /** JOBS_SUCCEEDED_RETENTION_HOURS: succeeded jobs are deleted after this long. */
  succeededRetentionHours: number;
  /** JOBS_FAILED_RETENTION_DAYS: failed jobs are kept this long for inspection. */
  failedRetentionDays: number;
  /** JOBS_SHUTDOWN_GRACE_MS: at shutdown, how long to wait for running jobs before leaving them to lease expiry. */
  shutdownGraceMs: number;
  /**
   * DEVPLANE_TEST_JOB_START_DELAY_MS (test-only): a leased job waits this long before its handler
   * runs, so a test can kill the process between the lease and the side effect. 0 in production.
   */
  testStartDelayMs: number;
  /**
   * DEVPLANE_TEST_OUTBOX_DISPATCH_DELAY_MS (test-only): after a commit, the outbox waits this long
   * before it emits the transaction's durable events in process, so a test can kill the process
   * between the commit and the dispatch. 0 in production.
   */
  testOutboxDispatchDelayMs: number;
}

export function loadJobsConfig(env: Env = process.env): JobsConfig {
  return {
    concurrency: int(env, 'JOBS_CONCURRENCY', 4, 0, 64),
    pollIntervalMs: int(env, 'JOBS_POLL_INTERVAL_MS', 5_000, 50, 600_000),
    succeededRetentionHours: int(env, 'JOBS_SUCCEEDED_RETENTION_HOURS', 24, 0, 24 * 365),
    failedRetentionDays: int(env, 'JOBS_FAILED_RETENTION_DAYS', 30, 1, 3650),
    shutdownGraceMs: int(env, 'JOBS_SHUTDOWN_GRACE_MS', 15_000, 0, 600_000),
    testStartDelayMs: int(env, 'DEVPLANE_TEST_JOB_START_DELAY_MS', 0, 0, 600_000),
    testOutboxDispatchDelayMs: int(env, 'DEVPLANE_TEST_OUTBOX_DISPATCH_DELAY_MS', 0, 0, 600_000),
  };
}
