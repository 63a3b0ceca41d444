import type { User } from '../../src/modules/identity/entities/user.entity';
import { UsersService } from '../../src/modules/identity/users.service';
import type { CreatedUser } from '../helpers/factories';
import { basic, BOOTSTRAP_ADMIN, type TestApp } from '../helpers/test-app';
import { createAdminUsersTestApp } from './app';

const auth = (token: string) => ({ Authorization: `token ${token}` });

type Verb = 'get' | 'post' | 'patch' | 'delete';

/**
 * Every route of the module under every kind of caller (issue 6, item 9), and client mistakes
 * that must answer a 4xx, never a 500.
 */
describe('admin users: callers and client mistakes', () => {
  let t: TestApp;
  let root: User;
  let rootToken: string;
  let plain: CreatedUser;
  let target: { user: User; token: string };

  beforeAll(async () => {
    t = await createAdminUsersTestApp();
    root = (await t.app.get(UsersService).findByName(BOOTSTRAP_ADMIN.username))!;
    rootToken = await t.factories.token(root);
    plain = await t.factories.user();
    target = await t.factories.user();
  });
  afterAll(() => t.close());

  const send = (verb: Verb, path: string, headers: Record<string, string>, body?: unknown) => {
    const req = t.http()[verb](path).set(headers);
    return body === undefined ? req : req.send(body as object);
  };

  describe('authentication and authorisation of the admin routes', () => {
    // [verb, path, body]: the routes of the spec's table; {u} is a plain user, {k} a key id.
    const routes: [Verb, string, unknown][] = [
      ['get', '/api/v1/admin/users', undefined],
      [
        'post',
        '/api/v1/admin/users',
        { username: 'matrix', email: 'matrix@example.com', password: 'Matrix Pass 1' },
      ],
      ['patch', '/api/v1/admin/users/{u}', { login_name: 'm' }],
      ['delete', '/api/v1/admin/users/{u}', undefined],
      ['post', '/api/v1/admin/users/{u}/rename', { new_username: 'matrix-renamed' }],
      ['post', '/api/v1/admin/users/{u}/keys', { title: 'matrix', key: 'ssh-ed25519 AAAA' }],
      ['delete', '/api/v1/admin/users/{u}/keys/1', undefined],
    ];
    const path = (template: string) => template.replace('{u}', target.user.name);

    it.each(routes)('%s %s: 401 without credentials', async (verb, template, body) => {
      const res = await send(verb, path(template), {}, body);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('token is required');
    });

    it.each(routes)(
      '%s %s: 401 with a wrong token, a wrong password or an unknown user',
      async (verb, template, body) => {
        for (const headers of [
          auth('0123456789-abcdefghijklmnopqrstuv'),
          { Authorization: 'Bearer not-a-token' },
          { Authorization: basic(BOOTSTRAP_ADMIN.username, 'wrong password') },
          { Authorization: basic('nobody-at-all', 'whatever') },
        ]) {
          const res = await send(verb, path(template), headers, body);
          expect({ headers, status: res.status }).toEqual({ headers, status: 401 });
        }
        expect(await t.app.get(UsersService).findById(target.user.id)).not.toBeNull();
      },
    );

    it.each(routes)(
      '%s %s: 403 for a signed-in user who is not an administrator (token or password)',
      async (verb, template, body) => {
        for (const headers of [
          auth(plain.token),
          { Authorization: basic(plain.user.name, plain.password) },
        ]) {
          const res = await send(verb, path(template), headers, body);
          expect(res.status).toBe(403);
          expect(res.body.message).toBe('user should be the site admin');
        }
        expect(await t.app.get(UsersService).findById(target.user.id)).not.toBeNull();
      },
    );

    it.each(routes)(
      '%s %s: 403 for an administrator token without the admin scope',
      async (verb, template, body) => {
        const token = await t.factories.token(root, { scopes: ['write:user', 'write:repository'] });
        const res = await send(verb, path(template), auth(token), body);
        expect(res.status).toBe(403);
        expect(res.body.message).toMatch(
          /^token does not have at least one of required scope\(s\), required=\[(read|write):admin\]/,
        );
      },
    );

    it.each(routes)(
      '%s %s: an administrator passes authentication and authorisation (password Basic too)',
      async (verb, template, body) => {
        const res = await send(
          verb,
          path(template),
          { Authorization: basic(BOOTSTRAP_ADMIN.username, BOOTSTRAP_ADMIN.password) },
          body,
        );
        expect([401, 403]).not.toContain(res.status);
        expect(res.status).toBeLessThan(500);
      },
    );
  });

  describe('client mistakes answer 4xx', () => {
    let victim: { user: User; token: string };
    beforeAll(async () => {
      victim = await t.factories.user();
    });

    const cases: [string, Verb, string, unknown, number][] = [
      // create: JSON types, huge values, odd times
      ['create: body is an array', 'post', '/api/v1/admin/users', [1, 2], 422],
      [
        'create: source_id float',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: 'p1@example.com', password: 'Probe Pass 1', source_id: 1.5 },
        422,
      ],
      [
        'create: source_id beyond int64',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: 'p1@example.com', password: 'Probe Pass 1', source_id: 1e30 },
        422,
      ],
      [
        'create: source_id negative',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: 'p1@example.com', password: 'Probe Pass 1', source_id: -1 },
        422,
      ],
      [
        'create: source_id as string',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: 'p1@example.com', password: 'Probe Pass 1', source_id: '0' },
        422,
      ],
      [
        'create: must_change_password as string',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: 'p1@example.com', password: 'Probe Pass 1', must_change_password: 'false' },
        422,
      ],
      [
        'create: email as object',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: { a: 1 }, password: 'Probe Pass 1' },
        422,
      ],
      [
        'create: password as array',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: 'p1@example.com', password: ['x'] },
        422,
      ],
      [
        'create: password of 256 runes',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: 'p1@example.com', password: 'Aa1 '.repeat(64) },
        422,
      ],
      [
        'create: login_name of 256 runes',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: 'p1@example.com', password: 'Probe Pass 1', login_name: 'l'.repeat(256) },
        422,
      ],
      [
        'create: email of 255 characters',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: `${'e'.repeat(243)}@example.com`, password: 'Probe Pass 1' },
        422,
      ],
      [
        'create: created_at as number',
        'post',
        '/api/v1/admin/users',
        { username: 'p1', email: 'p1@example.com', password: 'Probe Pass 1', created_at: 1 },
        422,
      ],
      [
        'create: created_at on 30 February',
        'post',
        '/api/v1/admin/users',
        {
          username: 'p2',
          email: 'p2@example.com',
          password: 'Probe Pass 1',
          created_at: '2020-02-30T00:00:00Z',
        },
        422,
      ],
      [
        'create: created_at with hour 24',
        'post',
        '/api/v1/admin/users',
        {
          username: 'p3',
          email: 'p3@example.com',
          password: 'Probe Pass 1',
          created_at: '2020-01-01T24:00:00Z',
        },
        422,
      ],
      [
        'create: created_at offset out of range',
        'post',
        '/api/v1/admin/users',
        {
          username: 'p4',
          email: 'p4@example.com',
          password: 'Probe Pass 1',
          created_at: '2020-01-01T00:00:00+99:00',
        },
        422,
      ],
      [
        'create: created_at on 29 February of a common year',
        'post',
        '/api/v1/admin/users',
        {
          username: 'p8',
          email: 'p8@example.com',
          password: 'Probe Pass 1',
          created_at: '2021-02-29T00:00:00Z',
        },
        422,
      ],
      [
        'create: created_at with minute 60',
        'post',
        '/api/v1/admin/users',
        {
          username: 'p8',
          email: 'p8@example.com',
          password: 'Probe Pass 1',
          created_at: '2021-01-01T00:60:00Z',
        },
        422,
      ],
      [
        'create: created_at with month 13',
        'post',
        '/api/v1/admin/users',
        {
          username: 'p8',
          email: 'p8@example.com',
          password: 'Probe Pass 1',
          created_at: '2021-13-01T00:00:00Z',
        },
        422,
      ],
      [
        'create: created_at on 29 February of a leap year, offset +24:00',
        'post',
        '/api/v1/admin/users',
        {
          username: 'p8',
          email: 'p8@example.com',
          password: 'Probe Pass 1',
          created_at: '2020-02-29T12:00:00+24:00',
        },
        201,
      ],
      [
        'create: created_at with year 0000',
        'post',
        '/api/v1/admin/users',
        {
          username: 'p5',
          email: 'p5@example.com',
          password: 'Probe Pass 1',
          created_at: '0000-01-01T00:00:00Z',
        },
        201,
      ],
      [
        'create: created_at in year 9999',
        'post',
        '/api/v1/admin/users',
        {
          username: 'p6',
          email: 'p6@example.com',
          password: 'Probe Pass 1',
          created_at: '9999-12-31T23:59:59.999999999-23:59',
        },
        201,
      ],
      [
        'create: unicode username',
        'post',
        '/api/v1/admin/users',
        { username: 'ünï', email: 'p7@example.com', password: 'Probe Pass 1' },
        422,
      ],
      [
        'create: unicode email',
        'post',
        '/api/v1/admin/users',
        { username: 'p7', email: 'ü@exämple.com', password: 'Probe Pass 1' },
        422,
      ],
      // edit
      // A JSON body that is not an object or array is refused by the platform's JSON parser (strict mode): 400.
      ['edit: body is a string', 'patch', '/api/v1/admin/users/{v}', '"x"', 400],
      [
        'edit: max_repo_creation beyond int64',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', max_repo_creation: 1e300 },
        422,
      ],
      [
        'edit: max_repo_creation float',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', max_repo_creation: 0.5 },
        422,
      ],
      [
        'edit: max_repo_creation huge integer is clamped',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', max_repo_creation: 9007199254740991 },
        200,
      ],
      ['edit: login_name as number', 'patch', '/api/v1/admin/users/{v}', { login_name: 5 }, 422],
      [
        'edit: active as string',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', active: 'true' },
        422,
      ],
      [
        'edit: website of 256 characters',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', website: `https://e.io/${'a'.repeat(243)}` },
        422,
      ],
      [
        'edit: description of 256 runes',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', description: '😀'.repeat(256) },
        422,
      ],
      [
        'edit: full_name of 100 astral runes',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', full_name: '😀'.repeat(100) },
        200,
      ],
      [
        'edit: email of 255 characters',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', email: `${'e'.repeat(243)}@example.com` },
        422,
      ],
      [
        'edit: unicode email',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', email: 'ü@example.com' },
        400,
      ],
      [
        'edit: password as number',
        'patch',
        '/api/v1/admin/users/{v}',
        { login_name: 'x', password: 12345678 },
        422,
      ],
      [
        'edit: unknown user with a 2000-character name',
        'patch',
        `/api/v1/admin/users/${'n'.repeat(2000)}`,
        { login_name: 'x' },
        404,
      ],
      // rename
      ['rename: new_username as number', 'post', '/api/v1/admin/users/{v}/rename', { new_username: 7 }, 422],
      [
        'rename: new_username of 41 characters',
        'post',
        '/api/v1/admin/users/{v}/rename',
        { new_username: 'r'.repeat(41) },
        422,
      ],
      [
        'rename: new_username unicode',
        'post',
        '/api/v1/admin/users/{v}/rename',
        { new_username: 'ärger' },
        422,
      ],
      // keys
      ['keys: key as object', 'post', '/api/v1/admin/users/{v}/keys', { title: 't', key: {} }, 422],
      [
        'keys: title of 256 characters',
        'post',
        '/api/v1/admin/users/{v}/keys',
        { title: 't'.repeat(256), key: 'ssh-ed25519 AAAA' },
        422,
      ],
      [
        'keys: private key text',
        'post',
        '/api/v1/admin/users/{v}/keys',
        { title: 't', key: '-----BEGIN OPENSSH PRIVATE KEY-----' },
        422,
      ],
      [
        'keys: a long run of base64',
        'post',
        '/api/v1/admin/users/{v}/keys',
        { title: 't', key: `ssh-rsa ${'A'.repeat(60000)}` },
        422,
      ],
      [
        'keys: type and data disagree',
        'post',
        '/api/v1/admin/users/{v}/keys',
        { title: 't', key: 'ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl' },
        422,
      ],
      [
        'keys: delete with a 19-digit id',
        'delete',
        '/api/v1/admin/users/{v}/keys/9999999999999999999',
        undefined,
        404,
      ],
      ['keys: delete with a negative id', 'delete', '/api/v1/admin/users/{v}/keys/-1', undefined, 404],
      ['own keys: 19-digit id', 'get', '/api/v1/user/keys/99999999999999999999', undefined, 404],
      // search and delete query strings
      [
        'search: repeated and nested parameters',
        'get',
        '/api/v1/admin/users?sort=name&sort=id&q[a]=1&page[x]=2&is_admin[]=1',
        undefined,
        200,
      ],
      [
        'search: huge page and limit',
        'get',
        '/api/v1/admin/users?page=9007199254740991&limit=9007199254740991',
        undefined,
        200,
      ],
      [
        'search: source_id beyond int64',
        'get',
        '/api/v1/admin/users?source_id=99999999999999999999999',
        undefined,
        200,
      ],
      [
        'search: long q and login_name',
        'get',
        `/api/v1/admin/users?q=${'q'.repeat(4000)}&login_name=${'l'.repeat(4000)}`,
        undefined,
        200,
      ],
      ['delete: repeated purge', 'delete', '/api/v1/admin/users/nobody?purge=1&purge=0', undefined, 404],
    ];

    it('created_at: Go range messages; the instant is computed from the offset, years 0-99 as written', async () => {
      const post = (created_at: string, n: string) =>
        t
          .http()
          .post('/api/v1/admin/users')
          .set(auth(rootToken))
          .send({ username: `ca${n}`, email: `ca${n}@example.com`, password: 'Probe Pass 1', created_at });
      const feb = await post('2021-02-29T00:00:00Z', '1');
      expect(feb.body.message).toBe('[]: parsing time "\\"2021-02-29T00:00:00Z\\"": day out of range');
      const hour = await post('2021-01-01T24:00:00Z', '1');
      expect(hour.body.message).toBe('[]: parsing time "\\"2021-01-01T24:00:00Z\\"": hour out of range');
      const offset = await post('2020-02-29T12:00:00+24:00', '2');
      expect(offset.status).toBe(201);
      expect(offset.body.created).toBe('2020-02-28T12:00:00.000Z');
      const early = await post('0050-06-01T00:00:00.5-01:30', '3');
      expect(early.status).toBe(201);
      expect(early.body.created).toBe('0050-06-01T01:30:00.500Z');
    });

    it.each(cases)('%s', async (_label, verb, template, body, status) => {
      const path = template.replace('{v}', victim.user.name);
      const req = t.http()[verb](path).set(auth(rootToken));
      const res =
        typeof body === 'string'
          ? await req.set('Content-Type', 'application/json').send(body)
          : body === undefined
            ? await req
            : await req.send(body as object);
      expect({ status: res.status, message: res.status >= 400 ? res.body.message : undefined }).toMatchObject(
        { status },
      );
    });
  });
});
