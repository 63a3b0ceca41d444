import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { accessRule, bearer, CATALOGUE, notifyRule, ocs, WEBHOOK, WF } from '../workflows/helpers';

const CLOUD_USER = '/ocs/v2.php/cloud/user';
/** Issue 11.4's rule: a user-scope rule with a webhook. */
const webhookRule = () =>
  notifyRule({ class: WEBHOOK, name: 'exfiltrate', operation: '{"url":"https://hooks.example.com/x"}' });

/**
 * Issue 11.4 for the OCS routes: "a user:read token created a user-scope workflow rule with a webhook".
 * Every workflow route declares its scope (workflows README "Token scopes"): user rules need Gitea
 * `read|write:user` or Coder `user:read_personal|update_personal`; global rules Gitea `admin` or Coder
 * `deployment_config`. A refused write changes nothing.
 */
describe('issue 11.4: token scopes on the workflow routes', () => {
  let t: TestApp;
  let alice: CreatedUser;
  let admin: CreatedUser;
  let aliceRule: number;
  let globalRule: number;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user();
    admin = await t.factories.admin();
    aliceRule = (await ocs(t, 'post', `${WF}/user`, bearer(alice.token), notifyRule())).body.ocs.data.id;
    globalRule = (await ocs(t, 'post', `${WF}/global`, bearer(admin.token), accessRule())).body.ocs.data.id;
  });
  afterAll(() => t.close());

  const token = (user: CreatedUser, scopes: string[]) =>
    t.factories.token(user.user, { scopes, name: `t-${scopes.join('-')}-${Math.random()}` });
  const ruleCount = async () =>
    (await t.dataSource.query('SELECT count(*)::int AS n FROM flow_operations'))[0].n as number;

  it('the exact abuse: a user:read token cannot create a user-scope rule with a webhook (403, nothing stored)', async () => {
    const before = await ruleCount();
    const res = await ocs(t, 'post', `${WF}/user`, bearer(await token(alice, ['user:read'])), webhookRule());
    expect(res.status).toBe(403);
    expect(res.body.ocs.meta).toMatchObject({ status: 'failure', statuscode: 403 });
    expect(res.body.ocs.data).toEqual([]);
    expect(await ruleCount()).toBe(before);
  });

  it.each([['user:update_personal'], ['user:*'], ['write:user'], ['coder:all'], ['all']])(
    'a %s token may create the same rule',
    async (scope) => {
      const res = await ocs(t, 'post', `${WF}/user`, bearer(await token(alice, [scope])), webhookRule());
      expect([res.status, res.body.ocs.meta.message]).toEqual([200, 'OK']);
    },
  );

  type Route = ['get' | 'post' | 'put' | 'delete', () => string, (() => unknown) | undefined];
  const userWrites: Route[] = [
    ['post', () => `${WF}/user`, webhookRule],
    ['put', () => `${WF}/user/${aliceRule}`, webhookRule],
    ['delete', () => `${WF}/user/${aliceRule}`, undefined],
  ];
  const globalWrites: Route[] = [
    ['post', () => `${WF}/global`, accessRule],
    ['put', () => `${WF}/global/${globalRule}`, () => accessRule({ name: 'changed' })],
    ['delete', () => `${WF}/global/${globalRule}`, undefined],
  ];
  const narrow = [
    ['user:read'],
    ['read:user'],
    ['workspace:read'],
    ['user:read_personal'],
    ['read:admin'],
    ['notification_preference:update'],
  ];

  it.each(narrow)('every user-rule write route refuses a %s token and changes nothing', async (scope) => {
    const auth = bearer(await token(alice, [scope]));
    const before = JSON.stringify((await ocs(t, 'get', `${WF}/user`, bearer(alice.token))).body.ocs.data);
    for (const [method, path, body] of userWrites) {
      const res = await ocs(t, method, path(), auth, body?.());
      expect([method, res.status]).toEqual([method, 403]);
    }
    expect(JSON.stringify((await ocs(t, 'get', `${WF}/user`, bearer(alice.token))).body.ocs.data)).toBe(
      before,
    );
  });

  it.each([...narrow, ['write:user'], ['user:update_personal']])(
    'every global-rule write route refuses an administrator token with %s and changes nothing',
    async (scope) => {
      const auth = bearer(await token(admin, [scope]));
      const before = JSON.stringify((await ocs(t, 'get', `${WF}/global`, bearer(admin.token))).body.ocs.data);
      for (const [method, path, body] of globalWrites) {
        const res = await ocs(t, method, path(), auth, body?.());
        expect([method, res.status]).toEqual([method, 403]);
      }
      expect(JSON.stringify((await ocs(t, 'get', `${WF}/global`, bearer(admin.token))).body.ocs.data)).toBe(
        before,
      );
    },
  );

  it('the right scopes pass the write routes', async () => {
    for (const scope of ['user:update_personal', 'write:user']) {
      const auth = bearer(await token(alice, [scope]));
      const id = (await ocs(t, 'post', `${WF}/user`, auth, notifyRule())).body.ocs.data.id as number;
      expect((await ocs(t, 'put', `${WF}/user/${id}`, auth, notifyRule({ name: 'renamed' }))).status).toBe(
        200,
      );
      expect((await ocs(t, 'delete', `${WF}/user/${id}`, auth)).status).toBe(200);
    }
    for (const scope of ['write:admin', 'deployment_config:update']) {
      const auth = bearer(await token(admin, [scope]));
      const id = (await ocs(t, 'post', `${WF}/global`, auth, accessRule())).body.ocs.data.id as number;
      expect((await ocs(t, 'put', `${WF}/global/${id}`, auth, accessRule({ name: 'renamed' }))).status).toBe(
        200,
      );
      expect((await ocs(t, 'delete', `${WF}/global/${id}`, auth)).status).toBe(200);
    }
  });

  it.each<[string, string[], number]>([
    ['user:read_personal', ['user:read_personal'], 200],
    ['read:user', ['read:user'], 200],
    ['user:update_personal (no read)', ['user:update_personal'], 403],
    ['workspace:read', ['workspace:read'], 403],
  ])('reading the own rules and the catalogue with %s', async (_name, scopes, status) => {
    const auth = bearer(await token(alice, scopes));
    expect((await ocs(t, 'get', `${WF}/user`, auth)).status).toBe(status);
    expect((await ocs(t, 'get', `${WF}/user/${aliceRule}`, auth)).status).toBe(status);
    expect((await ocs(t, 'get', CATALOGUE, auth)).status).toBe(status);
  });

  it.each<[string, number]>([
    ['user:read', 200],
    ['read:user', 200],
    ['workspace:read', 403],
  ])('GET /ocs/v2.php/cloud/user with %s → %i', async (scope, status) => {
    expect((await ocs(t, 'get', CLOUD_USER, bearer(await token(alice, [scope])))).status).toBe(status);
  });

  it('/login/confirm refuses a token without a user write scope, and does not renew its confirmation', async () => {
    const narrowToken = await token(alice, ['user:read']);
    const res = await t
      .http()
      .post('/login/confirm')
      .set(bearer(narrowToken))
      .send({ password: alice.password });
    expect(res.status).toBe(403);
    const rows = await t.dataSource.query('SELECT password_confirmed_at FROM api_tokens WHERE id = $1', [
      narrowToken.split('-')[0],
    ]);
    expect(rows[0].password_confirmed_at).toBeNull();
    const ok = await t
      .http()
      .post('/login/confirm')
      .set(bearer(await token(alice, ['write:user'])))
      .send({ password: alice.password });
    expect(ok.status).toBe(200);
  });
});
