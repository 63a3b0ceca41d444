import { JobQueue, type JobContext } from '../../src/platform/jobs/job-queue.service';
import { PermanentJobError } from '../../src/platform/jobs/permanent-job-error';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** Resolves with the promise, or rejects when it takes longer than `ms` (a hang must fail the test, not time it out). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen`)), ms)),
    ),
  ]);
}

interface JobRow {
  id: string;
  status: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  leased_by: string | null;
}

/** Durable jobs (platform/jobs) on a real database, two instances on one schema. */
describe('durable jobs', () => {
  let a: TestApp;
  let b: TestApp;
  let qa: JobQueue;
  let qb: JobQueue;

  beforeAll(async () => {
    // Instance A never polls (10 minutes): what it runs, an enqueue woke it up for. B polls often.
    a = await createTestApp({ env: { JOBS_POLL_INTERVAL_MS: '600000' } });
    b = await createTestApp({ schema: a.schema, env: { JOBS_POLL_INTERVAL_MS: '100' } });
    qa = a.app.get(JobQueue);
    qb = b.app.get(JobQueue);
  });
  afterAll(async () => {
    await b?.close().catch(() => undefined);
    await a?.close();
  });

  const rows = (type: string): Promise<JobRow[]> =>
    a.dataSource.query(
      `SELECT id, status, attempts, max_attempts, last_error, leased_by FROM jobs WHERE type = $1 ORDER BY created_at, payload->>'n'`,
      [type],
    );

  it('a job enqueued in a rolled-back transaction never exists; a committed one runs once, woken by the commit', async () => {
    const seen: unknown[] = [];
    let ran!: () => void;
    const done = new Promise<void>((resolve) => (ran = resolve));
    qa.register('test.tx', async (job) => {
      seen.push(job.payload);
      ran();
    });
    await a.dataSource
      .transaction(async (manager) => {
        await qa.enqueue(manager, 'test.tx', { n: 1 });
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    let id: string | null = null;
    await a.dataSource.transaction(async (manager) => {
      id = await qa.enqueue(manager, 'test.tx', { n: 2 });
      // Not visible to the workers before the commit (another connection; PGlite's single session would hang on it).
      if (process.env.DATABASE_EMBEDDED !== 'true') expect(await qa.depth()).toEqual([]);
    });
    await within(done, 10_000, 'the wake-up after the commit');
    await qa.drain();
    expect(seen).toEqual([{ n: 2 }]);
    expect(await rows('test.tx')).toEqual([
      expect.objectContaining({ id, status: 'succeeded', attempts: 1, last_error: null, leased_by: null }),
    ]);
  });

  it('an enqueue in a nested transaction (savepoint) wakes the workers at the outer commit, not before', async () => {
    let ran!: () => void;
    const done = new Promise<void>((resolve) => (ran = resolve));
    qa.register('test.nested', async () => ran());
    await a.dataSource.transaction(async (manager) => {
      await manager.transaction(async (inner) => {
        await qa.enqueue(inner, 'test.nested', {});
      });
      // Released savepoint: an announcement here would find nothing committed and be used up.
      await new Promise((resolve) => setTimeout(resolve, 100));
    });
    await within(done, 10_000, 'the wake-up after the outer commit');
    await qa.drain();
    expect(await rows('test.nested')).toEqual([
      expect.objectContaining({ status: 'succeeded', attempts: 1 }),
    ]);
  });

  it('retries with backoff until the handler succeeds', async () => {
    const attempts: number[] = [];
    qa.register(
      'test.flaky',
      async (job) => {
        attempts.push(job.attempt);
        if (job.attempt < 3) throw new Error(`boom ${job.attempt}`);
      },
      { backoffMs: 10, maxAttempts: 5 },
    );
    await qa.enqueue(a.dataSource.manager, 'test.flaky', {});
    await qa.drain();
    expect(attempts).toEqual([1, 2, 3]);
    expect(await rows('test.flaky')).toEqual([
      expect.objectContaining({ status: 'succeeded', attempts: 3, max_attempts: 5, last_error: null }),
    ]);
  });

  it('keeps a job that exhausted its attempts, or failed permanently, as failed with the reason', async () => {
    let runs = 0;
    qa.register(
      'test.fail',
      async (job: JobContext<{ permanent: boolean }>) => {
        runs++;
        if (job.payload.permanent) throw new PermanentJobError('no retry can fix this');
        throw new Error(`still broken (${job.attempt})`);
      },
      { backoffMs: 5, maxAttempts: 3 },
    );
    await qa.enqueue(a.dataSource.manager, 'test.fail', { permanent: false });
    await qa.enqueue(a.dataSource.manager, 'test.fail', { permanent: true });
    await qa.drain();
    expect(runs).toBe(4);
    const failed = await rows('test.fail');
    expect(failed).toEqual([
      expect.objectContaining({ status: 'failed', attempts: 3, last_error: 'still broken (3)' }),
      expect.objectContaining({ status: 'failed', attempts: 1, last_error: 'no retry can fix this' }),
    ]);
    expect((await qa.depth()).find((d) => d.type === 'test.fail')).toEqual({
      type: 'test.fail',
      ready: 0,
      scheduled: 0,
      running: 0,
      failed: 2,
    });
  });

  it('maxAttempts of the enqueue wins over the type default', async () => {
    qa.register(
      'test.once',
      async () => {
        throw new Error('nope');
      },
      { backoffMs: 5, maxAttempts: 5 },
    );
    await qa.enqueue(a.dataSource.manager, 'test.once', {}, { maxAttempts: 1 });
    await qa.drain();
    expect(await rows('test.once')).toEqual([
      expect.objectContaining({ status: 'failed', attempts: 1, max_attempts: 1 }),
    ]);
  });

  it('a delayed job waits for its time; depth() reports it as scheduled', async () => {
    qa.register('test.later', async () => undefined);
    await qa.enqueue(a.dataSource.manager, 'test.later', {}, { delayMs: 3_600_000 });
    expect((await qa.depth()).find((d) => d.type === 'test.later')).toEqual({
      type: 'test.later',
      ready: 0,
      scheduled: 1,
      running: 0,
      failed: 0,
    });
    qa.kick();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await rows('test.later')).toEqual([expect.objectContaining({ status: 'pending', attempts: 0 })]);
    await a.dataSource.query(`DELETE FROM jobs WHERE type = 'test.later'`);
  });

  it('dedupeKey: one pending or running job per key; the key is free again once it finished', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    qa.register('test.dedupe', () => gate);
    const first = await qa.enqueue(a.dataSource.manager, 'test.dedupe', {}, { dedupeKey: 'mirror:1' });
    const second = await qa.enqueue(a.dataSource.manager, 'test.dedupe', {}, { dedupeKey: 'mirror:1' });
    const other = await qa.enqueue(a.dataSource.manager, 'test.dedupe', {}, { dedupeKey: 'mirror:2' });
    expect(first).toEqual(expect.any(String));
    expect(second).toBeNull();
    expect(other).toEqual(expect.any(String));
    release();
    await qa.drain();
    const again = await qa.enqueue(a.dataSource.manager, 'test.dedupe', {}, { dedupeKey: 'mirror:1' });
    expect(again).toEqual(expect.any(String));
    await qa.drain();
    expect((await rows('test.dedupe')).map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('a job whose worker died (lease expired) is taken over; one past its last attempt is marked failed', async () => {
    const seen: number[] = [];
    await a.dataSource.query(
      `INSERT INTO jobs (type, payload, status, attempts, max_attempts, leased_by, leased_until, run_at)
       VALUES ('test.orphan', '{"n":1}', 'running', 1, 3, 'dead-worker', now() - interval '1 second', now() - interval '1 minute'),
              ('test.orphan', '{"n":2}', 'running', 3, 3, 'dead-worker', now() - interval '1 second', now() - interval '1 minute'),
              ('test.orphan', '{"n":3}', 'running', 1, 3, 'live-worker', now() + interval '1 hour', now() - interval '1 minute')`,
    );
    qb.register('test.orphan', async (job: JobContext<{ n: number }>) => {
      seen.push(job.payload.n);
      expect(job.attempt).toBe(2);
    });
    const deadline = Date.now() + 10_000;
    let current: JobRow[] = [];
    while (Date.now() < deadline) {
      current = await rows('test.orphan');
      if (
        current.filter((r) => r.status === 'running').length === 1 &&
        current.some((r) => r.status === 'succeeded')
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).toEqual([1]);
    expect(current.map((r) => [r.status, r.attempts])).toEqual([
      ['succeeded', 2],
      ['failed', 3],
      ['running', 1], // a live lease is left alone
    ]);
    expect(current[1]!.last_error).toMatch(/lease of the last attempt expired/);
    await a.dataSource.query(`DELETE FROM jobs WHERE type = 'test.orphan'`);
  });

  it('two instances share the queue: every job runs exactly once', async () => {
    const runs: string[] = [];
    const handler = async (job: JobContext) => {
      runs.push(job.id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    };
    qa.register('test.shared', handler);
    qb.register('test.shared', handler);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++)
      ids.push((await (i % 2 ? qa : qb).enqueue(a.dataSource.manager, 'test.shared', { i }))!);
    await Promise.all([qa.drain(), qb.drain()]);
    expect([...runs].sort()).toEqual([...ids].sort());
    expect((await rows('test.shared')).every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
  });

  it('shutdown stops leasing and waits for the running job to finish and be recorded', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    qb.register('test.slow', async () => {
      started();
      await gate;
    });
    await qb.enqueue(b.dataSource.manager, 'test.slow', { n: 1 });
    await within(running, 10_000, 'the slow job start');
    const closing = b.close();
    // Nest destroys the feature modules first: wait until b's queue has stopped leasing (a fixed pause raced it).
    for (let i = 0; i < 400 && qb.leasing; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(qb.leasing).toBe(false);
    await qa.enqueue(a.dataSource.manager, 'test.slow', { n: 2 }); // nobody may lease it now
    release();
    await closing;
    const slow = await a.dataSource.query(
      `SELECT payload->>'n' AS n, status FROM jobs WHERE type = 'test.slow' ORDER BY created_at`,
    );
    expect(slow).toEqual([
      { n: '1', status: 'succeeded' },
      { n: '2', status: 'pending' },
    ]);
  });
});
