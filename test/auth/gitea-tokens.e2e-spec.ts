import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** Gitea's `/api/v1/users/{username}/tokens` (issue 36 item 1: a first token the Gitea way). */
describe('Gitea access tokens', () => {
  let t: TestApp;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let admin: CreatedUser;
  const basic = (who: CreatedUser) =>
    `Basic ${Buffer.from(`${who.user.name}:${who.password}`).toString('base64')}`;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user({ username: 'gtalice' });
    bob = await t.factories.user({ username: 'gtbob' });
    admin = await t.factories.admin({ username: 'gtadmin' });
  });
  afterAll(() => t.close());

  it('creates a token with Basic authentication; the key (sha1) works once shown and is never listed again', async () => {
    const created = await t
      .http()
      .post('/api/v1/users/gtalice/tokens')
      .set('Authorization', basic(alice))
      .send({ name: 'ci', scopes: ['read:repository', 'write:repository', 'read:user'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'ci',
      scopes: ['write:repository', 'read:user'].sort((a, b) =>
        a.split(':')[1]!.localeCompare(b.split(':')[1]!),
      ),
    });
    expect(Number.isInteger(created.body.id)).toBe(true);
    expect(created.body.sha1).toMatch(/^.{10}-.+$/);
    expect(created.body.token_last_eight).toBe(created.body.sha1.slice(0, 10).slice(-8));

    const me = await t.http().get('/api/v1/user').set('Authorization', `token ${created.body.sha1}`);
    expect(me.status).toBe(200);
    expect(me.body.login).toBe('gtalice');
    // The new key has no write:user scope.
    const narrow = await t
      .http()
      .put('/api/v1/user/blocks/gtbob')
      .set('Authorization', `token ${created.body.sha1}`);
    expect(narrow.status).toBe(403);

    const list = await t.http().get('/api/v1/users/gtalice/tokens').set('Authorization', basic(alice));
    expect(list.status).toBe(200);
    // The factory's token and the new one, newest first; keys are never listed.
    expect(list.headers['x-total-count']).toBe('2');
    expect(list.body[0]).toEqual(
      expect.objectContaining({
        id: created.body.id,
        name: 'ci',
        sha1: '',
        token_last_eight: created.body.token_last_eight,
      }),
    );
    expect(list.body.every((token: { sha1: string }) => token.sha1 === '')).toBe(true);
  });

  it('refuses a token header, the query token and anonymous callers (401), other users (403), unknown users (404)', async () => {
    const header = await t
      .http()
      .post('/api/v1/users/gtalice/tokens')
      .set('Authorization', `token ${alice.token}`)
      .send({ name: 'x', scopes: ['all'] });
    expect(header.status).toBe(401);
    expect(header.body.message).toBe('auth required');
    expect((await t.http().get('/api/v1/users/gtalice/tokens')).status).toBe(401);
    const query = await t.http().get(`/api/v1/users/gtalice/tokens?token=${alice.token}`);
    expect(query.status).toBe(401);
    const wrong = await t
      .http()
      .get('/api/v1/users/gtalice/tokens')
      .set('Authorization', `Basic ${Buffer.from('gtalice:nope').toString('base64')}`);
    expect(wrong.status).toBe(401);
    const other = await t.http().get('/api/v1/users/gtalice/tokens').set('Authorization', basic(bob));
    expect(other.status).toBe(403);
    expect(other.body.message).toBe('doer should be the site admin or be same as the contextUser');
    expect((await t.http().get('/api/v1/users/nobody/tokens').set('Authorization', basic(bob))).status).toBe(
      404,
    );
    // A token presented through Basic is Basic authentication (Gitea's IsBasicAuth).
    const viaBasic = await t
      .http()
      .get('/api/v1/users/gtalice/tokens')
      .set('Authorization', `Basic ${Buffer.from(`${alice.token}:x-oauth-basic`).toString('base64')}`);
    expect(viaBasic.status).toBe(200);
  });

  it('a site administrator manages any user’s tokens', async () => {
    const created = await t
      .http()
      .post('/api/v1/users/gtbob/tokens')
      .set('Authorization', basic(admin))
      .send({ name: 'deploy', scopes: ['all'] });
    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual(['all']);
    const me = await t.http().get('/api/v1/user').set('Authorization', `token ${created.body.sha1}`);
    expect(me.body.login).toBe('gtbob');
    expect(
      (
        await t
          .http()
          .delete(`/api/v1/users/gtbob/tokens/${created.body.id}`)
          .set('Authorization', basic(admin))
      ).status,
    ).toBe(204);
    expect(
      (await t.http().get('/api/v1/user').set('Authorization', `token ${created.body.sha1}`)).status,
    ).toBe(401);
  });

  it('bad input: no scope, unknown scope, name taken (400), no name (422); delete by name, unknown (404)', async () => {
    const post = (body: object) =>
      t.http().post('/api/v1/users/gtalice/tokens').set('Authorization', basic(alice)).send(body);
    const none = await post({ name: 'empty' });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('access token must have a scope');
    const unknown = await post({ name: 'bad', scopes: ['read:everything'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe(
      'invalid access token scope provided: invalid access token scope: read:everything',
    );
    expect((await post({ scopes: ['all'] })).status).toBe(422);
    expect((await post({ name: 'twice', scopes: ['read:user'] })).status).toBe(201);
    const taken = await post({ name: 'twice', scopes: ['read:user'] });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toBe('access token name has been used already');
    // Nothing was created by the refused requests.
    const names = (
      await t.http().get('/api/v1/users/gtalice/tokens').set('Authorization', basic(alice))
    ).body.map((token: { name: string }) => token.name);
    expect(names.filter((name: string) => !name.startsWith('token_')).sort()).toEqual(['ci', 'twice']);

    const del = (ref: string) =>
      t.http().delete(`/api/v1/users/gtalice/tokens/${ref}`).set('Authorization', basic(alice));
    expect((await del('twice')).status).toBe(204);
    expect((await del('twice')).status).toBe(404);
    expect((await del('999999')).status).toBe(404);
  });
});
