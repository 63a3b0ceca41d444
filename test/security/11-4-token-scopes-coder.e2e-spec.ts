import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../../src/modules/notifications/template-ids';
import { appEnv, messagesOf } from '../notifications/helpers';

const FORBIDDEN = {
  message: 'Forbidden.',
  detail:
    "You don't have permission to view this content. If you believe this is a mistake, please contact your administrator or try signing in with different credentials.",
};

/**
 * Issue 11.4 (Coder routes of auth, notifications and identity): every route declares the Coder
 * RBAC resource/action an API key's scopes must grant; narrow tokens of an owner get 403 and
 * change nothing, the right scope passes.
 */
describe('11.4 token scopes on the Coder routes', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let other: CreatedUser;
  const key = (token: string) => ({ 'Service-Session-Token': token });

  beforeAll(async () => {
    t = await createTestApp({ env: appEnv() });
    owner = await t.factories.admin();
    other = await t.factories.user();
  });
  afterAll(async () => {
    await t.dataSource.query(`DELETE FROM site_configs WHERE key = 'notifications.settings'`);
    await t.close();
  });

  const settingsRow = async () =>
    (await t.dataSource.query(
      `SELECT value FROM site_configs WHERE key = 'notifications.settings'`,
    )) as unknown[];
  const preferencesOf = async (user: CreatedUser) =>
    (await t.dataSource.query('SELECT * FROM notification_preferences WHERE user_id = $1', [
      user.user.id,
    ])) as unknown[];

  it("an owner's workspace:read token cannot pause the notifier (403, nothing stored); deployment_config:update can", async () => {
    const narrow = await t.factories.token(owner.user, { scopes: ['workspace:read'] });
    const before = await settingsRow();
    const res = await t
      .http()
      .put('/api/v2/notifications/settings')
      .set(key(narrow))
      .send({ notifier_paused: true });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await settingsRow()).toEqual(before);

    const right = await t.factories.token(owner.user, { scopes: ['deployment_config:update'] });
    const ok = await t
      .http()
      .put('/api/v2/notifications/settings')
      .set(key(right))
      .send({ notifier_paused: true });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ notifier_paused: true });
    const back = await t
      .http()
      .put('/api/v2/notifications/settings')
      .set(key(right))
      .send({ notifier_paused: false });
    expect(back.status).toBe(200);
  });

  it("an owner's workspace:read token cannot post the test notification; deployment_config:update can", async () => {
    const narrow = await t.factories.token(owner.user, { scopes: ['workspace:read'] });
    const before = (await messagesOf(t.dataSource, owner.user.id)).length;
    const res = await t.http().post('/api/v2/notifications/test').set(key(narrow));
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect((await messagesOf(t.dataSource, owner.user.id)).length).toBe(before);

    const right = await t.factories.token(owner.user, { scopes: ['deployment_config:update'] });
    expect((await t.http().post('/api/v2/notifications/test').set(key(right))).status).toBe(200);
    const after = await messagesOf(t.dataSource, owner.user.id);
    expect(after.some((row) => row.template_id === IDS.testNotification)).toBe(true);
  });

  it("an owner's workspace:read token cannot change another user's preferences; notification_preference:update can", async () => {
    const narrow = await t.factories.token(owner.user, { scopes: ['workspace:read'] });
    const body = { template_disabled_map: { [IDS.testNotification]: true } };
    const res = await t
      .http()
      .put(`/api/v2/users/${other.user.uuid}/notifications/preferences`)
      .set(key(narrow))
      .send(body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect(await preferencesOf(other)).toEqual([]);
    const read = await t
      .http()
      .get(`/api/v2/users/${other.user.uuid}/notifications/preferences`)
      .set(key(narrow));
    expect(read.status).toBe(403);

    const right = await t.factories.token(owner.user, { scopes: ['notification_preference:update'] });
    const ok = await t
      .http()
      .put(`/api/v2/users/${other.user.uuid}/notifications/preferences`)
      .set(key(right))
      .send(body);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual([expect.objectContaining({ id: IDS.testNotification, disabled: true })]);
  });

  it('a user:read token cannot send a custom notification; notification_message:create can', async () => {
    const narrow = await t.factories.token(other.user, { scopes: ['user:read'] });
    const before = (await messagesOf(t.dataSource, other.user.id)).length;
    const body = { content: { title: 'scoped', message: 'hello' } };
    const res = await t.http().post('/api/v2/notifications/custom').set(key(narrow)).send(body);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    expect((await messagesOf(t.dataSource, other.user.id)).length).toBe(before);

    const right = await t.factories.token(other.user, { scopes: ['notification_message:create'] });
    expect((await t.http().post('/api/v2/notifications/custom').set(key(right)).send(body)).status).toBe(204);
    expect((await messagesOf(t.dataSource, other.user.id)).length).toBeGreaterThan(before);
  });

  /** Every write route of these modules: [method, path, body, the scope that grants it]. */
  const WRITE_ROUTES: [string, string, object | undefined, string][] = [
    ['put', '/api/v2/notifications/settings', { notifier_paused: false }, 'deployment_config:update'],
    ['post', '/api/v2/notifications/test', undefined, 'deployment_config:update'],
    [
      'post',
      '/api/v2/notifications/custom',
      { content: { title: 't', message: 'm' } },
      'notification_message:create',
    ],
    ['put', '/api/v2/notifications/inbox/mark-all-as-read', undefined, 'inbox_notification:update'],
    [
      'put',
      '/api/v2/notifications/inbox/00000000-0000-0000-0000-000000000001/read-status',
      { is_read: true },
      'inbox_notification:update',
    ],
    [
      'put',
      '/api/v2/users/{self}/notifications/preferences',
      { template_disabled_map: {} },
      'notification_preference:update',
    ],
    ['post', '/api/v2/users/me/keys/tokens', { token_name: 'table' }, 'api_key:create'],
    ['delete', '/api/v2/users/me/keys/nonexistent1', undefined, 'api_key:delete'],
    ['put', '/api/v2/users/me/password', { password: '' }, 'user:update_personal'],
    ['post', '/api/v2/users/me/convert-login', { to_type: '', password: '' }, 'user:update_personal'],
    ['post', '/api/v2/users/logout', undefined, 'api_key:delete'],
  ];

  it.each(WRITE_ROUTES)(
    '%s %s: 403 for narrow tokens, passes the scope check with its own scope',
    async (method, path, body, scope) => {
      const user = await t.factories.admin();
      const url = path.replace('{self}', user.user.uuid);
      const call = (token: string) => {
        const req = (t.http() as unknown as Record<string, (url: string) => import('supertest').Test>)[
          method
        ]!(url).set(key(token));
        return body === undefined ? req : req.send(body);
      };
      for (const narrowScopes of [['workspace:read'], ['user:read'], ['template:read', 'file:read']]) {
        const narrow = await t.factories.token(user.user, { scopes: narrowScopes });
        const res = await call(narrow);
        expect({ scopes: narrowScopes, status: res.status, body: res.body }).toEqual({
          scopes: narrowScopes,
          status: 403,
          body: FORBIDDEN,
        });
      }
      const granted = await t.factories.token(user.user, { scopes: [scope] });
      const res = await call(granted);
      // Past the scope check: the route's own answer (success, 4xx validation or not found), never the scope 403.
      expect(res.body).not.toEqual(FORBIDDEN);
      expect(res.status).not.toBe(500);
    },
  );
});
