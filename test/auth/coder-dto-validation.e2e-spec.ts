import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../../src/modules/notifications/template-ids';

const BAD_JSON = 'Request body must be valid JSON.';

/**
 * Issue 10.1 (Coder dialect): request bodies and queries are class-validator DTOs; the Coder
 * formatter renders the constraint metadata as Coder does (Go decoder texts, validate tags,
 * QueryParamParser texts), and a rejected request changes nothing.
 */
describe('Coder DTO validation texts', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let member: CreatedUser;
  const as = (u: CreatedUser) => ({ 'Service-Session-Token': u.token });
  const json = { 'Content-Type': 'application/json' };

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.admin();
    member = await t.factories.user();
  });
  afterAll(() => t.close());

  it.each([
    ['[1,2]', 'json: cannot unmarshal array into Go value of type codersdk.LoginWithPasswordRequest'],
    [
      '{"email":5,"password":"x"}',
      'json: cannot unmarshal number into Go struct field LoginWithPasswordRequest.email of type string',
    ],
    [
      '{"email":"a@b.c","password":true}',
      'json: cannot unmarshal bool into Go struct field LoginWithPasswordRequest.password of type string',
    ],
    [
      '{"email":{},"password":"x"}',
      'json: cannot unmarshal object into Go struct field LoginWithPasswordRequest.email of type string',
    ],
  ])('login %s → 400 with Go decoder text', async (body, detail) => {
    const res = await t.http().post('/api/v2/users/login').set(json).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: BAD_JSON, detail });
  });

  it('validate tags in field order; unknown fields are ignored; no body decodes as {} on auth routes', async () => {
    const res = await t
      .http()
      .post('/api/v2/users/login')
      .send({ email: 'not-an-email', password: '', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'Validation failed.',
      validations: [
        { field: 'email', detail: 'Validation failed for tag "email" with value: "not-an-email"' },
        { field: 'password', detail: 'Validation failed for tag "required" with value: ""' },
      ],
    });
    const empty = await t.http().post('/api/v2/users/validate-password').set(as(member));
    expect(empty.status).toBe(400);
    expect(empty.body.validations).toEqual([
      { field: 'password', detail: 'Validation failed for tag "required" with value: ""' },
    ]);
  });

  it('nested structs: authcheck object and token allow_list name the inner Go struct', async () => {
    const check = await t
      .http()
      .post('/api/v2/authcheck')
      .set(as(member))
      .send({ checks: { k: { action: 'read', object: { resource_type: 'user', any_org: 'yes' } } } });
    expect(check.status).toBe(400);
    expect(check.body).toEqual({
      message: BAD_JSON,
      detail: 'json: cannot unmarshal string into Go struct field AuthorizationObject.any_org of type bool',
    });
    const ok = await t
      .http()
      .post('/api/v2/authcheck')
      .set(as(member))
      .send({ checks: { k: { action: 'read', object: { resource_type: 'user', owner_id: 'me' } } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ k: true });
    // A null check is Go's zero AuthorizationCheck: the handler's own resource_type text.
    const zero = await t
      .http()
      .post('/api/v2/authcheck')
      .set(as(member))
      .send({ checks: { k: null } });
    expect(zero.status).toBe(400);
    expect(zero.body).toEqual({ message: 'Object\'s "resource_type" field must be defined for key "k".' });

    const list = await t
      .http()
      .post('/api/v2/users/me/keys/tokens')
      .set(as(member))
      .send({ allow_list: 'x' });
    expect(list.status).toBe(400);
    expect(list.body).toEqual({
      message: BAD_JSON,
      detail:
        'json: cannot unmarshal string into Go struct field CreateTokenRequest.allow_list of type []codersdk.APIAllowListTarget',
    });
    const item = await t
      .http()
      .post('/api/v2/users/me/keys/tokens')
      .set(as(member))
      .send({ allow_list: [{ type: 5, id: '*' }] });
    expect(item.status).toBe(400);
    expect(item.body).toEqual({
      message: BAD_JSON,
      detail: 'json: cannot unmarshal number into Go struct field APIAllowListTarget.type of type string',
    });
    const scopes = await t
      .http()
      .post('/api/v2/users/me/keys/tokens')
      .set(as(member))
      .send({ scopes: ['workspace:read', 1] });
    // Go names the element type for a bad element.
    expect(scopes.body.detail).toBe(
      'json: cannot unmarshal number into Go struct field CreateTokenRequest.scopes of type string',
    );
    const keys = (await t.dataSource.query('SELECT count(*) AS n FROM api_tokens WHERE user_id = $1', [
      member.user.id,
    ])) as { n: string }[];
    expect(Number(keys[0]!.n)).toBe(1); // only the factory's token
  });

  it('token list query: booleans as QueryParamParser reads them', async () => {
    const bad = await t
      .http()
      .get('/api/v2/users/me/keys/tokens?include_all=maybe&include_expired=1')
      .set(as(member));
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      message: 'Query parameters have invalid values.',
      validations: [
        {
          field: 'include_expired',
          detail: 'Query param "include_expired" must be a valid boolean: invalid syntax',
        },
        { field: 'include_all', detail: 'Query param "include_all" must be a valid boolean: invalid syntax' },
      ],
    });
    for (const query of ['', '?include_all=', '?include_all=true&include_expired=false']) {
      expect((await t.http().get(`/api/v2/users/me/keys/tokens${query}`).set(as(member))).status).toBe(200);
    }
  });

  it('notifications: EOF without a body, Go texts for the wrong kinds, nothing stored', async () => {
    const settings = () =>
      t.dataSource.query(`SELECT value FROM site_configs WHERE key = 'notifications.settings'`);
    const before = await settings();
    const none = await t.http().put('/api/v2/notifications/settings').set(as(owner));
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ message: BAD_JSON, detail: 'EOF' });
    const array = await t
      .http()
      .put('/api/v2/notifications/settings')
      .set(as(owner))
      .set(json)
      .send('[true]');
    expect(array.body).toEqual({
      message: BAD_JSON,
      detail: 'json: cannot unmarshal array into Go value of type codersdk.NotificationsSettings',
    });
    const yes = await t
      .http()
      .put('/api/v2/notifications/settings')
      .set(as(owner))
      .send({ notifier_paused: 'yes' });
    expect(yes.body).toEqual({
      message: BAD_JSON,
      detail:
        'json: cannot unmarshal string into Go struct field NotificationsSettings.notifier_paused of type bool',
    });
    expect(await settings()).toEqual(before);

    const pref = await t
      .http()
      .put('/api/v2/users/me/notifications/preferences')
      .set(as(member))
      .send({ template_disabled_map: { [IDS.testNotification]: 'yes' } });
    expect(pref.body).toEqual({
      message: BAD_JSON,
      detail:
        'json: cannot unmarshal string into Go struct field UpdateUserNotificationPreferences.template_disabled_map of type bool',
    });
    const map = await t
      .http()
      .put('/api/v2/users/me/notifications/preferences')
      .set(as(member))
      .send({ template_disabled_map: [] });
    expect(map.body.detail).toBe(
      'json: cannot unmarshal array into Go struct field UpdateUserNotificationPreferences.template_disabled_map of type map[string]bool',
    );

    const custom = await t
      .http()
      .post('/api/v2/notifications/custom')
      .set(as(member))
      .send({ content: { title: 5 } });
    expect(custom.body).toEqual({
      message: BAD_JSON,
      detail:
        'json: cannot unmarshal number into Go struct field CustomNotificationContent.title of type string',
    });
    const content = await t
      .http()
      .post('/api/v2/notifications/custom')
      .set(as(member))
      .send({ content: 'x' });
    expect(content.body.detail).toBe(
      'json: cannot unmarshal string into Go struct field CustomNotificationRequest.content of type codersdk.CustomNotificationContent',
    );
    const status = await t
      .http()
      .put('/api/v2/notifications/inbox/00000000-0000-0000-0000-000000000001/read-status')
      .set(as(member))
      .send({ is_read: 1 });
    expect(status.body.detail).toBe(
      'json: cannot unmarshal number into Go struct field UpdateInboxNotificationReadStatusRequest.is_read of type bool',
    );
    const rows = (await t.dataSource.query(
      'SELECT count(*) AS n FROM notification_messages WHERE user_id = $1',
      [member.user.id],
    )) as {
      n: string;
    }[];
    expect(Number(rows[0]!.n)).toBe(0);
    expect(
      await t.dataSource.query('SELECT * FROM notification_preferences WHERE user_id = $1', [member.user.id]),
    ).toEqual([]);
  });

  it('inbox query DTO: value errors then unknown parameters in one list; first value wins; empty is absent; credentials allowed', async () => {
    const both = await t
      .http()
      .get('/api/v2/notifications/inbox?zeta=1&targets=abc,00000000-0000-0000-0000-000000000001,x&alpha=2')
      .set(as(member));
    expect(both.status).toBe(400);
    expect(both.body).toEqual({
      message: 'Query parameters have invalid values.',
      validations: [
        { field: 'targets', detail: 'Query param "targets" has invalid values: abc,x' },
        { field: 'zeta', detail: 'Query param "zeta" is not a valid query param' },
        { field: 'alpha', detail: 'Query param "alpha" is not a valid query param' },
      ],
    });
    // read_status is checked only when everything else is fine.
    const status = await t
      .http()
      .get('/api/v2/notifications/inbox?read_status=maybe&starting_before=nope')
      .set(as(member));
    expect(status.body.validations).toEqual([
      { field: 'starting_before', detail: 'Query param "starting_before" must be a valid uuid' },
    ]);
    const first = await t
      .http()
      .get('/api/v2/notifications/inbox?read_status=unread&read_status=bogus&targets=&templates=')
      .set(as(member));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ notifications: [], unread_count: 0 });
    const credential = await t
      .http()
      .get(`/api/v2/notifications/inbox?service_session_token=${member.token}`);
    expect(credential.status).toBe(200);
    const watch = await t
      .http()
      .get('/api/v2/notifications/inbox/watch?format=plaintext&starting_before=x')
      .set(as(member));
    expect(watch.status).toBe(400);
    expect(watch.body.validations).toEqual([
      { field: 'starting_before', detail: 'Query param "starting_before" is not a valid query param' },
    ]);
  });
});
