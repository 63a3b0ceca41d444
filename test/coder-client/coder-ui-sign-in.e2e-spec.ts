import { createTestApp, type TestApp } from '../helpers/test-app';
import { expectCoderShape } from './coder-ui-shapes';

const CSRF_FAILURE =
  'Something is wrong with your CSRF token. Please refresh the page. If this error persists, try clearing your cookies.';

function cookieValue(setCookie: string[] | string | undefined, name: string): string | undefined {
  return ([] as string[])
    .concat(setCookie ?? [])
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);
}

/** Coder's login page (issue 48 items 1 and 10): what it reads before sign-in, the CSRF cookie, Coder's credential names. */
describe("Coder's web UI: sign-in", () => {
  let t: TestApp;
  let email: string;
  const password = 'Sign-In-Strong-Password-1';

  beforeAll(async () => {
    t = await createTestApp();
    email = (await t.factories.user({ username: 'signinuser', password })).user.email;
  });
  afterAll(() => t.close());

  it('GET /users/first is public: 200 with Coder message once a user exists', async () => {
    const res = await t.http().get('/api/v2/users/first');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'The initial user has already been created!' });
    expectCoderShape('codersdk.Response', res.body, ['detail', 'validations']);
  });

  it('GET /users/authmethods is public with Coder shape (password on, github and oidc off)', async () => {
    const res = await t.http().get('/api/v2/users/authmethods');
    expect(res.status).toBe(200);
    expectCoderShape('codersdk.AuthMethods', res.body);
    expect(res.body).toEqual({
      terms_of_service_url: '',
      password: { enabled: true },
      github: { enabled: false, default_provider_configured: false },
      oidc: { enabled: false, signInText: '', iconUrl: '' },
    });
  });

  it('users/{user} still needs a session (first and authmethods are not user names)', async () => {
    expect((await t.http().get('/api/v2/users/signinuser')).status).toBe(401);
  });

  it('login keeps the page CSRF cookie, so the meta token rendered with the page stays valid', async () => {
    const pageToken = 'page-token-rendered-in-the-meta-0123456789';
    const login = await t
      .http()
      .post('/api/v2/users/login')
      .set('Cookie', `csrf_token=${pageToken}`)
      .send({ email, password });
    expect(login.status).toBe(201);
    expect(cookieValue(login.headers['set-cookie'], 'csrf_token')).toBe(pageToken);
    const session = cookieValue(login.headers['set-cookie'], 'service_session_token')!;
    const write = await t
      .http()
      .put('/api/v2/notifications/inbox/mark-all-as-read')
      .set('Cookie', `service_session_token=${session}; csrf_token=${pageToken}`)
      .set('X-CSRF-Token', pageToken);
    expect(write.status).toBe(204);
  });

  it('login without a CSRF cookie (or a malformed one) mints a new one', async () => {
    const fresh = await t.http().post('/api/v2/users/login').send({ email, password });
    const minted = cookieValue(fresh.headers['set-cookie'], 'csrf_token');
    expect(minted).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const bad = await t
      .http()
      .post('/api/v2/users/login')
      .set('Cookie', 'csrf_token=x')
      .send({ email, password });
    expect(cookieValue(bad.headers['set-cookie'], 'csrf_token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  describe("Coder's credential names (item 10)", () => {
    let token: string;
    beforeAll(async () => {
      const res = await t.http().post('/api/v2/users/login').send({ email, password });
      token = res.body.session_token;
    });

    it('Coder-Session-Token header', async () => {
      const res = await t.http().get('/api/v2/users/me').set('Coder-Session-Token', token);
      expect(res.status).toBe(200);
      expect(res.body.username).toBe('signinuser');
    });

    it('coder_session_token cookie, with its CSRF rule on writes', async () => {
      const read = await t.http().get('/api/v2/users/me').set('Cookie', `coder_session_token=${token}`);
      expect(read.status).toBe(200);
      const forged = await t
        .http()
        .put('/api/v2/notifications/inbox/mark-all-as-read')
        .set('Cookie', `coder_session_token=${token}`);
      expect(forged.status).toBe(400);
      expect(forged.body.message).toBe(CSRF_FAILURE);
      const echoed = await t
        .http()
        .put('/api/v2/notifications/inbox/mark-all-as-read')
        .set('Cookie', `coder_session_token=${token}`)
        .set('Coder-Session-Token', token);
      expect(echoed.status).toBe(204);
    });

    it('coder_session_token query parameter', async () => {
      const res = await t.http().get(`/api/v2/users/me?coder_session_token=${token}`);
      expect(res.status).toBe(200);
    });

    it('a wrong token under a Coder name is refused like under devplane names', async () => {
      const res = await t
        .http()
        .get('/api/v2/users/me')
        .set('Coder-Session-Token', 'abcdefghij-wrongwrongwrongwrongwr');
      expect(res.status).toBe(401);
      const none = await t.http().get('/api/v2/users/me');
      expect(none.status).toBe(401);
    });
  });
});
