import os from 'node:os';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type AppProcess, startAppProcess } from '../helpers/app-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { waitFor } from '../helpers/provisioner-process';
import { startWebhookReceiver } from '../helpers/webhook-receiver';
import { BRANCH, bearer, check, ocs, WEBHOOK, WF } from '../workflows/helpers';
import { cloneUrl, git, tempDir } from './git-client';

jest.setTimeout(300_000);

interface Hit {
  event: string;
  branch: string;
  after: string | undefined;
  delivery: string | undefined;
}

/** A receiver that answers 200 and records the branch events it was sent. */
async function startReceiver() {
  const receiver = await startWebhookReceiver((body, req): Hit => {
    const parsed = body as { domainEvent: string; subject: { branch: string; after?: string } };
    return {
      event: parsed.domainEvent,
      branch: parsed.subject.branch,
      after: parsed.subject.after,
      delivery: req.headers['x-devplane-delivery'] as string | undefined,
    };
  });
  return { ...receiver, of: (after: string) => receiver.hits.filter((h) => h.after === after) };
}

interface JobRow {
  id: string;
  status: string;
  attempts: number;
  payload: { refs: { ref: string; oldId: string; newId: string }[]; source: string };
}

/**
 * Issue 34 item 3: a push's reactions survive the server being killed (SIGKILL) right after git's
 * push was acknowledged. The push records its ref changes and one `repositories.push` job in one
 * transaction; after a restart on the same database the job runs and the workflow rule's webhook
 * fires exactly once. The server runs as a real child process on this test's schema (and one data
 * directory across restarts); this process runs no jobs (JOBS_CONCURRENCY=0): it prepares the rule
 * and reads the jobs table.
 */
describe('push reactions are durable jobs', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let token: string;
  let adminName: string;
  let wc: string;
  const dataDir = `${os.tmpdir()}/devplane-test/push-durable-${process.pid}-${Date.now()}`;
  const children: AppProcess[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const child = await startAppProcess({
      DATABASE_SCHEMA: t.schema,
      DATA_DIR: dataDir,
      WORKFLOW_WEBHOOK_ALLOW_PRIVATE: 'true',
      WORKFLOW_WEBHOOK_TIMEOUT_MS: '1000',
      PUSH_REACTIONS_LEASE_MS: '3000',
      JOBS_POLL_INTERVAL_MS: '200',
      ...env,
    });
    children.push(child);
    return child;
  };
  const pushJobs = async (newId: string): Promise<JobRow[]> =>
    t.dataSource.query(
      `SELECT id, status, attempts, payload FROM jobs WHERE type = 'repositories.push' AND payload::text LIKE $1`,
      [`%${newId}%`],
    );
  /** Commits a change in the working copy and pushes it to `server`; answers the new commit id. */
  const pushCommit = async (server: AppProcess, content: string): Promise<string> => {
    await writeFile(path.join(wc, 'hello.txt'), content);
    await git(['add', 'hello.txt'], wc);
    await git(['commit', '--quiet', '-m', content.trim()], wc);
    const url = cloneUrl(server.url, adminName, 'durable', { user: adminName, secret: token });
    const push = await git(['push', url, 'main'], wc);
    expect(push).toMatchObject({ code: 0 });
    return (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { WORKFLOW_WEBHOOK_ALLOW_PRIVATE: 'true', JOBS_CONCURRENCY: '0' } });
    receiver = await startReceiver();
    const admin = await t.factories.admin();
    token = admin.token;
    adminName = admin.user.name;
    const rule = await ocs(t, 'post', `${WF}/global`, bearer(token), {
      class: WEBHOOK,
      name: 'pushes',
      checks: [check('RequestUserAgent', '!is', 'desktop')],
      entity: BRANCH,
      events: ['OCA\\Devplane\\Events\\BranchUpdatedEvent'],
      operation: JSON.stringify({ url: `${receiver.url}/pushes` }),
    });
    expect(rule.status).toBe(200);
  });
  afterAll(async () => {
    for (const child of children) await child.kill('SIGKILL');
    await receiver?.close();
    await t?.close();
  });

  it('killed right after the push was acknowledged, before any worker ran the job: the webhook fires once after the restart', async () => {
    // This instance runs no jobs: the push's reactions are queued and nothing else happens before the kill.
    const first = await start({ JOBS_CONCURRENCY: '0' });
    const created = await fetch(`${first.url}/api/v1/user/repos`, {
      method: 'POST',
      headers: { ...bearer(token), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'durable', auto_init: true }),
    });
    expect(created.status).toBe(201);
    const dir = await tempDir();
    const clone = await git(
      [
        'clone',
        '--quiet',
        cloneUrl(first.url, adminName, 'durable', { user: adminName, secret: token }),
        'wc',
      ],
      dir,
    );
    expect(clone.code).toBe(0);
    wc = path.join(dir, 'wc');

    const after = await pushCommit(first, 'first push\n');
    // git's push returned: the ref changes and their one job are committed.
    const [job] = await pushJobs(after);
    expect(job).toMatchObject({ status: 'pending', attempts: 0, payload: { source: 'push' } });
    expect(job!.payload.refs).toEqual([expect.objectContaining({ ref: 'refs/heads/main', newId: after })]);
    await first.kill('SIGKILL');
    expect(receiver.of(after)).toHaveLength(0);

    const second = await start();
    await waitFor(async () => (receiver.of(after).length > 0 ? true : undefined), 90_000, 'the webhook');
    await waitFor(
      async () => ((await pushJobs(after))[0]?.status === 'succeeded' ? true : undefined),
      90_000,
      'the push job to succeed',
    );
    // Several polls later nothing is sent again.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.of(after)).toEqual([
      { event: 'branch.updated', branch: 'main', after, delivery: expect.any(String) },
    ]);

    // A run repeated after its effects (a worker that died before recording the success) queues nothing again.
    await t.dataSource.query(`UPDATE jobs SET status = 'pending', run_at = now() WHERE id = $1`, [job!.id]);
    await waitFor(
      async () => {
        const [row] = await pushJobs(after);
        return row?.status === 'succeeded' && row.attempts === 2 ? true : undefined;
      },
      90_000,
      'the repeated run to succeed',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.of(after)).toHaveLength(1);
    await second.kill('SIGKILL');
  });

  it('killed while a worker held the push job, before its handler ran: the lease expires, the webhook fires once', async () => {
    // The test-only start delay holds the leased job before its handler runs; the kill lands there.
    const first = await start({ DEVPLANE_TEST_JOB_START_DELAY_MS: '600000' });
    const after = await pushCommit(first, 'second push\n');
    await waitFor(
      async () => ((await pushJobs(after))[0]?.status === 'running' ? true : undefined),
      90_000,
      'the push job to be leased',
    );
    await first.kill('SIGKILL');
    expect(receiver.of(after)).toHaveLength(0);

    const second = await start();
    await waitFor(async () => (receiver.of(after).length > 0 ? true : undefined), 90_000, 'the webhook');
    await waitFor(
      async () => ((await pushJobs(after))[0]?.status === 'succeeded' ? true : undefined),
      90_000,
      'the push job to succeed',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.of(after)).toEqual([
      { event: 'branch.updated', branch: 'main', after, delivery: expect.any(String) },
    ]);
    expect((await pushJobs(after))[0]!.attempts).toBe(2); // the killed run counts
    await second.kill('SIGKILL');
  });
});
