import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** Issues 10.10 / 11.8: codersdk.User tags avatar_url `omitempty` (and `format:"uri"`): no `""` on the wire. */
describe('Coder user avatar_url', () => {
  let t: TestApp;
  let alice: CreatedUser;
  let bob: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user();
    bob = await t.factories.user();
    await t.dataSource.query('UPDATE users SET avatar_url = $1 WHERE id = $2', [
      'https://example.com/bob.png',
      bob.user.id,
    ]);
  });
  afterAll(() => t.close());

  it('is omitted when the user has no avatar', async () => {
    const res = await t.http().get('/api/v2/users/me').set('Service-Session-Token', alice.token);
    expect(res.status).toBe(200);
    expect(res.body.username).toBe(alice.user.name);
    expect(Object.keys(res.body)).not.toContain('avatar_url');
  });

  it('is present, in its usual place, when set', async () => {
    const res = await t.http().get('/api/v2/users/me').set('Service-Session-Token', bob.token);
    expect(res.status).toBe(200);
    expect(res.body.avatar_url).toBe('https://example.com/bob.png');
    expect(Object.keys(res.body).slice(0, 4)).toEqual(['id', 'username', 'avatar_url', 'name']);
  });
});
