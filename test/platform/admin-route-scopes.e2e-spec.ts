import { createTestApp, type TestApp } from '../helpers/test-app';

/** Administrator routes refuse an administrator's token whose scopes do not reach administration. */
describe('administrator routes and token scopes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const globalRules = '/ocs/v2.php/apps/workflowengine/api/v1/workflows/global?format=json';
  const ocs = { 'OCS-APIRequest': 'true' };

  it.each<[string, string[], number, number]>([
    // scopes, GET status, POST status (a POST that gets past authorization answers 400: empty rule)
    ['all', ['all'], 200, 400],
    ['coder:all', ['coder:all'], 200, 400],
    ['write:admin', ['write:admin'], 200, 400],
    ['read:admin', ['read:admin'], 200, 403],
    ['workspace:read', ['workspace:read'], 403, 403],
    ['read:user', ['read:user'], 403, 403],
  ])('an administrator token with %s', async (_name, scopes, getStatus, postStatus) => {
    const admin = await t.factories.admin();
    const token = await t.factories.token(admin.user, { scopes, name: `t-${scopes.join('-')}` });
    const get = await t
      .http()
      .get(globalRules)
      .set({ ...ocs, Authorization: `Bearer ${token}` });
    expect(get.status).toBe(getStatus);
    const post = await t
      .http()
      .post(globalRules)
      .set({ ...ocs, Authorization: `Bearer ${token}` })
      .send({});
    expect(post.status).toBe(postStatus);
    if (postStatus === 403) expect(post.body.ocs.meta.message).toMatch(/required scope/);
  });

  it('a non-administrator still hears that the route is for administrators', async () => {
    const user = await t.factories.user();
    const res = await t
      .http()
      .get(globalRules)
      .set({ ...ocs, Authorization: `Bearer ${user.token}` });
    expect(res.status).toBe(403);
    expect(res.body.ocs.meta.message).toBe('Logged in account must be an admin');
  });

  it('an administrator signed in with a password is not limited by scopes', async () => {
    const admin = await t.factories.admin();
    const basic = `Basic ${Buffer.from(`${admin.user.name}:${admin.password}`).toString('base64')}`;
    expect(
      (
        await t
          .http()
          .get(globalRules)
          .set({ ...ocs, Authorization: basic })
      ).status,
    ).toBe(200);
  });
});
