import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** The login group (login, OTP request, OTP change-password, validate-password, PUT password): N per minute per address and route. */
describe('auth: login rate limit', () => {
  let t: TestApp;
  let user: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_LOGIN_PER_MINUTE: '3' } });
    user = await t.factories.user();
  });
  afterAll(() => t.close());

  const routes: [string, () => object, boolean][] = [
    ['/api/v2/users/login', () => ({ email: 'nobody@example.com', password: 'x' }), false],
    ['/api/v2/users/otp/request', () => ({ email: 'nobody@example.com' }), false],
    [
      '/api/v2/users/otp/change-password',
      () => ({ email: 'nobody@example.com', one_time_passcode: 'x', password: 'x' }),
      false,
    ],
    ['/api/v2/users/validate-password', () => ({ password: 'x' }), true],
    ['/api/v2/users/me/password', () => ({ old_password: 'x', password: 'x' }), true],
  ];

  it.each(routes)('%s: the 4th request in a minute gets 429', async (path, body, authenticated) => {
    for (let i = 0; i < 3; i++) {
      const req = path.endsWith('/password') ? t.http().put(path) : t.http().post(path);
      if (authenticated) req.set('Service-Session-Token', user.token);
      expect((await req.send(body())).status).not.toBe(429);
    }
    const req = path.endsWith('/password') ? t.http().put(path) : t.http().post(path);
    if (authenticated) req.set('Service-Session-Token', user.token);
    const res = await req.send(body());
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      message: "You've been rate limited for sending more than 3 requests in 1m0s.",
    });
  });

  it('routes outside the login group are not affected', async () => {
    for (let i = 0; i < 5; i++) expect((await t.http().get('/api/v2/auth/scopes')).status).toBe(200);
  });
});
