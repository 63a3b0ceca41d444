import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../../src/modules/notifications/template-ids';
import { JobQueue } from '../../src/platform/jobs/job-queue.service';
import { JOBS_CONFIG, type JobsConfig } from '../../src/platform/jobs/jobs.config';
import { appEnv } from './helpers';

/**
 * Issue 52.2: maintained unread counts (triggers on inbox_notifications), mark-all-as-read answered at
 * once by a watermark every later read honours, then applied by a durable job.
 * The app starts with JOBS_CONCURRENCY=0 so reads between the answer and the job are seen; the last
 * test lets it run jobs.
 */
describe('inbox counters and mark-all-as-read (issue 52.2)', () => {
  let t: TestApp;
  let heavy: CreatedUser;
  let light: CreatedUser;
  const as = (u: CreatedUser) => ({ 'Service-Session-Token': u.token });
  const inbox = (u: CreatedUser, query: Record<string, string> = {}) =>
    t.http().get('/api/v2/notifications/inbox').query(query).set(as(u));

  /** Inserts `n` items for the user in one statement, oldest first (SQL this test owns). */
  async function seed(user: CreatedUser, n: number, title: string): Promise<void> {
    await t.dataSource.query(
      `INSERT INTO inbox_notifications (id, user_id, template_id, title, content, created_at)
       SELECT gen_random_uuid(), $1, $2, $3 || ' ' || g, 'body', now() - make_interval(secs => $4 - g)
         FROM generate_series(1, $4::int) g`,
      [user.user.id, IDS.customNotification, title, n],
    );
  }
  const counter = async (user: CreatedUser) =>
    (
      (await t.dataSource.query('SELECT unread, read_all_before FROM inbox_counters WHERE user_id = $1', [
        user.user.id,
      ])) as { unread: number; read_all_before: Date | null }[]
    )[0];
  const physicallyUnread = async (user: CreatedUser) =>
    Number(
      (
        await t.dataSource.query(
          'SELECT count(*)::int AS n FROM inbox_notifications WHERE user_id = $1 AND read_at IS NULL',
          [user.user.id],
        )
      )[0].n,
    );

  beforeAll(async () => {
    t = await createTestApp({ env: appEnv({ JOBS_CONCURRENCY: '0' }) });
    heavy = await t.factories.user();
    light = await t.factories.user();
    await seed(heavy, 2_000, 'old');
    await seed(light, 3, 'light');
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts by the maintained counter, and item writes keep it', async () => {
    expect((await counter(heavy)).unread).toBe(2_000);
    const page = await inbox(heavy);
    expect(page.status).toBe(200);
    expect(page.body.unread_count).toBe(2_000);
    expect(page.body.notifications).toHaveLength(25);
    const [first, second] = page.body.notifications as { id: string }[];
    for (const id of [first.id, second.id]) {
      const res = await t
        .http()
        .put(`/api/v2/notifications/inbox/${id}/read-status`)
        .set(as(heavy))
        .send({ is_read: true });
      expect(res.status).toBe(200);
    }
    // Marking read twice changes the count once; a foreign item is 404 and changes nothing.
    const again = await t
      .http()
      .put(`/api/v2/notifications/inbox/${first.id}/read-status`)
      .set(as(heavy))
      .send({ is_read: true });
    expect(again.body.unread_count).toBe(1_998);
    const foreign = await t
      .http()
      .put(`/api/v2/notifications/inbox/${first.id}/read-status`)
      .set(as(light))
      .send({ is_read: false });
    expect(foreign.status).toBe(404);
    expect((await inbox(heavy)).body.unread_count).toBe(1_998);
    expect((await inbox(light)).body.unread_count).toBe(3);
  });

  it('mark-all-as-read answers at once and every read honours it before the job ran', async () => {
    const res = await t.http().put('/api/v2/notifications/inbox/mark-all-as-read').set(as(heavy));
    expect(res.status).toBe(204);
    // No job ran (this app runs none): the rows still say unread, the reads say read.
    expect(await physicallyUnread(heavy)).toBe(1_998);
    const all = await inbox(heavy);
    expect(all.body.unread_count).toBe(0);
    expect(all.body.notifications.every((n: { read_at: string | null }) => n.read_at !== null)).toBe(true);
    expect((await inbox(heavy, { read_status: 'unread' })).body.notifications).toEqual([]);
    expect((await inbox(heavy, { read_status: 'read' })).body.notifications).toHaveLength(25);
    expect((await inbox(light)).body.unread_count).toBe(3);
    // A new item after the watermark is unread.
    await t.dataSource.query(
      `INSERT INTO inbox_notifications (id, user_id, template_id, title, content, created_at)
       VALUES (gen_random_uuid(), $1, $2, 'fresh', 'body', clock_timestamp() + interval '1 hour')`,
      [heavy.user.id, IDS.customNotification],
    );
    const fresh = await inbox(heavy, { read_status: 'unread' });
    expect(fresh.body.unread_count).toBe(1);
    expect(fresh.body.notifications.map((n: { title: string }) => n.title)).toEqual(['fresh']);
  });

  it('an item under the watermark can be made unread again', async () => {
    const old = (await inbox(heavy, { read_status: 'read' })).body.notifications[3] as { id: string };
    const res = await t
      .http()
      .put(`/api/v2/notifications/inbox/${old.id}/read-status`)
      .set(as(heavy))
      .send({ is_read: false });
    expect(res.status).toBe(200);
    expect(res.body.notification.read_at).toBeNull();
    expect(res.body.unread_count).toBe(2);
    const unread = await inbox(heavy, { read_status: 'unread' });
    expect(unread.body.notifications.map((n: { id: string }) => n.id)).toContain(old.id);
    expect(unread.body.notifications).toHaveLength(2);
  });

  it('the durable job writes the watermark on the items and the counts stay right', async () => {
    expect((await t.http().put('/api/v2/notifications/inbox/mark-all-as-read').set(as(heavy))).status).toBe(
      204,
    );
    const [{ n }] = await t.dataSource.query(
      `SELECT count(*)::int AS n FROM jobs WHERE type = 'notifications.inbox-read-all' AND status = 'pending'`,
    );
    expect(n).toBe(1);
    // Let this app run jobs now (test-only: the queue reads its concurrency at each wake-up).
    const config = t.app.get<JobsConfig>(JOBS_CONFIG);
    config.concurrency = 1;
    await t.app.get(JobQueue).drain({ types: ['notifications.inbox-read-all'], timeoutMs: 60_000 });
    // The fresh item (created an hour ahead) is the only unread one left, in the rows and the count.
    expect(await physicallyUnread(heavy)).toBe(1);
    expect((await counter(heavy)).unread).toBe(1);
    expect((await inbox(heavy)).body.unread_count).toBe(1);
    expect((await inbox(light)).body.unread_count).toBe(3);
  });
});
