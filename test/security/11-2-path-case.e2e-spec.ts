import { basic, createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Issue 11.2: the dialect used to be chosen by a case-sensitive path test while routing was
 * case-insensitive, so `/API/V2/...` skipped Coder's cookie CSRF rule (a form-encoded POST with only
 * the cookie minted a token and logged the user out) and `/API/V1/...` skipped Gitea's
 * must-change-password block. Routing is now case-sensitive (as in Gitea and Coder) and form bodies
 * are only read on routes that document them.
 */
describe('security 11.2: path case and form bodies', () => {
  let t: TestApp;
  const password = 'Path-Case-Password-1';

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function cookieSession(): Promise<{ cookie: string; userId: string }> {
    const { user } = await t.factories.user({ password });
    const res = await t.http().post('/api/v2/users/login').send({ email: user.email, password });
    expect(res.status).toBe(201);
    return { cookie: `service_session_token=${res.body.session_token as string}`, userId: user.id };
  }

  async function tokenNames(cookie: string): Promise<string[]> {
    // A read with the cookie alone is allowed (safe method).
    const res = await t.http().get('/api/v2/users/me/keys/tokens').set('Cookie', cookie);
    expect(res.status).toBe(200);
    return (res.body as { token_name: string }[]).map((key) => key.token_name);
  }

  it.each(['/API/V2/users/me/keys/tokens', '/Api/V2/users/me/keys/tokens', '/api/V2/users/me/keys/tokens'])(
    'a form-encoded cookie-only POST to %s is 404 and mints nothing',
    async (path) => {
      const { cookie } = await cookieSession();
      const before = await tokenNames(cookie);
      const res = await t
        .http()
        .post(path)
        .set('Cookie', cookie)
        .type('form')
        .send('token_name=forged&lifetime=0');
      expect(res.status).toBe(404);
      expect(await tokenNames(cookie)).toEqual(before);
      expect(before).not.toContain('forged');
    },
  );

  it('a form-encoded cookie-only logout under /API/V2 is 404 and the session survives', async () => {
    const { cookie } = await cookieSession();
    const res = await t.http().post('/API/V2/users/logout').set('Cookie', cookie).type('form').send('a=b');
    expect(res.status).toBe(404);
    const me = await t.http().get('/api/v2/users/me').set('Cookie', cookie);
    expect(me.status).toBe(200);
  });

  it('on the real path the same forged POST is refused (form not accepted) and mints nothing', async () => {
    const { cookie } = await cookieSession();
    const res = await t
      .http()
      .post('/api/v2/users/me/keys/tokens')
      .set('Cookie', cookie)
      .type('form')
      .send('token_name=forged');
    // Credentials (and Coder's CSRF rule for cookie sessions) are checked before any body is read (#31.4):
    // the forged form is refused by the CSRF check, as Coder refuses it, before its media type matters.
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/CSRF token/);
    expect(await tokenNames(cookie)).not.toContain('forged');
    const logout = await t.http().post('/api/v2/users/logout').set('Cookie', cookie).type('form').send('a=b');
    expect(logout.status).toBe(400);
    expect((await t.http().get('/api/v2/users/me').set('Cookie', cookie)).status).toBe(200);
  });

  it('on the real path a JSON cookie-only POST still meets the CSRF rule', async () => {
    const { cookie } = await cookieSession();
    const res = await t
      .http()
      .post('/api/v2/users/me/keys/tokens')
      .set('Cookie', cookie)
      .send({ token_name: 'forged' });
    expect(res.status).toBe(400);
    expect(await tokenNames(cookie)).not.toContain('forged');
  });

  describe('Gitea must-change-password', () => {
    it.each([
      ['get', '/API/V1/user'],
      ['get', '/Api/v1/user'],
      ['get', '/api/V1/user/keys'],
      ['post', '/API/V1/user/keys'],
    ] as const)('%s %s is 404 (no route), never a way around the block', async (method, path) => {
      const { user } = await t.factories.user({ password, mustChangePassword: true });
      const http = t.http();
      const res = await http[method](path)
        .set('Authorization', basic(user.name, password))
        .send({ title: 'k', key: 'ssh-ed25519 AAAA' });
      expect(res.status).toBe(404);
    });

    it('the real path answers the must-change-password 403', async () => {
      const { user } = await t.factories.user({ password, mustChangePassword: true });
      const res = await t.http().get('/api/v1/user').set('Authorization', basic(user.name, password));
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/^You must change your password/);
    });
  });
});
