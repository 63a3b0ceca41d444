import { RuleStore } from '../../src/modules/workflows/engine/rule-store.service';
import { WorkflowRulesRepository } from '../../src/modules/workflows/workflow-rules.repository';
import { EventBus } from '../../src/platform/events/event-bus.service';
import type { CreatedUser } from '../helpers/factories';
import { basic, BOOTSTRAP_ADMIN, createTestApp, type TestApp } from '../helpers/test-app';
import {
  ACCESS,
  accessRule,
  bearer,
  BRANCH,
  CATALOGUE,
  check,
  CREATED,
  FILE,
  NOTIFY,
  notifyRule,
  ocs,
  UPDATED,
  WEBHOOK,
  WF,
} from './helpers';

/** Spec 1: the ten operations, every row of the error table, validation order and messages, shapes. */
describe('workflow rules OCS API', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.factories.admin();
    alice = await t.factories.user();
    bob = await t.factories.user();
  });
  afterAll(() => t.close());

  const A = () => bearer(admin.token);
  const U = () => bearer(alice.token);

  function expectFailure(
    res: { status: number; body: { ocs: { meta: unknown; data: unknown } } },
    status: number,
    statuscode: number,
    message: string,
  ) {
    expect(res.status).toBe(status);
    expect(res.body.ocs.meta).toEqual({ status: 'failure', statuscode, message });
    expect(res.body.ocs.data).toEqual([]);
  }

  describe('authentication and authorization (error table steps 1-3)', () => {
    const routes: ['get' | 'post' | 'put' | 'delete', string][] = [
      ['get', `${WF}/global`],
      ['get', `${WF}/global/1`],
      ['post', `${WF}/global`],
      ['put', `${WF}/global/1`],
      ['delete', `${WF}/global/1`],
      ['get', `${WF}/user`],
      ['get', `${WF}/user/1`],
      ['post', `${WF}/user`],
      ['put', `${WF}/user/1`],
      ['delete', `${WF}/user/1`],
    ];

    it.each(routes)('%s %s without credentials → 401 / 997', async (method, path) => {
      const res = await ocs(t, method, path, {});
      expectFailure(res, 401, 997, 'Current user is not logged in');
    });

    it.each(routes)(
      '%s %s with a wrong Basic password → 401 Unauthorised + WWW-Authenticate',
      async (method, path) => {
        const res = await ocs(t, method, path, { Authorization: basic(alice.user.name, 'wrong-password') });
        expectFailure(res, 401, 997, 'Unauthorised');
        expect(res.headers['www-authenticate']).toBe('Basic realm="Authorisation Required"');
      },
    );

    it.each(routes.filter(([, path]) => path.includes('/global')))(
      '%s %s as a non-admin → 403',
      async (method, path) => {
        const res = await ocs(
          t,
          method,
          path,
          U(),
          method === 'post' || method === 'put' ? accessRule() : undefined,
        );
        expectFailure(res, 403, 403, 'Logged in account must be an admin');
      },
    );

    it('a non-admin without the OCS-APIRequest header still gets 403; anonymous gets 401', async () => {
      const res = await t
        .http()
        .get(`${WF}/global`)
        .query({ format: 'json' })
        .set('Authorization', basic(alice.user.name, alice.password));
      expect(res.status).toBe(403);
      const anon = await t.http().get(`${WF}/global`).query({ format: 'json' });
      expect(anon.status).toBe(401);
    });

    it.each(routes)('%s %s without OCS-APIRequest: true → 412 plain body', async (method, path) => {
      const http = t.http();
      const res = await http[method](path)
        .query({ format: 'json' })
        .set('Authorization', basic(BOOTSTRAP_ADMIN.username, BOOTSTRAP_ADMIN.password));
      expect(res.status).toBe(412);
      expect(res.body).toEqual({ message: 'CSRF check failed' });
      const wrong = await http[method](path)
        .set('OCS-APIRequest', 'false')
        .set('Authorization', basic(BOOTSTRAP_ADMIN.username, BOOTSTRAP_ADMIN.password));
      expect(wrong.status).toBe(412);
    });

    it('Bearer passes without the header (as Nextcloud)', async () => {
      const res = await t.http().get(`${WF}/user`).query({ format: 'json' }).set(U());
      expect(res.status).toBe(200);
    });

    it('answers XML unless JSON is asked for', async () => {
      const res = await t.http().get(`${WF}/user`).set('OCS-APIRequest', 'true').set(U());
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/xml/);
      expect(res.text).toContain('<statuscode>200</statuscode>');
      const json = await t
        .http()
        .get(`${WF}/user`)
        .set('OCS-APIRequest', 'true')
        .set('Accept', 'application/json')
        .set(U());
      expect(json.body.ocs.meta).toEqual({ status: 'ok', statuscode: 200, message: 'OK' });
    });
  });

  describe('password confirmation (error table step 4)', () => {
    it('a cookie session without a confirmation → 403 on create/update/delete, 200 on reads; /login/confirm renews it', async () => {
      const session = await t.factories.token(alice.user, { loginType: 'password', name: 'browser-1' });
      const cookie = { Cookie: `service_session_token=${session}` };
      expect((await ocs(t, 'get', `${WF}/user`, cookie)).status).toBe(200);
      expect((await ocs(t, 'get', `${WF}/user/1`, cookie)).status).toBe(200);
      expectFailure(
        await ocs(t, 'post', `${WF}/user`, cookie, notifyRule()),
        403,
        403,
        'Password confirmation is required',
      );
      expectFailure(
        await ocs(t, 'put', `${WF}/user/1`, cookie, notifyRule()),
        403,
        403,
        'Password confirmation is required',
      );
      expectFailure(
        await ocs(t, 'delete', `${WF}/user/1`, cookie),
        403,
        403,
        'Password confirmation is required',
      );

      const wrong = await t.http().post('/login/confirm').set(cookie).send({ password: 'nope' });
      expect(wrong.status).toBe(403);
      expect(wrong.body).toEqual([]);
      const missing = await t.http().post('/login/confirm').set(cookie).send({});
      expect(missing.status).toBe(403);

      const before = Math.floor(Date.now() / 1000);
      const confirmed = await t.http().post('/login/confirm').set(cookie).send({ password: alice.password });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.lastLogin).toBeGreaterThanOrEqual(before);

      const created = await ocs(t, 'post', `${WF}/user`, cookie, notifyRule());
      expect(created.status).toBe(200);
      const id = created.body.ocs.data.id as number;
      expect((await ocs(t, 'put', `${WF}/user/${id}`, cookie, notifyRule())).status).toBe(200);
      expect((await ocs(t, 'delete', `${WF}/user/${id}`, cookie)).status).toBe(200);
    });

    it('the CSRF check (412) comes before the password confirmation (403)', async () => {
      const session = await t.factories.token(alice.user, { loginType: 'password', name: 'browser-3' });
      const res = await t
        .http()
        .post(`${WF}/user`)
        .query({ format: 'json' })
        .set('Cookie', `service_session_token=${session}`)
        .send(notifyRule());
      expect(res.status).toBe(412);
      expect(res.body).toEqual({ message: 'CSRF check failed' });
    });

    it('a stale confirmation (older than 30 minutes) is refused', async () => {
      const session = await t.factories.token(alice.user, { loginType: 'password', name: 'browser-2' });
      await t.dataSource.query(
        `UPDATE api_tokens SET password_confirmed_at = now() - interval '31 minutes' WHERE id = $1`,
        [session.split('-')[0]],
      );
      const res = await ocs(
        t,
        'post',
        `${WF}/user`,
        { Cookie: `service_session_token=${session}` },
        notifyRule(),
      );
      expectFailure(res, 403, 403, 'Password confirmation is required');
      await t.dataSource.query(
        `UPDATE api_tokens SET password_confirmed_at = now() - interval '29 minutes' WHERE id = $1`,
        [session.split('-')[0]],
      );
      const ok = await ocs(
        t,
        'post',
        `${WF}/user`,
        { Cookie: `service_session_token=${session}` },
        notifyRule(),
      );
      expect(ok.status).toBe(200);
    });

    it('Basic password, Basic token and token headers always pass', async () => {
      for (const auth of [
        { Authorization: basic(alice.user.name, alice.password) },
        { Authorization: basic(alice.user.name, alice.token) },
        { 'Service-Session-Token': alice.token },
        U(),
      ]) {
        const res = await ocs(t, 'post', `${WF}/user`, auth, notifyRule());
        expect(res.status).toBe(200);
      }
    });

    it('a real login counts as a confirmation: its cookie may create at once', async () => {
      const login = await t
        .http()
        .post('/api/v2/users/login')
        .send({ email: alice.user.email, password: alice.password });
      expect(login.status).toBe(201);
      const cookie = { Cookie: `service_session_token=${login.body.session_token}` };
      const created = await ocs(t, 'post', `${WF}/user`, cookie, notifyRule());
      expect(created.status).toBe(200);
      expect((await ocs(t, 'delete', `${WF}/user/${created.body.ocs.data.id}`, cookie)).body.ocs.data).toBe(
        true,
      );
    });

    it('/login/confirm without credentials → 401; with Basic → 200', async () => {
      expect((await t.http().post('/login/confirm').send({ password: 'x' })).status).toBe(401);
      const res = await t
        .http()
        .post('/login/confirm')
        .set('Authorization', basic(alice.user.name, alice.password))
        .send({ password: alice.password });
      expect(res.status).toBe(200);
      expect(typeof res.body.lastLogin).toBe('number');
    });
  });

  describe('shapes', () => {
    it('empty index → {}', async () => {
      const res = await ocs(t, 'get', `${WF}/user`, bearer(bob.token));
      expect(res.status).toBe(200);
      expect(res.body.ocs.data).toEqual({});
    });

    it('the index is rendered once per rule change: same body and ETag, 304 on If-None-Match, new after a write (JSON and XML)', async () => {
      const owner = await t.factories.user();
      const auth = bearer(owner.token);
      await ocs(t, 'post', `${WF}/user`, auth, notifyRule({ name: 'first' })).expect(200);
      const first = await ocs(t, 'get', `${WF}/user`, auth).expect(200);
      const again = await ocs(t, 'get', `${WF}/user`, auth).expect(200);
      expect(first.headers.etag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(again.text).toBe(first.text);
      expect(first.headers['content-type']).toMatch(/^application\/json/);
      const notModified = await ocs(t, 'get', `${WF}/user`, auth).set('If-None-Match', first.headers.etag!);
      expect(notModified.status).toBe(304);
      const xml = await t.http().get(`${WF}/user`).set('OCS-APIRequest', 'true').set(auth).expect(200);
      expect(xml.headers['content-type']).toMatch(/^application\/xml/);
      expect(xml.text).toContain('<name>first</name>');
      expect(xml.headers.etag).not.toBe(first.headers.etag);
      await ocs(t, 'post', `${WF}/user`, auth, notifyRule({ name: 'second' })).expect(200);
      const after = await ocs(t, 'get', `${WF}/user`, auth).expect(200);
      expect(after.headers.etag).not.toBe(first.headers.etag);
      expect(after.body.ocs.data[NOTIFY].map((rule: { name: string }) => rule.name)).toEqual([
        'first',
        'second',
      ]);
      const stale = await ocs(t, 'get', `${WF}/user`, auth).set('If-None-Match', first.headers.etag!);
      expect(stale.status).toBe(200);
      const xmlAfter = await t.http().get(`${WF}/user`).set('OCS-APIRequest', 'true').set(auth).expect(200);
      expect(xmlAfter.text).toContain('<name>second</name>');
    });

    it('create returns the rule without scope fields; index and show add them; destroy → true', async () => {
      const created = await ocs(t, 'post', `${WF}/global`, A(), accessRule());
      expect(created.status).toBe(200);
      expect(created.body.ocs.meta).toEqual({ status: 'ok', statuscode: 200, message: 'OK' });
      const rule = created.body.ocs.data;
      expect(Object.keys(rule)).toEqual([
        'id',
        'class',
        'name',
        'checks',
        'operation',
        'entity',
        'events',
        'description',
      ]);
      expect(rule).toEqual({
        id: expect.any(Number),
        class: ACCESS,
        name: 'No exe',
        checks: [check('FileName', 'matches', '/\\.exe$/i')],
        operation: 'deny',
        entity: FILE,
        events: [],
        description: '',
      });
      const index = await ocs(t, 'get', `${WF}/global`, A());
      expect(index.body.ocs.data[ACCESS]).toContainEqual({ ...rule, scope_type: 0, scope_actor_id: '' });
      const shown = await ocs(t, 'get', `${WF}/global/${rule.id}`, A());
      expect(shown.body.ocs.data).toEqual({ ...rule, scope_type: 0, scope_actor_id: '' });
      const byClass = await ocs(t, 'get', `${WF}/global/${encodeURIComponent(ACCESS)}`, A());
      expect(byClass.body.ocs.data).toContainEqual({ ...rule, scope_type: 0, scope_actor_id: '' });
      const deleted = await ocs(t, 'delete', `${WF}/global/${rule.id}`, A());
      expect(deleted.status).toBe(200);
      expect(deleted.body.ocs.data).toBe(true);
      const gone = await ocs(t, 'get', `${WF}/global/${rule.id}`, A());
      expect(gone.body.ocs.data).toEqual([]);
    });

    it('user rules carry scope_type 1 and the username; scopes do not see each other', async () => {
      const carol = await t.factories.user();
      const mine = (
        await ocs(t, 'post', `${WF}/user`, bearer(carol.token), notifyRule({ description: 'hello' }))
      ).body.ocs.data;
      expect(mine.description).toBe('hello');
      const global = (await ocs(t, 'post', `${WF}/global`, A(), accessRule())).body.ocs.data;
      const index = await ocs(t, 'get', `${WF}/user`, bearer(carol.token));
      expect(index.body.ocs.data).toEqual({
        [NOTIFY]: [{ ...mine, scope_type: 1, scope_actor_id: carol.user.name }],
      });
      // Other users and the admin's global index do not see it; the user does not see global rules.
      expect((await ocs(t, 'get', `${WF}/user/${mine.id}`, bearer(bob.token))).body.ocs.data).toEqual([]);
      expect((await ocs(t, 'get', `${WF}/global/${mine.id}`, A())).body.ocs.data).toEqual([]);
      expect((await ocs(t, 'get', `${WF}/user/${global.id}`, bearer(carol.token))).body.ocs.data).toEqual([]);
      const adminIndex = (await ocs(t, 'get', `${WF}/global`, A())).body.ocs.data;
      expect(JSON.stringify(adminIndex)).not.toContain(`"id":${mine.id},`);
      // An admin has a user scope of their own.
      expect((await ocs(t, 'get', `${WF}/user`, A())).body.ocs.data).toEqual({});
      // Show by class in the user scope.
      expect(
        (await ocs(t, 'get', `${WF}/user/${encodeURIComponent(NOTIFY)}`, bearer(carol.token))).body.ocs.data,
      ).toHaveLength(1);
      expect(
        (await ocs(t, 'get', `${WF}/user/${encodeURIComponent(ACCESS)}`, bearer(carol.token))).body.ocs.data,
      ).toEqual([]);
    });

    it('index groups by class in id order', async () => {
      const dave = await t.factories.user();
      const auth = bearer(dave.token);
      const first = (await ocs(t, 'post', `${WF}/user`, auth, notifyRule({ name: 'one' }))).body.ocs.data;
      const hook = (
        await ocs(t, 'post', `${WF}/user`, auth, {
          ...notifyRule({ name: 'hook' }),
          class: WEBHOOK,
          operation: '{"url":"https://example.com/hook"}',
        })
      ).body.ocs.data;
      const second = (await ocs(t, 'post', `${WF}/user`, auth, notifyRule({ name: 'two' }))).body.ocs.data;
      const index = (await ocs(t, 'get', `${WF}/user`, auth)).body.ocs.data;
      expect(Object.keys(index)).toEqual([NOTIFY, WEBHOOK]);
      expect(index[NOTIFY].map((r: { id: number }) => r.id)).toEqual([first.id, second.id]);
      expect(index[WEBHOOK][0].id).toBe(hook.id);
    });

    it('update replaces fields, keeps the class, ignores class/id/extra keys, clears description when left out', async () => {
      const created = (await ocs(t, 'post', `${WF}/user`, U(), notifyRule({ description: 'keep?' }))).body.ocs
        .data;
      const res = await ocs(t, 'put', `${WF}/user/${created.id}`, U(), {
        ...notifyRule({ name: 'renamed', events: [UPDATED, CREATED] }),
        class: WEBHOOK,
        id: 999,
        valid: true,
        checks: [{ ...check('FileSize', 'greater', '1 MB'), id: 5, invalid: false }],
        description: undefined,
      });
      expect(res.status).toBe(200);
      expect(res.body.ocs.data).toEqual({
        id: created.id,
        class: NOTIFY,
        name: 'renamed',
        checks: [check('FileSize', 'greater', '1 MB')],
        operation: '{"inscription":"A PDF arrived"}',
        entity: FILE,
        events: [UPDATED, CREATED],
        description: '',
      });
      const shown = (await ocs(t, 'get', `${WF}/user/${created.id}`, U())).body.ocs.data;
      expect(shown.name).toBe('renamed');
      expect(shown.class).toBe(NOTIFY);
    });

    it('identical checks collapse and share one flow_checks row across rules; operators are returned as sent', async () => {
      const c = check('FileName', 'match', '/shared-check-value/');
      const one = (
        await ocs(
          t,
          'post',
          `${WF}/user`,
          U(),
          notifyRule({ checks: [c, c, check('FileName', '!match', '/x/')] }),
        )
      ).body.ocs.data;
      expect(one.checks).toEqual([c, check('FileName', '!match', '/x/')]);
      await ocs(t, 'post', `${WF}/user`, bearer(bob.token), notifyRule({ checks: [c] }));
      const rows = await t.dataSource.query(
        `SELECT id FROM flow_checks WHERE value = '/shared-check-value/'`,
      );
      expect(rows).toHaveLength(1);
    });

    it('rules created at once with the same new checks all succeed, share the check rows and keep the order sent', async () => {
      const first = check('FileName', 'matches', '/concurrent-a/');
      const second = check('FileSize', 'greater', '7 MB');
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          ocs(
            t,
            'post',
            `${WF}/user`,
            U(),
            notifyRule({ name: `at once ${index}`, checks: index % 2 ? [second, first] : [first, second] }),
          ),
        ),
      );
      expect(answers.map((res) => res.status)).toEqual(Array(8).fill(200));
      answers.forEach((res, index) =>
        expect(res.body.ocs.data.checks).toEqual(index % 2 ? [second, first] : [first, second]),
      );
      const rows = await t.dataSource.query(
        `SELECT id FROM flow_checks WHERE value IN ('/concurrent-a/', '7 MB') AND operator IN ('matches', 'greater')`,
      );
      expect(rows).toHaveLength(2);
      for (const [index, res] of answers.entries()) {
        const shown = (await ocs(t, 'get', `${WF}/user/${res.body.ocs.data.id}`, U())).body.ocs.data;
        expect(shown.checks).toEqual(index % 2 ? [second, first] : [first, second]);
      }
    });

    it('rules whose operation class is no longer registered are left out of index and show', async () => {
      const frank = await t.factories.user();
      const rows: { id: number }[] = await t.dataSource.query(
        `INSERT INTO flow_operations (class, name, checks, operation, entity, events) VALUES ('OCA\\Gone\\Operation', 'old', '[]', '', $1, $2) RETURNING id`,
        [FILE, JSON.stringify([CREATED])],
      );
      await t.dataSource.query(
        'INSERT INTO flow_operations_scope (operation_id, type, value) VALUES ($1, 1, $2)',
        [rows[0]!.id, frank.user.id],
      );
      // A direct SQL write is not announced: drop the cache as a change through the API would.
      t.app.get(RuleStore).invalidate();
      expect((await ocs(t, 'get', `${WF}/user`, bearer(frank.token))).body.ocs.data).toEqual({});
      expect((await ocs(t, 'get', `${WF}/user/${rows[0]!.id}`, bearer(frank.token))).body.ocs.data).toEqual(
        [],
      );
      // It is still in the user's scope: update validates (400), delete works.
      expectFailure(
        await ocs(t, 'put', `${WF}/user/${rows[0]!.id}`, bearer(frank.token), notifyRule()),
        400,
        400,
        'Operation OCA\\Gone\\Operation does not exist',
      );
      expect((await ocs(t, 'delete', `${WF}/user/${rows[0]!.id}`, bearer(frank.token))).body.ocs.data).toBe(
        true,
      );
    });

    it('many checks are stored in request order (one round trip), existing rows reused', async () => {
      const checks = Array.from({ length: 150 }, (_, i) => check('FileName', 'is', `many-${149 - i}.txt`));
      const res = await ocs(
        t,
        'post',
        `${WF}/user`,
        U(),
        notifyRule({ checks: [check('FileName', 'match', '/shared-check-value/'), ...checks] }),
      );
      expect(res.status).toBe(200);
      expect(res.body.ocs.data.checks).toEqual([
        check('FileName', 'match', '/shared-check-value/'),
        ...checks,
      ]);
      const shown = (await ocs(t, 'get', `${WF}/user/${res.body.ocs.data.id}`, U())).body.ocs.data;
      expect(shown.checks).toEqual(res.body.ocs.data.checks);
    });

    it('lone UTF-16 surrogates are stored as U+FFFD and answered as stored', async () => {
      const created = await ocs(
        t,
        'post',
        `${WF}/user`,
        U(),
        notifyRule({
          name: 'a\ud800b',
          description: '\udfff',
          checks: [check('FileName', 'is', 'x\udc00.txt')],
        }),
      );
      expect(created.status).toBe(200);
      expect(created.body.ocs.data).toMatchObject({
        name: 'a\ufffdb',
        description: '\ufffd',
        checks: [check('FileName', 'is', 'x\ufffd.txt')],
      });
      const shown = (await ocs(t, 'get', `${WF}/user/${created.body.ocs.data.id}`, U())).body.ocs.data;
      expect(shown).toEqual({ ...created.body.ocs.data, scope_type: 1, scope_actor_id: alice.user.name });
    });

    it('duplicate rules are allowed', async () => {
      const a = await ocs(t, 'post', `${WF}/user`, U(), notifyRule({ name: 'dup' }));
      const b = await ocs(t, 'post', `${WF}/user`, U(), notifyRule({ name: 'dup' }));
      expect(a.body.ocs.data.id).not.toBe(b.body.ocs.data.id);
    });
  });

  describe('scope on update and delete (error table step 6)', () => {
    let globalId: number;
    let bobsId: number;
    beforeAll(async () => {
      globalId = (await ocs(t, 'post', `${WF}/global`, A(), accessRule())).body.ocs.data.id;
      bobsId = (await ocs(t, 'post', `${WF}/user`, bearer(bob.token), notifyRule())).body.ocs.data.id;
    });

    const notInScope = 'Target operation not within scope';
    it.each([
      ['a global id', () => `${WF}/user/${globalId}`],
      ["another user's id", () => `${WF}/user/${bobsId}`],
      ['an unknown id', () => `${WF}/user/987654`],
      ['a non-numeric id', () => `${WF}/user/abc`],
      ['an id out of int range', () => `${WF}/user/99999999999`],
    ])('PUT and DELETE on %s → 403', async (_name, path) => {
      expectFailure(await ocs(t, 'put', path(), U(), notifyRule()), 403, 403, notInScope);
      expectFailure(await ocs(t, 'delete', path(), U()), 403, 403, notInScope);
    });

    it('admin /global on a user rule → 403', async () => {
      expectFailure(await ocs(t, 'put', `${WF}/global/${bobsId}`, A(), accessRule()), 403, 403, notInScope);
      expectFailure(await ocs(t, 'delete', `${WF}/global/${bobsId}`, A()), 403, 403, notInScope);
    });

    it('a second DELETE → 403', async () => {
      const id = (await ocs(t, 'post', `${WF}/user`, U(), notifyRule())).body.ocs.data.id;
      expect((await ocs(t, 'delete', `${WF}/user/${id}`, U())).status).toBe(200);
      expectFailure(await ocs(t, 'delete', `${WF}/user/${id}`, U()), 403, 403, notInScope);
    });

    it('a malformed body on update is a 400 before the scope check', async () => {
      expectFailure(
        await ocs(t, 'put', `${WF}/user/${bobsId}`, U(), { name: 'x' }),
        400,
        400,
        'Parameter "checks" is missing or has the wrong type',
      );
    });
  });

  describe('validation (error table steps 5 and 7, in Nextcloud order)', () => {
    const badShapes: [string, Record<string, unknown>, string][] = [
      ['no body', {}, 'class'],
      ['class missing', { class: undefined }, 'class'],
      ['class not a string', { class: 5 }, 'class'],
      ['name null', { name: null }, 'name'],
      ['checks missing', { checks: undefined }, 'checks'],
      ['checks a string', { checks: 'x' }, 'checks'],
      ['operation missing', { operation: undefined }, 'operation'],
      ['entity a number', { entity: 1 }, 'entity'],
      ['events missing', { events: undefined }, 'events'],
      ['events with a number', { events: [1] }, 'events'],
      ['description a number', { description: 3 }, 'description'],
    ];
    it.each(badShapes)('%s → 400', async (name, override, field) => {
      const body = name === 'no body' ? undefined : { ...notifyRule(), ...override };
      const res = await ocs(t, 'post', `${WF}/user`, U(), body);
      expectFailure(res, 400, 400, `Parameter "${field}" is missing or has the wrong type`);
    });

    it('a JSON array body → 400', async () => {
      const res = await ocs(t, 'post', `${WF}/user`, U(), [1, 2]);
      expect(res.status).toBe(400);
    });

    const long = (n: number) => 'x'.repeat(n);
    const rows: [string, Record<string, unknown>, string | RegExp][] = [
      [
        'operation over 4096 bytes wins over a bad entity',
        { operation: long(4097), entity: 'nope' },
        'The provided operation data is too long',
      ],
      [
        'operation of 1366 × € (4098 bytes, 1366 characters)',
        { operation: '€'.repeat(1366) },
        'The provided operation data is too long',
      ],
      ['name of 86 × € (258 bytes)', { name: '€'.repeat(86) }, 'The provided name is too long'],
      [
        'name too long wins over an unknown class',
        { name: long(257), class: 'OCA\\Nope' },
        'The provided name is too long',
      ],
      [
        'a check value of 683 × € (2049 bytes)',
        { checks: [check('FileName', 'is', '€'.repeat(683))] },
        'The provided check value is too long',
      ],
      [
        'a too long check value wins over its unknown class',
        { checks: [check('Nope', 'is', long(2049))] },
        'The provided check value is too long',
      ],
      [
        'an unknown check class wins over a bad operator',
        { checks: [check('Nope', 'nonsense', '')] },
        'Check OCA\\WorkflowEngine\\Check\\Nope does not exist',
      ],
      [
        'no checks wins over a bad webhook',
        { class: WEBHOOK, operation: '{}', checks: [] },
        'At least one check needs to be provided',
      ],
      [
        'a bad webhook wins over a bad check',
        { class: WEBHOOK, operation: '{}', checks: [check('Nope', 'is', '')] },
        'The webhook configuration is invalid',
      ],
      ['unknown operation class', { class: 'OCA\\Nope' }, 'Operation OCA\\Nope does not exist'],
      ['an entity class as operation', { class: FILE }, `Operation ${FILE} is invalid`],
      ['access control in the user scope', { class: ACCESS, events: [] }, `Operation ${ACCESS} is invalid`],
      ['unknown entity', { entity: 'OCA\\Nope\\Entity' }, 'Entity OCA\\Nope\\Entity does not exist'],
      ['an operation class as entity', { entity: NOTIFY }, `Entity ${NOTIFY} is invalid`],
      ['no events for a non-complex operation', { events: [] }, 'No events are chosen.'],
      [
        'an event of another entity',
        { events: [CREATED, 'OCA\\Devplane\\Events\\BranchCreatedEvent'] },
        `Entity ${FILE} has no event OCA\\Devplane\\Events\\BranchCreatedEvent`,
      ],
      [
        'an old Nextcloud event name',
        { events: ['\\OCP\\Files::postCreate'] },
        `Entity ${FILE} has no event \\OCP\\Files::postCreate`,
      ],
      ['no checks', { checks: [] }, 'At least one check needs to be provided'],
      ['a check that is not an object', { checks: ['x'] }, 'Invalid check provided'],
      ['a check without class', { checks: [{ operator: 'is', value: 'a' }] }, 'Invalid check provided'],
      [
        'a check with a numeric value',
        { checks: [{ class: check('FileName', 'is', '').class, operator: 'is', value: 5 }] },
        'Invalid check provided',
      ],
      [
        'a check value over 2048 bytes',
        { checks: [check('FileName', 'is', long(2049))] },
        'The provided check value is too long',
      ],
      [
        'an unknown check class',
        { checks: [check('FileSystemTags', 'is', '1')] },
        'Check OCA\\WorkflowEngine\\Check\\FileSystemTags does not exist',
      ],
      [
        'an operation class as check',
        { checks: [{ class: NOTIFY, operator: 'is', value: '' }] },
        `Check ${NOTIFY} is invalid`,
      ],
      [
        'a File check with the Branch entity',
        { entity: BRANCH, events: ['OCA\\Devplane\\Events\\BranchCreatedEvent'] },
        'Check OCA\\WorkflowEngine\\Check\\FileName is not allowed with this entity',
      ],
      ['a bad operator', { checks: [check('FileName', 'less', 'a')] }, 'The given operator is invalid'],
      [
        'a missing operator',
        { checks: [{ class: check('FileName', 'is', '').class, value: 'a' }] },
        'The given operator is invalid',
      ],
      [
        'a bad regex',
        { checks: [check('FileName', 'matches', 'abc')] },
        'The given regular expression is invalid',
      ],
      ['a bad size', { checks: [check('FileSize', 'less', '5M')] }, 'The given file size is invalid'],
      [
        'a bad IP range',
        { checks: [check('RequestRemoteAddress', 'matchesIPv4', '127.0.0.1')] },
        'The given IP range is invalid',
      ],
      [
        'a bad time span',
        { checks: [check('RequestTime', 'in', '["8:00 Europe/Berlin","17:00 Europe/Berlin"]')] },
        'The given time span is invalid',
      ],
      [
        'an unknown group',
        { checks: [check('UserGroupMembership', 'is', 'no-such-group')] },
        'The given group does not exist',
      ],
      [
        'the second check is bad',
        { checks: [check('FileName', 'is', 'a'), check('FileSize', 'is', '1 KB')] },
        'The given operator is invalid',
      ],
      ['a webhook without url', { class: WEBHOOK, operation: '{}' }, 'The webhook configuration is invalid'],
      [
        'a webhook with ftp',
        { class: WEBHOOK, operation: '{"url":"ftp://example.com/x"}' },
        'The webhook URL is invalid',
      ],
      [
        'a webhook to loopback',
        { class: WEBHOOK, operation: '{"url":"http://127.0.0.1:9/x"}' },
        'The webhook URL points to a private address',
      ],
      [
        'a webhook to localhost',
        { class: WEBHOOK, operation: '{"url":"http://localhost/x"}' },
        'The webhook URL points to a private address',
      ],
      [
        'a webhook to localhost. (fully qualified)',
        { class: WEBHOOK, operation: '{"url":"http://localhost./x"}' },
        'The webhook URL points to a private address',
      ],
      [
        'a webhook to an IPv4-mapped loopback',
        { class: WEBHOOK, operation: '{"url":"http://[::ffff:127.0.0.1]/x"}' },
        'The webhook URL points to a private address',
      ],
      [
        'a webhook to the metadata address',
        { class: WEBHOOK, operation: '{"url":"http://169.254.169.254/latest"}' },
        'The webhook URL points to a private address',
      ],
      [
        'a webhook to a decimal loopback',
        { class: WEBHOOK, operation: '{"url":"http://2130706433/x"}' },
        'The webhook URL points to a private address',
      ],
      [
        'a webhook configuration that is not an object',
        { class: WEBHOOK, operation: '["https://example.com"]' },
        'The webhook configuration is invalid',
      ],
      [
        'a webhook with a numeric secret',
        { class: WEBHOOK, operation: '{"url":"https://example.com","secret":5}' },
        'The webhook configuration is invalid',
      ],
    ];
    it.each(rows)('%s → 400', async (_name, override, message) => {
      const res = await ocs(t, 'post', `${WF}/user`, U(), { ...notifyRule(), ...override });
      expect(res.status).toBe(400);
      expect(res.body.ocs.meta.statuscode).toBe(400);
      expect(res.body.ocs.meta.message).toEqual(message);
    });

    describe('spec error table, 400 row: a check or a check value is invalid, on create and update in both scopes', () => {
      let globalId: number;
      let userId: number;
      beforeAll(async () => {
        globalId = (await ocs(t, 'post', `${WF}/global`, A(), accessRule())).body.ocs.data.id;
        userId = (await ocs(t, 'post', `${WF}/user`, U(), notifyRule())).body.ocs.data.id;
      });
      const badChecks: [string, unknown, string][] = [
        [
          'an unknown check',
          check('NoSuchCheck', 'is', 'a'),
          'Check OCA\\WorkflowEngine\\Check\\NoSuchCheck does not exist',
        ],
        ['a bad check value', check('FileSize', 'less', 'huge'), 'The given file size is invalid'],
        [
          'a check value over 2048 bytes',
          check('FileName', 'is', '€'.repeat(683)),
          'The provided check value is too long',
        ],
      ];
      const routes: [
        string,
        'post' | 'put',
        () => string,
        (o: Record<string, unknown>) => Record<string, unknown>,
        () => Record<string, string>,
      ][] = [
        ['create global', 'post', () => `${WF}/global`, accessRule, A],
        ['create user', 'post', () => `${WF}/user`, notifyRule, U],
        ['update global', 'put', () => `${WF}/global/${globalId}`, accessRule, A],
        ['update user', 'put', () => `${WF}/user/${userId}`, notifyRule, U],
      ];
      const table = routes.flatMap(([name, method, path, body, auth]) =>
        badChecks.map(
          ([badName, bad, message]) => [name, badName, method, path, body, auth, bad, message] as const,
        ),
      );
      it.each(table)('%s with %s → 400', async (_route, _bad, method, path, body, auth, bad, message) => {
        expectFailure(
          await ocs(t, method, path(), auth(), body({ checks: [check('FileName', 'is', 'ok'), bad] })),
          400,
          400,
          message,
        );
      });
      it('a failed update changes nothing', async () => {
        const shown = (await ocs(t, 'get', `${WF}/user/${userId}`, U())).body.ocs.data;
        expect(shown.checks).toEqual(notifyRule().checks);
      });
    });

    it('notifications in the global scope → Operation … is invalid', async () => {
      const res = await ocs(t, 'post', `${WF}/global`, A(), notifyRule());
      expectFailure(res, 400, 400, `Operation ${NOTIFY} is invalid`);
    });

    it('update validates with the stored class (access control needs no events)', async () => {
      const id = (await ocs(t, 'post', `${WF}/global`, A(), accessRule())).body.ocs.data.id;
      const res = await ocs(t, 'put', `${WF}/global/${id}`, A(), {
        ...accessRule({ checks: [] }),
        class: NOTIFY,
      });
      expectFailure(res, 400, 400, 'At least one check needs to be provided');
    });

    it('accepted edge cases: 85 × € name, 4096-byte operation, 2048-byte value, access control with events, groups', async () => {
      const org = await t.factories.organization();
      await t.factories.team(org, 'devs');
      const ok = [
        notifyRule({ name: '€'.repeat(85) }),
        notifyRule({ operation: long(4096) }),
        notifyRule({ checks: [check('FileName', 'is', long(2048))] }),
        notifyRule({ checks: [check('UserGroupMembership', 'is', org.name.toUpperCase())] }),
        notifyRule({ checks: [check('UserGroupMembership', '!is', `${org.name}/devs`)] }),
        notifyRule({ checks: [check('UserGroupMembership', 'is', 'admin')] }),
        notifyRule({ checks: [check('RequestURL', 'is', 'webdav')] }),
        notifyRule({ name: '', operation: '' }),
        notifyRule({
          entity: BRANCH,
          events: ['OCA\\Devplane\\Events\\BranchUpdatedEvent'],
          checks: [check('RequestUserAgent', 'is', 'desktop')],
        }),
      ];
      for (const body of ok) {
        const res = await ocs(t, 'post', `${WF}/user`, U(), body);
        expect([res.status, res.body.ocs.meta.message]).toEqual([200, 'OK']);
      }
      const withEvents = await ocs(
        t,
        'post',
        `${WF}/global`,
        A(),
        accessRule({ events: [CREATED, CREATED] }),
      );
      expect(withEvents.status).toBe(200);
      expect(withEvents.body.ocs.data.events).toEqual([CREATED, CREATED]);
      const badEvent = await ocs(t, 'post', `${WF}/global`, A(), accessRule({ events: ['nope'] }));
      expectFailure(badEvent, 400, 400, `Entity ${FILE} has no event nope`);
      const hook = await ocs(t, 'post', `${WF}/global`, A(), {
        ...notifyRule(),
        class: WEBHOOK,
        operation: '{"url":"https://hooks.example.com/x","secret":"s"}',
      });
      expect(hook.status).toBe(200);
    });
  });

  describe('catalogue', () => {
    it('401 without credentials, 412 without the header', async () => {
      expectFailure(await ocs(t, 'get', CATALOGUE, {}), 401, 997, 'Current user is not logged in');
      const res = await t.http().get(CATALOGUE).set('Authorization', basic(alice.user.name, alice.password));
      expect(res.status).toBe(412);
    });

    it('lists entities with events, checks with operators and formats, operations with scopes', async () => {
      const res = await ocs(t, 'get', CATALOGUE, U());
      expect(res.status).toBe(200);
      const data = res.body.ocs.data;
      expect(data.entities.map((e: { id: string }) => e.id)).toEqual([
        FILE,
        BRANCH,
        'OCA\\Devplane\\Entity\\Package',
        'OCA\\Devplane\\Entity\\User',
      ]);
      expect(data.entities[0].events).toContainEqual({
        eventName: CREATED,
        displayName: 'File created',
        emitted: true,
      });
      expect(data.entities[0].events).toHaveLength(7);
      const size = data.checks.find((c: { id: string }) => c.id === check('FileSize', '', '').class);
      expect(size).toMatchObject({
        operators: ['less', '!less', 'greater', '!greater'],
        supportedEntities: [FILE],
        scopes: [0, 1],
      });
      expect(data.checks).toHaveLength(8);
      expect(data.operations).toContainEqual(
        expect.objectContaining({
          id: ACCESS,
          scopes: [0],
          complex: true,
          triggerHint: 'File is accessed',
          entity: FILE,
        }),
      );
      expect(data.operations).toContainEqual(
        expect.objectContaining({ id: NOTIFY, scopes: [1], complex: false }),
      );
      expect(data.operations).toContainEqual(expect.objectContaining({ id: WEBHOOK, scopes: [0, 1] }));
      expect(data.operatorAliases).toEqual({ match: 'matches', '!match': '!matches' });
    });

    it('every event the catalogue lists is accepted by the validator (no drift)', async () => {
      const data = (await ocs(t, 'get', CATALOGUE, U())).body.ocs.data;
      for (const entity of data.entities as { id: string; events: { eventName: string }[] }[]) {
        const res = await ocs(
          t,
          'post',
          `${WF}/user`,
          U(),
          notifyRule({
            entity: entity.id,
            events: entity.events.map((e) => e.eventName),
            checks: [check('RequestUserAgent', 'is', 'x')],
          }),
        );
        expect([entity.id, res.status]).toEqual([entity.id, 200]);
      }
    });
  });

  describe('a renamed user', () => {
    it('scope_actor_id follows the new name (the scope stores the numeric id)', async () => {
      const gina = await t.factories.user();
      const id = (await ocs(t, 'post', `${WF}/user`, bearer(gina.token), notifyRule())).body.ocs.data.id;
      expect((await ocs(t, 'get', `${WF}/user/${id}`, bearer(gina.token))).body.ocs.data.scope_actor_id).toBe(
        gina.user.name,
      );
      const renamed = `${gina.user.name}-new`;
      await t.dataSource.query('UPDATE users SET name = $1, lower_name = $2 WHERE id = $3', [
        renamed,
        renamed.toLowerCase(),
        gina.user.id,
      ]);
      await t.app
        .get(EventBus)
        .emitAsync('user.renamed', { userId: gina.user.id, from: gina.user.name, to: renamed });
      expect((await ocs(t, 'get', `${WF}/user/${id}`, bearer(gina.token))).body.ocs.data.scope_actor_id).toBe(
        renamed,
      );
    });
  });

  describe('the rule cache follows changes without reloading every rule', () => {
    it("applies creates, updates and deletes in place; other users' indexes stay as rendered", async () => {
      const carol = await t.factories.user();
      const dave = await t.factories.user();
      await ocs(t, 'post', `${WF}/user`, bearer(carol.token), notifyRule({ name: 'carol 1' })).expect(200);
      const carolBefore = await ocs(t, 'get', `${WF}/user`, bearer(carol.token)).expect(200);
      const fullLoads = jest.spyOn(t.app.get(WorkflowRulesRepository), 'ruleRecords');
      try {
        const created = await ocs(
          t,
          'post',
          `${WF}/user`,
          bearer(dave.token),
          notifyRule({ name: 'dave 1' }),
        );
        const id = created.body.ocs.data.id as number;
        const daveIndex = await ocs(t, 'get', `${WF}/user`, bearer(dave.token)).expect(200);
        expect(daveIndex.body.ocs.data[NOTIFY]).toEqual([
          expect.objectContaining({ id, name: 'dave 1', scope_type: 1, scope_actor_id: dave.user.name }),
        ]);
        const carolAfter = await ocs(t, 'get', `${WF}/user`, bearer(carol.token)).expect(200);
        expect(carolAfter.headers.etag).toBe(carolBefore.headers.etag);
        expect(carolAfter.text).toBe(carolBefore.text);

        await ocs(t, 'put', `${WF}/user/${id}`, bearer(dave.token), notifyRule({ name: 'dave 2' })).expect(
          200,
        );
        expect((await ocs(t, 'get', `${WF}/user/${id}`, bearer(dave.token))).body.ocs.data.name).toBe(
          'dave 2',
        );
        await ocs(t, 'delete', `${WF}/user/${id}`, bearer(dave.token)).expect(200);
        expect((await ocs(t, 'get', `${WF}/user`, bearer(dave.token))).body.ocs.data).toEqual({});
        expect(fullLoads).not.toHaveBeenCalled();
      } finally {
        fullLoads.mockRestore();
      }
    });
  });

  describe('a deleted user', () => {
    it("takes the user's rules along", async () => {
      const erin = await t.factories.user();
      const id = (await ocs(t, 'post', `${WF}/user`, bearer(erin.token), notifyRule())).body.ocs.data.id;
      await t.app.get(EventBus).emitAsync('user.deleted', {
        userId: erin.user.id,
        uuid: erin.user.uuid,
        username: erin.user.name,
        purge: true,
        actorId: null,
      });
      const rows = await t.dataSource.query('SELECT id FROM flow_operations WHERE id = $1', [id]);
      expect(rows).toHaveLength(0);
    });
  });
});
