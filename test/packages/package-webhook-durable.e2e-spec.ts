import { type AppProcess, startAppProcess } from '../helpers/app-process';
import { waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { startWebhookReceiver } from '../helpers/webhook-receiver';
import { bearer, check, ocs, WEBHOOK, WF } from '../workflows/helpers';

jest.setTimeout(240_000);

/**
 * Issue 47.4, the outbox: a package publish's `package.published` (and `file.created`) are written as
 * one `events.dispatch` job in the publish's own transaction. The server is killed (SIGKILL) after
 * that commit and before the events reached the workflow engine (the test-only dispatch delay holds
 * them there): no webhook delivery was queued yet. After a restart the dispatch job emits the events
 * (with their idempotency keys) and the rule's webhook is delivered, once.
 */
describe('package events go through the outbox', () => {
  let t: TestApp;
  let token: string;
  let owner: string;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver<{ event: string; name: unknown }>>>;
  const children: AppProcess[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const child = await startAppProcess({
      DATABASE_SCHEMA: t.schema,
      WORKFLOW_WEBHOOK_ALLOW_PRIVATE: 'true',
      WORKFLOW_WEBHOOK_TIMEOUT_MS: '1000',
      JOBS_POLL_INTERVAL_MS: '200',
      ...env,
    });
    children.push(child);
    return child;
  };
  const jobs = async (type: string) =>
    (await t.dataSource.query(
      `SELECT id::text AS id, status, payload FROM jobs WHERE type = $1 ORDER BY id`,
      [type],
    )) as { id: string; status: string; payload: { events?: { name: string }[]; body?: unknown } }[];

  beforeAll(async () => {
    t = await createTestApp({ env: { WORKFLOW_WEBHOOK_ALLOW_PRIVATE: 'true', JOBS_CONCURRENCY: '0' } });
    receiver = await startWebhookReceiver((body) => {
      const event = body as { domainEvent: string; subject: { name?: unknown } };
      return { event: event.domainEvent, name: event.subject.name };
    });
    const admin = await t.factories.admin({ username: 'outboxadmin' });
    token = admin.token;
    owner = admin.user.name;
    const rule = await ocs(t, 'post', `${WF}/global`, bearer(token), {
      class: WEBHOOK,
      name: 'published',
      checks: [check('RequestURL', 'matches', '/\\/api\\/packages\\//')],
      operation: JSON.stringify({ url: `${receiver.url}/packages` }),
      entity: 'OCA\\Devplane\\Entity\\Package',
      events: ['OCA\\Devplane\\Events\\PackagePublishedEvent'],
    });
    expect(rule.status).toBe(200);
  });
  afterAll(async () => {
    for (const child of children) await child.kill('SIGKILL');
    await receiver?.close();
    await t?.close();
  });

  it('killed between the commit and the dispatch: the webhook is delivered once after the restart', async () => {
    const first = await start({ DEVPLANE_TEST_OUTBOX_DISPATCH_DELAY_MS: '600000' });
    // The request answers only after the dispatch: it is left hanging and dies with the process.
    const publish = fetch(`${first.url}/api/packages/${owner}/generic/durable/1.0.0/tool.bin`, {
      method: 'PUT',
      headers: bearer(token),
      body: 'payload',
    }).catch(() => undefined);
    // Committed together: the package version and its outbox job (the events, not yet emitted).
    const [dispatch] = await waitFor(
      async () => {
        const rows = await jobs('events.dispatch');
        return rows.length > 0 ? rows : undefined;
      },
      60_000,
      'the outbox job',
    );
    const [version] = (await t.dataSource.query(
      `SELECT v.version FROM package_versions v JOIN packages p ON p.id = v.package_id WHERE p.name = 'durable'`,
    )) as { version: string }[];
    expect(version).toEqual({ version: '1.0.0' });
    expect(dispatch!.status).toBe('pending');
    expect(dispatch!.payload.events!.map((event) => event.name)).toEqual([
      'file.created',
      'package.published',
    ]);
    expect(await jobs('workflows.webhook')).toEqual([]);
    await first.kill('SIGKILL');
    await publish;
    expect(receiver.hits).toEqual([]);

    const second = await start();
    await waitFor(
      async () => {
        const rows = await jobs('workflows.webhook');
        return rows[0]?.status === 'succeeded' ? rows : undefined;
      },
      90_000,
      'the webhook delivery',
    );
    expect(receiver.hits).toEqual([{ event: 'package.published', name: 'durable' }]);
    expect(await jobs('events.dispatch')).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    // Polls later nothing more: the events went out once.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.hits).toHaveLength(1);
    expect(await jobs('workflows.webhook')).toHaveLength(1);
    await second.kill('SIGKILL');
  });

  it('without a crash the events are emitted in process at once and the outbox job is discarded', async () => {
    const server = await start();
    const res = await fetch(`${server.url}/api/packages/${owner}/generic/quick/1.0.0/tool.bin`, {
      method: 'PUT',
      headers: bearer(token),
      body: 'payload',
    });
    expect(res.status).toBe(201);
    // The delivery was queued before the publish answered; the dispatch job is gone.
    expect((await jobs('workflows.webhook')).length).toBe(2);
    expect(await jobs('events.dispatch')).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    await waitFor(async () => (receiver.hits.length === 2 ? true : undefined), 30_000, 'the second delivery');
    expect(receiver.hits[1]).toEqual({ event: 'package.published', name: 'quick' });
    await server.kill('SIGKILL');
  });
});
