import { type AppProcess, startAppProcess } from '../helpers/app-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { waitFor } from '../helpers/provisioner-process';
import { startWebhookReceiver } from '../helpers/webhook-receiver';
import { bearer, check, notifyRule, ocs, WEBHOOK, WF } from './helpers';

jest.setTimeout(240_000);

interface Hit {
  username: string;
  delivery: string | undefined;
}

/** A receiver that answers 200 and records which user each delivery was about. */
async function startReceiver() {
  const receiver = await startWebhookReceiver((body, req): Hit => ({
    username: (body as { subject: { username: string } }).subject.username,
    delivery: req.headers['x-devplane-delivery'] as string | undefined,
  }));
  return { ...receiver, of: (username: string) => receiver.hits.filter((h) => h.username === username) };
}

/**
 * Issue 10 item 8: a webhook delivery survives the process being killed (SIGKILL) after the
 * causing write committed and before the delivery; after a restart it is delivered exactly once.
 * The server runs as a real child process on this test's schema; this process (which runs no
 * jobs: JOBS_CONCURRENCY=0) only prepares the rule and reads the jobs table.
 */
describe('workflow webhooks are durable jobs', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let token: string;
  const children: AppProcess[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const child = await startAppProcess({
      DATABASE_SCHEMA: t.schema,
      WORKFLOW_WEBHOOK_ALLOW_PRIVATE: 'true',
      WORKFLOW_WEBHOOK_TIMEOUT_MS: '1000', // lease: 2 × timeout + 5 s
      JOBS_POLL_INTERVAL_MS: '200',
      ...env,
    });
    children.push(child);
    return child;
  };
  const createUser = async (server: AppProcess, username: string) => {
    const res = await fetch(`${server.url}/api/v1/admin/users`, {
      method: 'POST',
      headers: { ...bearer(token), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        username,
        email: `${username}@example.com`,
        password: 'Durable-Pass-1234',
        must_change_password: false,
      }),
    });
    expect(res.status).toBe(201);
  };
  const jobOf = async (username: string) => {
    const rows: { id: string; status: string; attempts: number; leased_by: string | null }[] =
      await t.dataSource.query(
        `SELECT id, status, attempts, leased_by FROM jobs WHERE type = 'workflows.webhook' AND payload->>'body' LIKE $1`,
        [`%"username":"${username}"%`],
      );
    return rows;
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { WORKFLOW_WEBHOOK_ALLOW_PRIVATE: 'true', JOBS_CONCURRENCY: '0' } });
    receiver = await startReceiver();
    const admin = await t.factories.admin();
    token = admin.token;
    const rule = await ocs(t, 'post', `${WF}/global`, bearer(token), {
      ...notifyRule({ name: 'new users', checks: [check('RequestURL', 'is', 'cli')] }),
      class: WEBHOOK,
      entity: 'OCA\\Devplane\\Entity\\User',
      events: ['OCA\\Devplane\\Events\\UserCreatedEvent'],
      operation: JSON.stringify({ url: `${receiver.url}/users` }),
    });
    expect(rule.status).toBe(200);
  });
  afterAll(async () => {
    for (const child of children) await child.kill('SIGKILL');
    await receiver?.close();
    await t?.close();
  });

  it('killed after the commit, before any worker took the job: delivered once after the restart', async () => {
    // This instance runs no jobs, so the delivery is queued and nothing else happens before the kill.
    const first = await start({ JOBS_CONCURRENCY: '0' });
    await createUser(first, 'crash-a');
    expect(await jobOf('crash-a')).toEqual([expect.objectContaining({ status: 'pending', attempts: 0 })]);
    await first.kill('SIGKILL');
    expect(receiver.of('crash-a')).toHaveLength(0);

    const second = await start();
    const [job] = await waitFor(
      async () => {
        const rows = await jobOf('crash-a');
        return rows[0]?.status === 'succeeded' ? rows : undefined;
      },
      60_000,
      'the delivery to succeed',
    );
    expect(receiver.of('crash-a')).toEqual([{ username: 'crash-a', delivery: job!.id }]);
    expect(job).toMatchObject({ attempts: 1, leased_by: null });
    await second.kill('SIGKILL'); // after the success was recorded
  });

  it('killed while a worker held the job, before it sent anything: the lease expires, delivered once', async () => {
    // The test-only start delay holds the leased job before its handler runs; the kill lands there.
    const first = await start({ DEVPLANE_TEST_JOB_START_DELAY_MS: '600000' });
    await createUser(first, 'crash-b');
    await waitFor(
      async () => {
        const rows = await jobOf('crash-b');
        return rows[0]?.status === 'running' ? rows : undefined;
      },
      60_000,
      'the job to be leased',
    );
    await first.kill('SIGKILL');
    expect(receiver.of('crash-b')).toHaveLength(0);

    const second = await start();
    const [job] = await waitFor(
      async () => {
        const rows = await jobOf('crash-b');
        return rows[0]?.status === 'succeeded' ? rows : undefined;
      },
      60_000,
      'the delivery to succeed',
    );
    expect(receiver.of('crash-b')).toEqual([{ username: 'crash-b', delivery: job!.id }]);
    expect(job!.attempts).toBe(2); // the killed run counts
    // Several polls later nothing is sent again; crash-a's delivery was not repeated by the instances started since.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.of('crash-b')).toHaveLength(1);
    expect(receiver.of('crash-a')).toHaveLength(1);
    expect(await jobOf('crash-b')).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 2 })]);
    await second.kill('SIGKILL');
  });
});
