import { basic, BOOTSTRAP_ADMIN, createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Client mistakes never end in a 500: malformed bodies and parameters across the three dialects
 * answer a 4xx in the dialect's shape and change nothing.
 */
describe('bad input never answers 500', () => {
  let t: TestApp;
  const admin = () => basic(BOOTSTRAP_ADMIN.username, BOOTSTRAP_ADMIN.password);
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const bodies: unknown[] = [
    '"just a string"',
    '[1,2,3]',
    'null',
    '42',
    '{"a":{"b":[{}]}}',
    '{bad json',
    '{"email":"a\\u0000b@example.com","password":"x\\u0000","username":"n\\u0000","name":"\\u0000"}',
    '{"email":"\\ud800@example.com","full_name":"\\udc00","username":"s\\ud800","name":"\\ud800","title":"\\ud800","message":"\\ud800","password":"\\ud800x","\\ud800":1}',
  ];
  const routes: [string, string, Record<string, string>][] = [
    ['POST', '/api/v1/admin/users', {}],
    ['PATCH', '/api/v1/admin/users/admin', {}],
    ['POST', '/api/v1/admin/users/admin/rename', {}],
    ['POST', '/api/v1/admin/users/admin/keys', {}],
    ['POST', '/api/v1/user/keys', {}],
    ['POST', '/api/v2/users/login', {}],
    ['POST', '/api/v2/users/otp/request', {}],
    ['POST', '/api/v2/users/otp/change-password', {}],
    ['POST', '/api/v2/users/validate-password', {}],
    ['POST', '/api/v2/users/me/convert-login', {}],
    ['POST', '/api/v2/authcheck', {}],
    ['POST', '/api/v2/users/me/keys/tokens', {}],
    ['POST', '/api/v2/notifications/custom', {}],
    ['PUT', '/api/v2/notifications/settings', {}],
    ['PUT', '/api/v2/users/me/notifications/preferences', {}],
    ['PUT', '/api/v2/notifications/inbox/not-a-uuid/read-status', {}],
    ['POST', '/ocs/v2.php/apps/workflowengine/api/v1/workflows/global', { 'OCS-APIRequest': 'true' }],
    ['PUT', '/ocs/v2.php/apps/workflowengine/api/v1/workflows/user/1', { 'OCS-APIRequest': 'true' }],
    ['POST', '/login/confirm', {}],
  ];

  it('a lone UTF-16 surrogate in JSON is stored and answered as U+FFFD (as Go decodes it)', async () => {
    const created = await t
      .http()
      .post('/api/v1/admin/users')
      .set({ Authorization: admin(), 'Content-Type': 'application/json' })
      .send(
        '{"username":"surrogate1","email":"surrogate1@example.com","password":"Surrogate-Pass-1234","full_name":"a\\ud800b"}',
      );
    expect(created.status).toBe(201);
    expect(created.body.full_name).toBe('a\ufffdb');
    const read = await t.http().get('/api/v1/users/surrogate1').set({ Authorization: admin() });
    expect(read.body.full_name).toBe('a\ufffdb');
    const custom = await t
      .http()
      .post('/api/v2/notifications/custom')
      .set({ Authorization: admin(), 'Content-Type': 'application/json' })
      .send('{"content":{"title":"t\\ud800","message":"m\\udfff"}}');
    expect(custom.status).toBeLessThan(300);
  });

  it.each(routes)('%s %s', async (method, path, headers) => {
    for (const body of bodies) {
      const verb = method.toLowerCase() as 'post' | 'put' | 'patch';
      const http = t.http();
      const res = await http[verb](`${path}?format=json`)
        .set({ Authorization: admin(), 'Content-Type': 'application/json', ...headers })
        .send(body as string);
      expect({ body, status: res.status < 500 ? 'client error or success' : res.status }).toEqual({
        body,
        status: 'client error or success',
      });
    }
  });

  it.each([
    '/api/v1/admin/users?page=-1&limit=abc&sort=zzz',
    '/api/v1/admin/users?visibility=%00',
    '/api/v2/notifications/inbox?starting_before=nope&read_status=maybe&targets=x,y',
    '/api/v2/users/%E0%A4%A/keys/tokens',
    '/api/v1/users/%00',
    '/api/v2/users/%00',
    '/api/v1/admin/users?q=%00',
    '/ocs/v2.php/apps/workflowengine/api/v1/workflows/global/99999999999999999999',
  ])('GET %s', async (path) => {
    const res = await t.http().get(path).set({ Authorization: admin(), 'OCS-APIRequest': 'true' });
    expect(res.status).toBeLessThan(500);
  });
});

describe('NUL characters', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('are refused with 400 in the dialect shape', async () => {
    const gitea = await t.http().get('/api/v1/users/a%00b');
    expect(gitea.status).toBe(400);
    expect(gitea.body).toEqual({
      message: 'Request contains a NUL character.',
      url: `${t.config.publicUrl}api/swagger`,
    });
    const coder = await t
      .http()
      .post('/api/v2/users/login')
      .send({ email: 'a\u0000@example.com', password: 'x' });
    expect(coder.status).toBe(400);
    expect(coder.body).toEqual({ message: 'Request contains a NUL character.' });
  });
});
