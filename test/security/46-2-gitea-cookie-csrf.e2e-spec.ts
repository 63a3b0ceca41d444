import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Issue #46.2: a cookie-authenticated write to the Gitea API (`/api/v1`) needs Gitea's CSRF token
 * (`X-Csrf-Token` header or `_csrf` parameter equal to the CSRF cookie), else 401 "Missing CSRF token."
 * (none) or 400 "Invalid CSRF token." (wrong), refused before the body is read; multipart release
 * uploads included. Token, Basic and reads are unaffected.
 */
describe('#46.2 Gitea API writes on a cookie session need the CSRF token', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let session = '';
  let csrf = '';
  let releaseId = 0;
  const repo = '/api/v1/repos/csrfowner/csrfrepo';
  const evil = 'http://evil.example';

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.user({ username: 'csrfowner', password: 'Csrf-Strong-Password-1' });
    await t
      .http()
      .post('/api/v1/user/repos')
      .set('Authorization', `token ${owner.token}`)
      .send({ name: 'csrfrepo', auto_init: true })
      .expect(201);
    releaseId = (
      await t
        .http()
        .post(`${repo}/releases`)
        .set('Authorization', `token ${owner.token}`)
        .send({ tag_name: 'v1', name: 'one' })
        .expect(201)
    ).body.id as number;
    const login = await t
      .http()
      .post('/api/v2/users/login')
      .send({ email: owner.user.email, password: 'Csrf-Strong-Password-1' });
    expect(login.status).toBe(201);
    const cookies = ([] as string[]).concat(login.headers['set-cookie'] ?? []);
    const value = (name: string) =>
      cookies
        .find((c) => c.startsWith(`${name}=`))
        ?.split(';')[0]
        ?.slice(name.length + 1) ?? '';
    session = value('service_session_token');
    csrf = value('csrf_token');
    expect(session).not.toBe('');
    expect(csrf).not.toBe('');
  });
  afterAll(() => t.close());

  async function assetNames(): Promise<string[]> {
    const res = await t
      .http()
      .get(`${repo}/releases/${releaseId}/assets`)
      .set('Authorization', `token ${owner.token}`);
    expect(res.status).toBe(200);
    return (res.body as { name: string }[]).map((asset) => asset.name);
  }

  it('reads on a cookie session need no token', async () => {
    const res = await t.http().get('/api/v1/user').set('Cookie', `service_session_token=${session}`);
    expect(res.status).toBe(200);
    expect(res.body.login).toBe('csrfowner');
  });

  it('a cookie-only JSON write from another origin is 401 "Missing CSRF token." and changes nothing', async () => {
    const res = await t
      .http()
      .post('/api/v1/user/repos')
      .set('Cookie', `service_session_token=${session}; csrf_token=${csrf}`)
      .set('Origin', evil)
      .send({ name: 'forged' });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe('Missing CSRF token.');
    const lookup = await t
      .http()
      .get('/api/v1/repos/csrfowner/forged')
      .set('Authorization', `token ${owner.token}`);
    expect(lookup.status).toBe(404);
  });

  it('a cookie-only multipart release upload is refused and stores nothing', async () => {
    const res = await t
      .http()
      .post(`${repo}/releases/${releaseId}/assets`)
      .set('Cookie', `service_session_token=${session}; csrf_token=${csrf}`)
      .set('Origin', evil)
      .attach('attachment', Buffer.from('forged\n'), 'forged.txt');
    expect(res.status).toBe(401);
    expect(await assetNames()).not.toContain('forged.txt');
  });

  it('a wrong token is 400 "Invalid CSRF token."; a token without its cookie is refused too', async () => {
    const wrong = await t
      .http()
      .delete(`${repo}/releases/${releaseId}`)
      .set('Cookie', `service_session_token=${session}; _csrf=${csrf}`)
      .set('X-Csrf-Token', `${csrf}x`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('Invalid CSRF token.');
    const noCookie = await t
      .http()
      .delete(`${repo}/releases/${releaseId}`)
      .set('Cookie', `service_session_token=${session}`)
      .set('X-Csrf-Token', csrf);
    expect(noCookie.status).toBe(400);
    expect(
      (await t.http().get(`${repo}/releases/${releaseId}`).set('Authorization', `token ${owner.token}`))
        .status,
    ).toBe(200);
  });

  it('the X-Csrf-Token header equal to the csrf_token or _csrf cookie, or the _csrf query parameter, passes', async () => {
    const viaHeader = await t
      .http()
      .post(`${repo}/releases/${releaseId}/assets`)
      .set('Cookie', `service_session_token=${session}; csrf_token=${csrf}`)
      .set('X-Csrf-Token', csrf)
      .attach('attachment', Buffer.from('one\n'), 'header.txt');
    expect(viaHeader.status).toBe(201);
    const giteaCookie = await t
      .http()
      .post(`${repo}/releases/${releaseId}/assets`)
      .set('Cookie', `service_session_token=${session}; _csrf=gitea-style-token`)
      .set('X-Csrf-Token', 'gitea-style-token')
      .attach('attachment', Buffer.from('two\n'), 'gitea.txt');
    expect(giteaCookie.status).toBe(201);
    const viaQuery = await t
      .http()
      .post(`${repo}/releases/${releaseId}/assets?_csrf=${csrf}`)
      .set('Cookie', `service_session_token=${session}; csrf_token=${csrf}`)
      .attach('attachment', Buffer.from('three\n'), 'query.txt');
    expect(viaQuery.status).toBe(201);
    expect(await assetNames()).toEqual(expect.arrayContaining(['header.txt', 'gitea.txt', 'query.txt']));
  });

  it('token and Basic callers are unaffected (no CSRF token, any Origin)', async () => {
    const token = await t
      .http()
      .post(`${repo}/releases/${releaseId}/assets`)
      .set('Authorization', `token ${owner.token}`)
      .set('Origin', evil)
      .attach('attachment', Buffer.from('tok\n'), 'token.txt');
    expect(token.status).toBe(201);
    const basic = await t
      .http()
      .post('/api/v1/user/repos')
      .auth('csrfowner', 'Csrf-Strong-Password-1')
      .set('Origin', evil)
      .send({ name: 'basic-made' });
    expect(basic.status).toBe(201);
  });

  it('another user cannot use their own CSRF pair against this session (wrong session still 401 first)', async () => {
    const res = await t
      .http()
      .post('/api/v1/user/repos')
      .set('Cookie', `service_session_token=not-a-session; csrf_token=${csrf}`)
      .set('X-Csrf-Token', csrf)
      .send({ name: 'nobody' });
    expect(res.status).toBe(401);
  });
});
