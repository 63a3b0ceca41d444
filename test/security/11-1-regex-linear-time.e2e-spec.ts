import { EventEmitter2 } from '@nestjs/event-emitter';
import { RequestUserAgentCheck } from '../../src/modules/workflows/checks/string-checks';
import type { CreatedUser } from '../helpers/factories';
import { basic, BOOTSTRAP_ADMIN, createTestApp, type TestApp } from '../helpers/test-app';
import { bearer, check, NOTIFY, ocs, WF } from '../workflows/helpers';

const USER_ENTITY = 'OCA\\Devplane\\Entity\\User';
const USER_UPDATED = 'OCA\\Devplane\\Events\\UserUpdatedEvent';
/** Issue 11.1's pattern: many empty alternations before a literal (exponential for a backtracking engine). */
const emptyAlternations = (groups: number) => `/${'(?:|)'.repeat(groups)}x/`;

/**
 * Issue 11.1: a stored regex froze the whole server (26 empty alternations: 8.3 s, doubling per group).
 * Every user-supplied pattern now runs on RE2 (re2js, linear time); what RE2 cannot run is refused.
 */
describe('issue 11.1: workflow regexes run in linear time', () => {
  let t: TestApp;
  let alice: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user();
  });
  afterAll(() => t.close());

  it.each([26, 400])(
    'a user-scope RequestUserAgent rule with %i empty groups is accepted and an admin edit of the user runs it at once',
    async (groups) => {
      const pattern = emptyAlternations(groups);
      expect(Buffer.byteLength(pattern)).toBeLessThanOrEqual(2048);
      const created = await ocs(t, 'post', `${WF}/user`, bearer(alice.token), {
        class: NOTIFY,
        name: `ua ${groups}`,
        checks: [check('RequestUserAgent', '!matches', pattern)],
        operation: '{"inscription":"edited"}',
        entity: USER_ENTITY,
        events: [USER_UPDATED],
      });
      expect([created.status, created.body.ocs.meta.message]).toEqual([200, 'OK']);

      const notified: { ruleId: string }[] = [];
      const listener = (payload: { ruleId: string }) => notified.push(payload);
      t.app.get(EventEmitter2).on('workflow.notify_owner', listener);
      try {
        // The admin edit emits user.updated; the rule's check runs on the (empty) user agent: no "x", so !matches is true.
        const edit = await t
          .http()
          .patch(`/api/v1/admin/users/${alice.user.name}`)
          .set('Authorization', basic(BOOTSTRAP_ADMIN.username, BOOTSTRAP_ADMIN.password))
          .send({ login_name: alice.user.name, source_id: 0, full_name: `Alice ${groups}` });
        expect(edit.status).toBe(200);
        const deadline = Date.now() + 5000;
        while (
          !notified.some((n) => n.ruleId === String(created.body.ocs.data.id)) &&
          Date.now() < deadline
        ) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(notified.map((n) => n.ruleId)).toContain(String(created.body.ocs.data.id));
        expect((await t.http().get('/healthz')).status).toBe(200);
      } finally {
        t.app.get(EventEmitter2).off('workflow.notify_owner', listener);
      }
    },
  );

  it.each([26, 400])(
    'the %i-group pattern evaluates within the bound of the issue, even on a long user agent',
    (groups) => {
      const compiled = RequestUserAgentCheck.compile('matches', emptyAlternations(groups));
      const subject = (userAgent: string) => ({
        entity: USER_ENTITY,
        actorUserId: null,
        request: { remoteAddress: '::1', userAgent, url: null, method: 'GET' },
        now: 0,
      });
      compiled(subject('warm-up'));
      for (const userAgent of ['', 'curl/8.5.0', 'a'.repeat(8000), `${'a'.repeat(8000)}x`]) {
        const started = performance.now();
        const result = compiled(subject(userAgent));
        const elapsed = performance.now() - started;
        expect(result).toBe(userAgent.endsWith('x'));
        // The issue asks for "under 10 ms"; 100 ms leaves a wide margin for a loaded shared CI machine
        // (the backtracking engine took 8.3 s for 26 groups and doubled per group).
        expect(elapsed).toBeLessThan(100);
      }
    },
  );

  it.each([
    ['/a(?=b)/', 'look-around assertions'],
    ['/(?<!x)b/', 'look-around assertions'],
    ['/(a)\\1/', 'back-references'],
    ['/(?P<n>a)(?P=n)/', 'back-references'],
  ])(
    '%j is refused at create and update with a 400 that says why, and nothing is stored',
    async (pattern, reason) => {
      const rule = (value: string) => ({
        class: NOTIFY,
        name: 'refused',
        checks: [check('RequestUserAgent', 'matches', value)],
        operation: 'x',
        entity: USER_ENTITY,
        events: [USER_UPDATED],
      });
      const before = await t.dataSource.query('SELECT count(*)::int AS n FROM flow_operations');
      const res = await ocs(t, 'post', `${WF}/user`, bearer(alice.token), rule(pattern));
      expect(res.status).toBe(400);
      expect(res.body.ocs.meta).toEqual({
        status: 'failure',
        statuscode: 400,
        message: `The given regular expression is not supported: ${reason} cannot run in linear time (devplane runs regular expressions on RE2)`,
      });
      expect(await t.dataSource.query('SELECT count(*)::int AS n FROM flow_operations')).toEqual(before);

      const id = (await ocs(t, 'post', `${WF}/user`, bearer(alice.token), rule('/ok/'))).body.ocs.data
        .id as number;
      const update = await ocs(t, 'put', `${WF}/user/${id}`, bearer(alice.token), rule(pattern));
      expect(update.status).toBe(400);
      expect(update.body.ocs.meta.message).toContain(reason);
      expect(
        (await ocs(t, 'get', `${WF}/user/${id}`, bearer(alice.token))).body.ocs.data.checks[0].value,
      ).toBe('/ok/');
    },
  );
});
