import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import type { User } from '../../src/modules/identity/entities/user.entity';
import { UsersService } from '../../src/modules/identity/users.service';
import { BOOTSTRAP_ADMIN, type TestApp } from '../helpers/test-app';
import { createAdminUsersTestApp } from '../admin-users/app';

const auth = (token: string) => ({ Authorization: `token ${token}` });

function sshKeyLine(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  return sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'pem').toString('ssh');
}

/**
 * Issue 11.4 for the Gitea administrator and own-account routes: every route declares its Gitea
 * token category; a site administrator's token only reaches administration with `write:admin`
 * (mutations) or `read:admin` (GET), and the own-key routes need the `user` category.
 */
describe('11.4 token scopes: admin users and own keys (Gitea)', () => {
  let t: TestApp;
  let root: User;
  let seq = 0;

  beforeAll(async () => {
    t = await createAdminUsersTestApp();
    root = (await t.app.get(UsersService).findByName(BOOTSTRAP_ADMIN.username))!;
  });
  afterAll(() => t.close());

  const rootToken = (scopes: string[]) => t.factories.token(root, { scopes, name: `scoped-${++seq}` });

  /** The write routes of /admin/users; `setup` gives a fresh victim, `check` proves nothing changed. */
  type WriteRoute = {
    name: string;
    send: (
      token: string,
      victim: User,
      keyId: string,
    ) => Promise<{ status: number; body: { message?: string } }>;
    success: number;
  };
  const writeRoutes: WriteRoute[] = [
    {
      name: 'POST /admin/users',
      send: (token) =>
        t
          .http()
          .post('/api/v1/admin/users')
          .set(auth(token))
          .send({ username: `scoped${++seq}`, email: `scoped${seq}@example.com`, password: 'Probe Pass 1' }),
      success: 201,
    },
    {
      name: 'PATCH /admin/users/{u}',
      send: (token, victim) =>
        t
          .http()
          .patch(`/api/v1/admin/users/${victim.name}`)
          .set(auth(token))
          .send({ login_name: 'x', admin: true, full_name: 'Changed' }),
      success: 200,
    },
    {
      name: 'POST /admin/users/{u}/rename',
      send: (token, victim) =>
        t
          .http()
          .post(`/api/v1/admin/users/${victim.name}/rename`)
          .set(auth(token))
          .send({ new_username: `${victim.name}-new` }),
      success: 204,
    },
    {
      name: 'POST /admin/users/{u}/keys',
      send: (token, victim) =>
        t
          .http()
          .post(`/api/v1/admin/users/${victim.name}/keys`)
          .set(auth(token))
          .send({ title: 'scoped', key: sshKeyLine() }),
      success: 201,
    },
    {
      name: 'DELETE /admin/users/{u}/keys/{id}',
      send: (token, victim, keyId) =>
        t.http().delete(`/api/v1/admin/users/${victim.name}/keys/${keyId}`).set(auth(token)),
      success: 204,
    },
    {
      name: 'DELETE /admin/users/{u}',
      send: (token, victim) =>
        t.http().delete(`/api/v1/admin/users/${victim.name}?purge=true`).set(auth(token)),
      success: 204,
    },
  ];

  /** A fresh plain user with one key (added with a password-equivalent `all` token). */
  async function victimWithKey(): Promise<{ victim: User; keyId: string }> {
    const { user } = await t.factories.user();
    const all = await rootToken(['all']);
    const key = await t
      .http()
      .post(`/api/v1/admin/users/${user.name}/keys`)
      .set(auth(all))
      .send({ title: 'seed', key: sshKeyLine() });
    expect(key.status).toBe(201);
    return { victim: user, keyId: String(key.body.id) };
  }

  const narrow: string[][] = [
    ['read:admin'],
    ['read:user', 'write:user'],
    ['write:repository', 'write:organization'],
    ['workspace:read'],
    ['user:read'],
  ];

  describe.each(writeRoutes.map((route) => [route.name, route] as const))('%s', (_name, route) => {
    it.each(narrow.map((scopes) => [scopes.join(' '), scopes] as const))(
      '403 for a token with %s; nothing changes',
      async (_label, scopes) => {
        const { victim, keyId } = await victimWithKey();
        const usersBefore = await t.dataSource.query('SELECT count(*)::int AS n FROM users');
        const res = await route.send(await rootToken(scopes), victim, keyId);
        expect(res.status).toBe(403);
        expect(res.body.message).toBe(
          `token does not have at least one of required scope(s), required=[write:admin], token scope=${scopes.join(',')}`,
        );
        const after = (await t.app.get(UsersService).findById(victim.id))!;
        expect(after).toMatchObject({ name: victim.name, fullName: victim.fullName, isAdmin: false });
        expect(await t.dataSource.query('SELECT count(*)::int AS n FROM users')).toEqual(usersBefore);
        const keys: { n: number }[] = await t.dataSource.query(
          'SELECT count(*)::int AS n FROM public_keys WHERE owner_id = $1',
          [victim.id],
        );
        expect(keys[0]!.n).toBe(1);
      },
    );

    it.each([['write:admin'], ['all']])('passes with %s', async (scope) => {
      const { victim, keyId } = await victimWithKey();
      const res = await route.send(await rootToken([scope]), victim, keyId);
      expect(res.status).toBe(route.success);
    });
  });

  it.each<[string, string[], number]>([
    ['read:admin', ['read:admin'], 200],
    ['write:admin', ['write:admin'], 200],
    ['read:user', ['read:user'], 403],
    ['workspace:read', ['workspace:read'], 403],
  ])('GET /admin/users with %s: %i', async (_label, scopes, status) => {
    const res = await t
      .http()
      .get('/api/v1/admin/users')
      .set(auth(await rootToken(scopes)));
    expect(res.status).toBe(status);
    if (status === 403) expect(res.body.message).toMatch(/required=\[read:admin\]/);
  });

  it('a non-administrator with write:admin still hears that the route is for administrators', async () => {
    const { user } = await t.factories.user();
    const token = await t.factories.token(user, { scopes: ['write:admin'], name: 'plain-admin-scope' });
    const res = await t
      .http()
      .post('/api/v1/admin/users')
      .set(auth(token))
      .send({ username: 'nope1', email: 'nope1@example.com', password: 'Probe Pass 1' });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('user should be the site admin');
  });

  describe('own account routes need the user category', () => {
    let owner: User;
    beforeAll(async () => {
      owner = (await t.factories.user()).user;
    });
    const token = (scopes: string[]) => t.factories.token(owner, { scopes, name: `own-${++seq}` });

    it.each<[string, string[], number, number]>([
      // scopes, GET /user/keys, POST /user/keys
      ['read:user', ['read:user'], 200, 403],
      ['write:user', ['write:user'], 200, 201],
      ['read:admin write:repository', ['read:admin', 'write:repository'], 403, 403],
      ['workspace:read', ['workspace:read'], 403, 403],
    ])('%s', async (_label, scopes, listStatus, addStatus) => {
      const tok = await token(scopes);
      const before: { n: number }[] = await t.dataSource.query(
        'SELECT count(*)::int AS n FROM public_keys WHERE owner_id = $1',
        [owner.id],
      );
      expect((await t.http().get('/api/v1/user/keys').set(auth(tok))).status).toBe(listStatus);
      expect((await t.http().get('/api/v1/user').set(auth(tok))).status).toBe(listStatus);
      const add = await t
        .http()
        .post('/api/v1/user/keys')
        .set(auth(tok))
        .send({ title: `own-${seq}`, key: sshKeyLine() });
      expect(add.status).toBe(addStatus);
      if (addStatus === 403) {
        expect(add.body.message).toMatch(/required=\[write:user\]/);
        const after: { n: number }[] = await t.dataSource.query(
          'SELECT count(*)::int AS n FROM public_keys WHERE owner_id = $1',
          [owner.id],
        );
        expect(after).toEqual(before);
      }
    });

    it('DELETE /user/keys/{id} needs write:user', async () => {
      const writer = await token(['write:user']);
      const key = await t
        .http()
        .post('/api/v1/user/keys')
        .set(auth(writer))
        .send({ title: 'to-delete', key: sshKeyLine() });
      expect(key.status).toBe(201);
      const reader = await token(['read:user']);
      expect((await t.http().get(`/api/v1/user/keys/${key.body.id}`).set(auth(reader))).status).toBe(200);
      expect((await t.http().delete(`/api/v1/user/keys/${key.body.id}`).set(auth(reader))).status).toBe(403);
      expect((await t.http().get(`/api/v1/user/keys/${key.body.id}`).set(auth(reader))).status).toBe(200);
      expect((await t.http().delete(`/api/v1/user/keys/${key.body.id}`).set(auth(writer))).status).toBe(204);
    });
  });
});
