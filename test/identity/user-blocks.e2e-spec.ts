import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** Gitea's user blocking (`/user/blocks`, `/orgs/{org}/blocks`). */
describe('user blocks', () => {
  let t: TestApp;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let admin: CreatedUser;
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user({ username: 'blalice' });
    bob = await t.factories.user({ username: 'blbob' });
    admin = await t.factories.admin({ username: 'bladmin' });
  });
  afterAll(() => t.close());

  it('blocks, checks, lists (paged) and unblocks', async () => {
    expect((await t.http().get('/api/v1/user/blocks/blbob').set(tok(alice))).status).toBe(404);
    expect((await t.http().put('/api/v1/user/blocks/blbob?note=spam').set(tok(alice))).status).toBe(204);
    expect((await t.http().get('/api/v1/user/blocks/blbob').set(tok(alice))).status).toBe(204);
    const list = await t.http().get('/api/v1/user/blocks').set(tok(alice));
    expect(list.status).toBe(200);
    expect(list.body.map((u: { login: string }) => u.login)).toEqual(['blbob']);
    expect(list.headers['x-total-count']).toBe('1');
    expect((await t.http().get('/api/v1/user/blocks').set(tok(bob))).body).toEqual([]);
    expect((await t.http().delete('/api/v1/user/blocks/blbob').set(tok(alice))).status).toBe(204);
    const again = await t.http().delete('/api/v1/user/blocks/blbob').set(tok(alice));
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('user can not be unblocked');
  });

  it('refuses blocking oneself, an administrator or an organization (400), unknown users (404), anonymous callers (401)', async () => {
    for (const name of ['blalice', 'bladmin']) {
      const res = await t.http().put(`/api/v1/user/blocks/${name}`).set(tok(alice));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('user can not be blocked');
    }
    await t.factories.organization('blorg', alice.user.id);
    expect((await t.http().put('/api/v1/user/blocks/blorg').set(tok(bob))).status).toBe(400);
    expect((await t.http().put('/api/v1/user/blocks/nobody').set(tok(alice))).status).toBe(404);
    expect((await t.http().put('/api/v1/user/blocks/blbob')).status).toBe(401);
    const narrow = await t.factories.token(alice.user, { scopes: ['read:user'] });
    expect(
      (await t.http().put('/api/v1/user/blocks/blbob').set('Authorization', `token ${narrow}`)).status,
    ).toBe(403);
  });

  it('organizations block through their owners; others get 403', async () => {
    expect((await t.http().put('/api/v1/orgs/blorg/blocks/blbob').set(tok(bob))).status).toBe(403);
    expect((await t.http().put('/api/v1/orgs/blorg/blocks/blbob').set(tok(alice))).status).toBe(204);
    expect((await t.http().get('/api/v1/orgs/blorg/blocks/blbob').set(tok(alice))).status).toBe(204);
    expect(
      (await t.http().get('/api/v1/orgs/blorg/blocks').set(tok(admin))).body.map(
        (u: { login: string }) => u.login,
      ),
    ).toEqual(['blbob']);
    expect((await t.http().delete('/api/v1/orgs/blorg/blocks/blbob').set(tok(alice))).status).toBe(204);
    expect((await t.http().get('/api/v1/orgs/blorg/blocks/blbob').set(tok(alice))).status).toBe(404);
  });
});
