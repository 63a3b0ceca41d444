import { createTestApp, type TestApp } from '../helpers/test-app';

const CSRF_FAILURE =
  'Something is wrong with your CSRF token. Please refresh the page. If this error persists, try clearing your cookies.';

/** Reference A.4: cookie-authenticated writes need proof that the page, not another site, sent them. */
describe('auth: CSRF rule for cookie sessions', () => {
  let t: TestApp;
  let email: string;
  const password = 'Csrf-Strong-Password-1';

  beforeAll(async () => {
    t = await createTestApp();
    const user = await t.factories.user({ password });
    email = user.user.email;
  });
  afterAll(() => t.close());

  async function signIn(): Promise<{ session: string; csrf: string }> {
    const res = await t.http().post('/api/v2/users/login').send({ email, password });
    expect(res.status).toBe(201);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    const value = (name: string) =>
      cookies
        .find((c) => c.startsWith(`${name}=`))
        ?.split(';')[0]
        ?.slice(name.length + 1) ?? '';
    const csrfCookie = cookies.find((c) => c.startsWith('csrf_token='));
    expect(csrfCookie).toBeDefined();
    expect(csrfCookie).not.toMatch(/HttpOnly/i);
    return { session: value('service_session_token'), csrf: value('csrf_token') };
  }

  const markAllRead = '/api/v2/notifications/inbox/mark-all-as-read';

  it('a write with only the session cookie is refused with 400 and changes nothing', async () => {
    const { session } = await signIn();
    const res = await t.http().post('/api/v2/users/logout').set('Cookie', `service_session_token=${session}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(CSRF_FAILURE);
    const still = await t.http().get('/api/v2/users/me').set('Cookie', `service_session_token=${session}`);
    expect(still.status).toBe(200);
  });

  it.each<[string, (s: { session: string; csrf: string }) => Record<string, string>, number]>([
    [
      'X-CSRF-Token equal to the csrf_token cookie',
      (s) => ({ Cookie: `service_session_token=${s.session}; csrf_token=${s.csrf}`, 'X-CSRF-Token': s.csrf }),
      204,
    ],
    [
      'X-CSRF-Token without the cookie',
      (s) => ({ Cookie: `service_session_token=${s.session}`, 'X-CSRF-Token': s.csrf }),
      400,
    ],
    [
      'X-CSRF-Token that differs',
      (s) => ({
        Cookie: `service_session_token=${s.session}; csrf_token=${s.csrf}`,
        'X-CSRF-Token': `${s.csrf}x`,
      }),
      400,
    ],
    [
      'the session also in Service-Session-Token',
      (s) => ({ Cookie: `service_session_token=${s.session}`, 'Service-Session-Token': s.session }),
      204,
    ],
    [
      'a Bearer header',
      (s) => ({ Cookie: `service_session_token=${s.session}`, Authorization: `Bearer ${s.session}` }),
      204,
    ],
  ])('cookie write with %s', async (_name, headers, status) => {
    const signedIn = await signIn();
    const res = await t.http().put(markAllRead).set(headers(signedIn));
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.message).toBe(CSRF_FAILURE);
  });

  it('the session in the query next to the cookie passes', async () => {
    const { session } = await signIn();
    const res = await t
      .http()
      .put(markAllRead)
      .query({ service_session_token: session })
      .set('Cookie', `service_session_token=${session}`);
    expect(res.status).toBe(204);
  });

  it('reads with the cookie alone and header-token writes are not affected', async () => {
    const { session } = await signIn();
    expect(
      (await t.http().get('/api/v2/users/me').set('Cookie', `service_session_token=${session}`)).status,
    ).toBe(200);
    expect((await t.http().put(markAllRead).set('Service-Session-Token', session)).status).toBe(204);
  });

  it('logout with the CSRF header ends the session', async () => {
    const { session, csrf } = await signIn();
    const res = await t
      .http()
      .post('/api/v2/users/logout')
      .set({ Cookie: `service_session_token=${session}; csrf_token=${csrf}`, 'X-CSRF-Token': csrf });
    expect(res.status).toBe(200);
    expect((await t.http().get('/api/v2/users/me').set('Service-Session-Token', session)).status).toBe(401);
  });
});
