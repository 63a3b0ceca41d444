import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import sshpk from 'sshpk';
import type { User } from '../../src/modules/identity/entities/user.entity';
import { UsersService } from '../../src/modules/identity/users.service';
import { BOOTSTRAP_ADMIN, type TestApp } from '../helpers/test-app';
import { createAdminUsersTestApp } from './app';

const auth = (token: string) => ({ Authorization: `token ${token}` });

function sshKey(
  type: 'ed25519' | 'rsa' | 'dsa' | 'ec',
  options: Record<string, unknown> = {},
  comment = 'me@laptop',
): { line: string; fingerprint: string } {
  const { publicKey } = (
    generateKeyPairSync as unknown as (t: string, o: unknown) => { publicKey: KeyObject }
  )(type, options);
  const key = sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'pem');
  const [algo, body] = key.toString('ssh').split(' ');
  return { line: `${algo} ${body} ${comment}`, fingerprint: key.fingerprint('sha256').toString() };
}

/** SSH public keys: admin routes, the user's own routes and the public listing (issue 6, item 6). */
describe('public keys', () => {
  let t: TestApp;
  let root: User;
  let rootToken: string;

  beforeAll(async () => {
    t = await createAdminUsersTestApp();
    root = (await t.app.get(UsersService).findByName(BOOTSTRAP_ADMIN.username))!;
    rootToken = await t.factories.token(root);
  });
  afterAll(() => t.close());

  const adminAdd = (name: string, body: unknown, token = rootToken) =>
    t
      .http()
      .post(`/api/v1/admin/users/${name}/keys`)
      .set(auth(token))
      .send(body as object);

  it('201 with the sshpk fingerprint, key_type user and the owner', async () => {
    const u = await t.factories.user();
    const key = sshKey('ed25519');
    const res = await adminAdd(u.user.name, { title: 'laptop', key: `  ${key.line}\n` });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'laptop',
      key: key.line,
      fingerprint: key.fingerprint,
      key_type: 'user',
      user: { login: u.user.name },
    });
    expect(res.body.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(res.body.url).toBe(`${t.config.publicUrl}api/v1/user/keys/${res.body.id}`);
  });

  it('ECDSA and RSA 2048 keys are accepted', async () => {
    const u = await t.factories.user();
    expect(
      (await adminAdd(u.user.name, { title: 'ec', key: sshKey('ec', { namedCurve: 'P-256' }).line })).status,
    ).toBe(201);
    expect(
      (await adminAdd(u.user.name, { title: 'rsa', key: sshKey('rsa', { modulusLength: 2048 }).line }))
        .status,
    ).toBe(201);
  });

  it.each([
    [{ key: 'ssh-ed25519 AAAA' }, '[Title]: Required'],
    [{ title: 't' }, '[Key]: Required'],
  ])('422 binding %j', async (body, message) => {
    const u = await t.factories.user();
    const res = await adminAdd(u.user.name, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(message);
  });

  it('422 for unparseable, multi-line, too short and disallowed keys', async () => {
    const u = await t.factories.user();
    const garbage = await adminAdd(u.user.name, { title: 'g', key: 'garbage' });
    expect(garbage.status).toBe(422);
    expect(garbage.body.message).toMatch(/^Invalid key content: invalid ssh public key: /);
    const one = sshKey('ed25519').line;
    const two = await adminAdd(u.user.name, { title: 'two', key: `${one}\n${sshKey('ed25519').line}` });
    expect(two.body.message).toBe('Invalid key content: only a single line with a single key please');
    const rsa = await adminAdd(u.user.name, {
      title: 'rsa1024',
      key: sshKey('rsa', { modulusLength: 1024 }).line,
    });
    expect(rsa.status).toBe(422);
    expect(rsa.body.message).toBe('Invalid key content: key length is not enough: got 1024, needs 2047');
    const dsa = await adminAdd(u.user.name, {
      title: 'dsa',
      key: sshKey('dsa', { modulusLength: 1024, divisorLength: 160 }).line,
    });
    expect(dsa.status).toBe(422);
    expect(dsa.body.message).toBe('Invalid key content: key type is not allowed: dsa');
  });

  it('422 for a key already used (by anyone) and for a title already used by the owner', async () => {
    const u = await t.factories.user();
    const other = await t.factories.user();
    const key = sshKey('ed25519');
    expect((await adminAdd(u.user.name, { title: 'k', key: key.line })).status).toBe(201);
    const again = await adminAdd(other.user.name, {
      title: 'k',
      key: key.line.replace('me@laptop', 'other'),
    });
    expect(again.status).toBe(422);
    expect(again.body.message).toBe('Key content has been used as non-deploy key');
    const sameTitle = await adminAdd(u.user.name, { title: 'k', key: sshKey('ed25519').line });
    expect(sameTitle.status).toBe(422);
    expect(sameTitle.body.message).toBe('Key title has been used');
    expect((await adminAdd(other.user.name, { title: 'k', key: sshKey('ed25519').line })).status).toBe(201);
  });

  it('403 for a non-admin, 404 for an unknown user, 422 for an organization', async () => {
    const plain = await t.factories.user();
    expect(
      (await adminAdd(plain.user.name, { title: 'x', key: sshKey('ed25519').line }, plain.token)).status,
    ).toBe(403);
    expect((await adminAdd('nobody', { title: 'x', key: sshKey('ed25519').line })).status).toBe(404);
    const org = await t.factories.organization();
    const res = await adminAdd(org.name, { title: 'x', key: sshKey('ed25519').line });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(`${org.name} is an organization not a user`);
  });

  it('DELETE /admin/users/{u}/keys/{id}: 204 own key, 404 unknown or non-numeric id, 403 key of someone else', async () => {
    const u = await t.factories.user();
    const other = await t.factories.user();
    const mine = (await adminAdd(u.user.name, { title: 'mine', key: sshKey('ed25519').line })).body as {
      id: number;
    };
    const theirs = (await adminAdd(other.user.name, { title: 'theirs', key: sshKey('ed25519').line }))
      .body as { id: number };
    const foreign = await t
      .http()
      .delete(`/api/v1/admin/users/${u.user.name}/keys/${theirs.id}`)
      .set(auth(rootToken));
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe('You do not have access to this key');
    expect(
      (await t.http().delete(`/api/v1/admin/users/${u.user.name}/keys/999999`).set(auth(rootToken))).status,
    ).toBe(404);
    expect(
      (await t.http().delete(`/api/v1/admin/users/${u.user.name}/keys/abc`).set(auth(rootToken))).status,
    ).toBe(404);
    expect(
      (await t.http().delete(`/api/v1/admin/users/${u.user.name}/keys/${mine.id}`).set(auth(rootToken)))
        .status,
    ).toBe(204);
    expect(
      (await t.http().delete(`/api/v1/admin/users/${u.user.name}/keys/${mine.id}`).set(auth(rootToken)))
        .status,
    ).toBe(404);
    const plain = await t.factories.user();
    expect(
      (
        await t
          .http()
          .delete(`/api/v1/admin/users/${other.user.name}/keys/${theirs.id}`)
          .set(auth(plain.token))
      ).status,
    ).toBe(403);
  });

  it("the user's own keys: POST, GET with paging and fingerprint filter, GET/DELETE by id", async () => {
    const u = await t.factories.user();
    const other = await t.factories.user();
    const k1 = sshKey('ed25519');
    const k2 = sshKey('ed25519');
    const created = await t
      .http()
      .post('/api/v1/user/keys')
      .set(auth(u.token))
      .send({ title: 'one', key: k1.line });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ key_type: 'user', user: { login: u.user.name } });
    expect(
      (await t.http().post('/api/v1/user/keys').set(auth(u.token)).send({ title: 'two', key: k2.line }))
        .status,
    ).toBe(201);
    const otherKey = sshKey('ed25519');
    await t.http().post('/api/v1/user/keys').set(auth(other.token)).send({ title: 'o', key: otherKey.line });

    const page = await t.http().get('/api/v1/user/keys').query({ limit: 1 }).set(auth(u.token));
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(1);
    expect(page.body[0].title).toBe('one');
    expect(page.headers['x-total-count']).toBe('2');
    expect(page.headers.link).toContain('rel="next"');
    const filtered = await t
      .http()
      .get('/api/v1/user/keys')
      .query({ fingerprint: k2.fingerprint })
      .set(auth(u.token));
    expect((filtered.body as { title: string }[]).map((k) => k.title)).toEqual(['two']);
    const notMine = await t
      .http()
      .get('/api/v1/user/keys')
      .query({ fingerprint: otherKey.fingerprint })
      .set(auth(u.token));
    expect(notMine.body).toEqual([]);

    const byId = await t.http().get(`/api/v1/user/keys/${created.body.id}`).set(auth(u.token));
    expect(byId.status).toBe(200);
    expect(byId.body.fingerprint).toBe(k1.fingerprint);
    expect((await t.http().get(`/api/v1/user/keys/${created.body.id}`).set(auth(other.token))).status).toBe(
      403,
    );
    expect((await t.http().get('/api/v1/user/keys/424242').set(auth(u.token))).status).toBe(404);
    expect(
      (await t.http().delete(`/api/v1/user/keys/${created.body.id}`).set(auth(other.token))).status,
    ).toBe(403);
    expect((await t.http().delete(`/api/v1/user/keys/${created.body.id}`).set(auth(u.token))).status).toBe(
      204,
    );
    expect((await t.http().get('/api/v1/user/keys').set(auth(u.token))).headers['x-total-count']).toBe('1');
  });

  it('own keys need a signed-in caller and the user scope', async () => {
    expect((await t.http().get('/api/v1/user/keys')).status).toBe(401);
    const u = await t.factories.user();
    const token = await t.factories.token(u.user, { scopes: ['read:repository'], name: 'repo' });
    expect((await t.http().get('/api/v1/user/keys').set(auth(token))).status).toBe(403);
    const read = await t.factories.token(u.user, { scopes: ['read:user'], name: 'ru' });
    expect((await t.http().get('/api/v1/user/keys').set(auth(read))).status).toBe(200);
    expect(
      (
        await t
          .http()
          .post('/api/v1/user/keys')
          .set(auth(read))
          .send({ title: 'x', key: sshKey('ed25519').line })
      ).status,
    ).toBe(403);
  });

  it('GET /users/{username}/keys: 401 anonymous, 404 unknown, others see no key_type or user', async () => {
    const u = await t.factories.user();
    const viewer = await t.factories.user();
    await t
      .http()
      .post('/api/v1/user/keys')
      .set(auth(u.token))
      .send({ title: 'pub', key: sshKey('ed25519').line });
    expect((await t.http().get(`/api/v1/users/${u.user.name}/keys`)).status).toBe(401);
    expect((await t.http().get('/api/v1/users/nobody/keys').set(auth(viewer.token))).status).toBe(404);
    const res = await t.http().get(`/api/v1/users/${u.user.name}/keys`).set(auth(viewer.token));
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).not.toHaveProperty('key_type');
    expect(res.body[0]).not.toHaveProperty('user');
    const own = await t.http().get(`/api/v1/users/${u.user.name}/keys`).set(auth(u.token));
    expect(own.body[0].key_type).toBe('user');
    const admin = await t.http().get(`/api/v1/users/${u.user.name}/keys`).set(auth(rootToken));
    expect(admin.body[0].user.login).toBe(u.user.name);
  });

  it('keys go with their user', async () => {
    const u = await t.factories.user();
    const key = sshKey('ed25519');
    await t.http().post('/api/v1/user/keys').set(auth(u.token)).send({ title: 'gone', key: key.line });
    expect((await t.http().delete(`/api/v1/admin/users/${u.user.name}`).set(auth(rootToken))).status).toBe(
      204,
    );
    const other = await t.factories.user();
    expect(
      (
        await t
          .http()
          .post('/api/v1/user/keys')
          .set(auth(other.token))
          .send({ title: 'reuse', key: key.line })
      ).status,
    ).toBe(201);
  });
});
