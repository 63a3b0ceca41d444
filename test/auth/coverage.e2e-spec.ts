import type { CreatedUser } from '../helpers/factories';
import { BOOTSTRAP_ADMIN, createTestApp, type TestApp } from '../helpers/test-app';

const SIGNED_OUT = 'You are signed out or your session has expired. Please sign in again to continue.';

/**
 * Reference A.4 / B / E statuses on the auth routes that the other files do not reach: every
 * credential failure on every authenticated route, bad credentials on public routes, body size,
 * deleted and suspended accounts, convert-login's login-type and suspension checks.
 */
describe('auth: credential coverage of the auth routes', () => {
  let t: TestApp;
  let alice: CreatedUser;

  const routes: [string, string, object | undefined][] = [
    ['post', '/api/v2/authcheck', { checks: {} }],
    ['post', '/api/v2/users/logout', undefined],
    ['post', '/api/v2/users/validate-password', { password: 'Some-Password-1!' }],
    ['post', '/api/v2/users/me/convert-login', { to_type: 'oidc', password: 'x' }],
    ['put', '/api/v2/users/me/password', { old_password: 'x', password: 'Some-Password-1!' }],
    ['post', '/api/v2/users/me/keys/tokens', {}],
    ['get', '/api/v2/users/me/keys/tokens', undefined],
    ['get', '/api/v2/users/me/keys/tokens/tokenconfig', undefined],
    ['get', '/api/v2/users/me/keys/tokens/some-name', undefined],
    ['get', '/api/v2/users/me/keys/abcdefghij', undefined],
    ['delete', '/api/v2/users/me/keys/abcdefghij', undefined],
  ];
  const call = (method: string, path: string, body: object | undefined, headers: Record<string, string>) => {
    const req = (
      t.http() as unknown as Record<string, (p: string) => ReturnType<ReturnType<TestApp['http']>['get']>>
    )[method]!(path).set(headers);
    return body === undefined ? req : req.send(body);
  };

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user();
  });
  afterAll(() => t.close());

  it.each(routes)(
    '%s %s: 401 for no, malformed, unknown, wrong-secret and expired credentials',
    async (method, path, body) => {
      const [id] = alice.token.split('-');
      const expired = await t.factories.token(alice.user, { lifetimeSeconds: -60 });
      const cases: [Record<string, string>, string | RegExp][] = [
        [{}, 'Cookie "service_session_token" or query parameter must be provided.'],
        [{ 'Service-Session-Token': 'not-a-key' }, /^Invalid API key format/],
        [{ 'Service-Session-Token': `zzzzzzzzzz-${'a'.repeat(22)}` }, 'API key is invalid.'],
        [{ 'Service-Session-Token': `${id}-${'a'.repeat(22)}` }, 'API key secret is invalid.'],
        [{ Authorization: `Bearer ${expired}` }, /^API key expired at ".+"\.$/],
      ];
      for (const [headers, detail] of cases) {
        const res = await call(method, path, body, headers);
        expect({ headers, status: res.status, message: res.body.message }).toEqual({
          headers,
          status: 401,
          message: SIGNED_OUT,
        });
        expect(res.body.detail).toMatch(detail);
      }
    },
  );

  it.each(routes)('%s %s: 401 for a suspended user', async (method, path, body) => {
    const suspended = await t.factories.user();
    await t.dataSource.query(`UPDATE users SET status = 'suspended' WHERE id = $1`, [suspended.user.id]);
    const res = await call(method, path, body, { 'Service-Session-Token': suspended.token });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe(
      'User is not active (status = "suspended"). Contact an admin to reactivate your account.',
    );
  });

  it('public routes ignore bad credentials (Coder dialect): scopes 200, login 201, OTP request 204', async () => {
    const bad = { 'Service-Session-Token': `zzzzzzzzzz-${'a'.repeat(22)}` };
    expect((await t.http().get('/api/v2/auth/scopes').set(bad)).status).toBe(200);
    const login = await t
      .http()
      .post('/api/v2/users/login')
      .set(bad)
      .send({ email: alice.user.email, password: alice.password });
    expect(login.status).toBe(201);
    expect(
      (await t.http().post('/api/v2/users/otp/request').set(bad).send({ email: alice.user.email })).status,
    ).toBe(204);
  });

  it('login: 413 for a body over 4 MiB', async () => {
    const res = await t
      .http()
      .post('/api/v2/users/login')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(4 * 1024 * 1024 + 16) }));
    expect(res.status).toBe(413);
    expect(res.body.message).toBe('Request body too large.');
    expect(res.body.detail).toBe('Maximum request body size is 4194304 bytes.');
  });

  it('login: 401 for a deleted user, and the deleted user keys stop working', async () => {
    const gone = await t.factories.user();
    await t.dataSource.query('DELETE FROM users WHERE id = $1', [gone.user.id]);
    const res = await t
      .http()
      .post('/api/v2/users/login')
      .send({ email: gone.user.email, password: gone.password });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Incorrect email or password.' });
    expect((await t.http().get('/api/v2/users/me').set('Service-Session-Token', gone.token)).status).toBe(
      401,
    );
  });

  it('convert-login: 403 for another login type, 401 for a suspended target (checked against the target user)', async () => {
    const github = await t.factories.user({ loginType: 'github' });
    const res = await t
      .http()
      .post('/api/v2/users/me/convert-login')
      .set('Service-Session-Token', github.token)
      .send({ to_type: 'oidc', password: github.password });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      message: 'Incorrect login type, attempting to use "password" but user is of login type "github"',
    });

    const admin = (
      await t
        .http()
        .post('/api/v2/users/login')
        .send({ email: BOOTSTRAP_ADMIN.email, password: BOOTSTRAP_ADMIN.password })
    ).body.session_token as string;
    const sleeper = await t.factories.user();
    await t.dataSource.query(`UPDATE users SET status = 'suspended' WHERE id = $1`, [sleeper.user.id]);
    const suspended = await t
      .http()
      .post(`/api/v2/users/${sleeper.user.name}/convert-login`)
      .set('Service-Session-Token', admin)
      .send({ to_type: 'github', password: sleeper.password });
    expect(suspended.status).toBe(401);
    expect(suspended.body).toEqual({
      message: 'Your account is suspended. Contact an admin to reactivate your account.',
    });
  });
});
