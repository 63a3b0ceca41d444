import { ActivityRecorder } from '../../src/modules/identity/activity-recorder.service';
import { tablesVersion } from '../../src/platform/cache/table-versions';
import { ClusterBus } from '../../src/platform/events/cluster-bus.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Credential lookups, RBAC subjects and memberships are cached (platform/cache): a change must be
 * visible to the very next request, whatever wrote it (API, repository or raw SQL).
 */
describe('identity read cache coherence', () => {
  let t: TestApp;
  let bob: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    bob = await t.factories.user();
  });

  const me = (token: string) => t.http().get('/api/v2/users/me').set('Service-Session-Token', token);
  const giteaAdmin = (token: string) =>
    t.http().get('/api/v1/admin/users').set('Authorization', `token ${token}`);

  it('a deleted token stops working on the next request', async () => {
    expect((await me(bob.token)).status).toBe(200);
    expect((await me(bob.token)).status).toBe(200);
    const id = bob.token.split('-')[0]!;
    const del = await t.http().delete(`/api/v2/users/me/keys/${id}`).set('Service-Session-Token', bob.token);
    expect(del.status).toBe(204);
    expect((await me(bob.token)).status).toBe(401);
  });

  it('a user suspended by raw SQL is refused on the next request', async () => {
    expect((await me(bob.token)).status).toBe(200);
    await t.dataSource.query(`UPDATE users SET status = 'suspended' WHERE id = $1`, [bob.user.id]);
    const res = await me(bob.token);
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/not active/);
  });

  it('promotion and demotion to site administrator take effect at once', async () => {
    expect((await giteaAdmin(bob.token)).status).toBe(403);
    await t.dataSource.query('UPDATE users SET is_admin = true WHERE id = $1', [bob.user.id]);
    expect((await giteaAdmin(bob.token)).status).toBe(200);
    await t.dataSource.query('UPDATE users SET is_admin = false WHERE id = $1', [bob.user.id]);
    expect((await giteaAdmin(bob.token)).status).toBe(403);
  });

  it('a new organization membership shows in the next Coder User and RBAC answer', async () => {
    const before = await me(bob.token);
    expect(before.body.organization_ids).toHaveLength(1);
    const check = {
      checks: { read: { action: 'read', object: { resource_type: 'organization', organization_id: '' } } },
    };
    await t.factories.organization(undefined, bob.user.id);
    const after = await me(bob.token);
    expect(after.body.organization_ids).toHaveLength(2);
    const authcheck = await t
      .http()
      .post('/api/v2/authcheck')
      .set('Service-Session-Token', bob.token)
      .send(check);
    expect(authcheck.status).toBe(200);
  });

  it('a write inside a transaction invalidates at the statement and again at commit', async () => {
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const start = tablesVersion(['users']);
      await runner.startTransaction();
      await runner.query('UPDATE users SET full_name = $1 WHERE id = $2', [
        'Bob In Transaction',
        bob.user.id,
      ]);
      const afterStatement = tablesVersion(['users']);
      expect(afterStatement).toBeGreaterThan(start);
      await runner.commitTransaction();
      expect(tablesVersion(['users'])).toBeGreaterThan(afterStatement);
    } finally {
      await runner.release();
    }
    const res = await me(bob.token);
    expect(res.body.name).toBe('Bob In Transaction');
  });

  it('activity writes (last_seen_at, token use) are recorded without moving any table version', async () => {
    const carol = await t.factories.user();
    expect((await me(bob.token)).status).toBe(200);
    const version = tablesVersion(['users', 'api_tokens', 'organization_members']);
    // Carol's first request writes her last_seen_at and her token's last use (in the next batch).
    expect((await me(carol.token)).status).toBe(200);
    await t.app.get(ActivityRecorder).flush();
    expect(tablesVersion(['users', 'api_tokens', 'organization_members'])).toBe(version);
    const [user] = (await t.dataSource.query('SELECT last_seen_at FROM users WHERE id = $1', [
      carol.user.id,
    ])) as { last_seen_at: Date | null }[];
    expect(user!.last_seen_at).not.toBeNull();
    const [token] = (await t.dataSource.query('SELECT last_used_at FROM api_tokens WHERE id = $1', [
      carol.token.split('-')[0],
    ])) as { last_used_at: Date | null }[];
    expect(token!.last_used_at).not.toBeNull();
    // The activity is visible at once on this instance (the cached row was patched).
    const again = await me(carol.token);
    expect(new Date(again.body.last_seen_at as string).getTime()).toBe(user!.last_seen_at!.getTime());
  });

  it('a token whose use was an activity write is still refused at once when expired by hand', async () => {
    const carol = await t.factories.user();
    expect((await me(carol.token)).status).toBe(200);
    expect((await me(carol.token)).status).toBe(200);
    await t.dataSource.query("UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1", [
      carol.token.split('-')[0],
    ]);
    expect((await me(carol.token)).status).toBe(401);
  });

  it('reads do not invalidate', async () => {
    await me(bob.token);
    const version = tablesVersion(['users', 'api_tokens']);
    await me(bob.token);
    await t.dataSource.query('SELECT count(*) FROM users');
    expect(tablesVersion(['users', 'api_tokens'])).toBe(version);
  });

  it("other instances' changes arrive as a ClusterBus message and invalidate", async () => {
    const version = tablesVersion(['api_tokens']);
    await t.app.get(ClusterBus).publish('tables.changed', { tables: ['api_tokens'] });
    expect(tablesVersion(['api_tokens'])).toBeGreaterThan(version);
  });
});

describe('identity read cache switched off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { IDENTITY_CACHE_SECONDS: '0' } });
  });
  afterAll(() => t.close());

  it('IDENTITY_CACHE_SECONDS=0 still authenticates and sees changes', async () => {
    const carol = await t.factories.user();
    const res = await t.http().get('/api/v1/user').set('Authorization', `token ${carol.token}`);
    expect(res.status).toBe(200);
    await t.dataSource.query(`UPDATE users SET status = 'suspended' WHERE id = $1`, [carol.user.id]);
    expect((await t.http().get('/api/v1/user').set('Authorization', `token ${carol.token}`)).status).toBe(
      403,
    );
  });
});
