import { UserStatusChartService } from '../../src/modules/identity/management/user-status-chart.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

type Day = { date: Date; count: number };

/** The user status chart (issue 16 item 7): calendar days in an IANA zone, across daylight-saving changes. */
describe('user status chart (GET /api/v2/insights/user-status-counts)', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let chart: UserStatusChartService;
  const history = (rows: [number, string, string][]) =>
    Promise.all(
      rows.map(([user, status, at]) =>
        t.dataSource.query(
          'INSERT INTO user_status_changes (user_id, new_status, changed_at) VALUES ($1, $2, $3)',
          [user, status, at],
        ),
      ),
    );
  const on = (days: Day[], iso: string) => days.find((day) => day.date.toISOString() === iso)?.count;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.admin({ username: 'chartowner' });
    chart = t.app.get(UserStatusChartService);
  });
  afterAll(() => t.close());

  it('the users trigger writes the history: creation, status changes and deletion', async () => {
    const user = await t.factories.user({ username: 'tracked' });
    await t
      .http()
      .put('/api/v2/users/tracked/status/suspend')
      .set('Service-Session-Token', owner.token)
      .expect(200);
    await t.http().delete('/api/v2/users/tracked').set('Service-Session-Token', owner.token).expect(200);
    const rows: { new_status: string }[] = await t.dataSource.query(
      'SELECT new_status FROM user_status_changes WHERE user_id = $1 ORDER BY id',
      [user.user.id],
    );
    expect(rows.map((row) => row.new_status)).toEqual(['active', 'suspended', 'deleted']);
  });

  describe('calendar days across daylight-saving changes', () => {
    beforeAll(async () => {
      await t.dataSource.query('DELETE FROM user_status_changes');
      await history([
        [1001, 'active', '2026-10-20T10:00:00Z'],
        // Berlin: 2026-10-24 23:30 CEST.
        [1002, 'active', '2026-10-24T21:30:00Z'],
        // Berlin: 2026-10-25 23:30 CET — still the 25-hour day of 25 October.
        [1002, 'suspended', '2026-10-25T22:30:00Z'],
        // Berlin: 2026-10-26 00:30 CET.
        [1003, 'dormant', '2026-10-25T23:30:00Z'],
        [1004, 'active', '2026-09-10T08:00:00Z'],
        [1004, 'deleted', '2026-10-01T10:00:00Z'],
        // New York: 2026-11-01 23:30 EST — still the 25-hour day of 1 November.
        [2001, 'active', '2026-11-02T04:30:00Z'],
      ]);
    });

    it('Europe/Berlin: one entry per local day at local midnight; the 25-hour day holds its late changes', async () => {
      const counts = await chart.counts('Europe/Berlin', new Date('2026-11-01T12:00:00Z'));
      expect(counts.active).toHaveLength(61);
      expect(counts.active[0]!.date.toISOString()).toBe('2026-09-01T22:00:00.000Z'); // 2 September, CEST
      expect(counts.active.at(-1)!.date.toISOString()).toBe('2026-10-31T23:00:00.000Z'); // 1 November, CET
      // 25 October starts at 22:00Z (CEST) and 26 October at 23:00Z (CET): 25 hours apart.
      expect(on(counts.suspended, '2026-10-24T22:00:00.000Z')).toBe(1);
      expect(on(counts.active, '2026-10-24T22:00:00.000Z')).toBe(1);
      expect(on(counts.active, '2026-10-23T22:00:00.000Z')).toBe(2);
      expect(on(counts.dormant, '2026-10-24T22:00:00.000Z')).toBe(0);
      expect(on(counts.dormant, '2026-10-25T23:00:00.000Z')).toBe(1);
      // Deleted users leave every series.
      expect(on(counts.active, '2026-09-29T22:00:00.000Z')).toBe(1); // 30 September: 1004
      expect(on(counts.active, '2026-09-30T22:00:00.000Z')).toBe(0); // 1 October: deleted
      expect(on(counts.active, '2026-09-09T22:00:00.000Z')).toBe(1);
      expect(on(counts.active, '2026-09-08T22:00:00.000Z')).toBe(0);
    });

    it('America/New_York: 1 November is one 25-hour day', async () => {
      const counts = await chart.counts('America/New_York', new Date('2026-11-05T12:00:00Z'));
      expect(on(counts.active, '2026-10-31T04:00:00.000Z')).toBe(1); // 31 October (EDT): 1001
      expect(on(counts.active, '2026-11-01T04:00:00.000Z')).toBe(2); // 1 November: 1001 and 2001
      expect(on(counts.active, '2026-11-02T05:00:00.000Z')).toBe(2); // 2 November (EST)
      expect(counts.active.some((day) => day.date.toISOString() === '2026-11-02T04:00:00.000Z')).toBe(false);
      expect(on(counts.suspended, '2026-11-01T04:00:00.000Z')).toBe(1);
    });

    it('UTC and a whole-hour offset zone', async () => {
      const utc = await chart.counts('UTC', new Date('2026-11-01T12:00:00Z'));
      expect(utc.active.at(-1)!.date.toISOString()).toBe('2026-11-01T00:00:00.000Z');
      expect(on(utc.dormant, '2026-10-25T00:00:00.000Z')).toBe(1); // 23:30Z on 25 October is still the 25th in UTC
      const plusTwo = await chart.counts('Etc/GMT-2', new Date('2026-11-01T12:00:00Z'));
      expect(plusTwo.active.at(-1)!.date.toISOString()).toBe('2026-10-31T22:00:00.000Z');
    });
  });

  describe('the route', () => {
    const get = (query: Record<string, string>, token = owner.token) =>
      t.http().get('/api/v2/insights/user-status-counts').query(query).set('Service-Session-Token', token);

    it('answers the three series of 61 days for owners and auditors; members get 403', async () => {
      const res = await get({ timezone: 'Europe/Berlin' });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.status_counts).sort()).toEqual(['active', 'dormant', 'suspended']);
      expect(res.body.status_counts.active).toHaveLength(61);
      expect(res.body.status_counts.active[0]).toEqual({
        date: expect.any(String),
        count: expect.any(Number),
      });
      const auditor = await t.factories.user({ siteRoles: ['auditor'] });
      expect((await get({}, auditor.token)).status).toBe(200);
      const member = await t.factories.user();
      expect((await get({}, member.token)).status).toBe(403);
      expect((await t.http().get('/api/v2/insights/user-status-counts')).status).toBe(401);
    });

    it('falls back to tz_offset and refuses bad zones', async () => {
      const offset = await get({ tz_offset: '-5' });
      expect(offset.status).toBe(200);
      expect(offset.body.status_counts.active[0].date).toMatch(/T05:00:00\.000Z$/);
      const unknown = await get({ timezone: 'Mars/Olympus' });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toEqual({
        message: 'Invalid timezone.',
        detail: 'unknown time zone Mars/Olympus',
      });
      const both = await get({ timezone: 'UTC', tz_offset: '2' });
      expect(both.status).toBe(400);
      expect(both.body.message).toBe('Provide either "timezone" or "tz_offset", not both.');
      const badOffset = await get({ tz_offset: 'east' });
      expect(badOffset.status).toBe(400);
      expect(badOffset.body.message).toBe('Query parameters have invalid values.');
    });
  });
});
