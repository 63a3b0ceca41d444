import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { accessRule, bearer, ocs, WF } from '../workflows/helpers';

const STRONG = 'Correct-Horse-Battery-Staple-9';

interface Entry {
  action: string;
  resource_type: string;
  resource_target: string;
  resource_id: string;
  request_id: string;
  additional_fields: Record<string, unknown>;
  diff: Record<string, { old: unknown; new: unknown; secret?: boolean }>;
  description: string;
  user: { username: string } | null;
  organization_id: string;
  ip: string;
  user_agent: string;
}

/** The audit log (issue 16 item 8): entries in the transaction of every administrative write, and GET /api/v2/audit. */
describe('audit log (GET /api/v2/audit)', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let auditor: CreatedUser;
  let member: CreatedUser;
  const as = (who: CreatedUser | string) => ({
    'Service-Session-Token': typeof who === 'string' ? who : who.token,
  });
  const entries = async (q: string, who: CreatedUser = owner): Promise<Entry[]> => {
    const res = await t.http().get('/api/v2/audit').query({ q, limit: 100 }).set(as(who));
    expect(res.status).toBe(200);
    return res.body.audit_logs as Entry[];
  };

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.admin({ username: 'auditowner' });
    auditor = await t.factories.user({ username: 'theauditor', siteRoles: ['auditor'] });
    member = await t.factories.user({ username: 'auditmember' });
  });
  afterAll(() => t.close());

  it('who may read: auditors and owners (200), members (403), narrow tokens (403), nobody anonymous (401)', async () => {
    expect((await t.http().get('/api/v2/audit').set(as(auditor))).status).toBe(200);
    expect((await t.http().get('/api/v2/audit').set(as(owner))).status).toBe(200);
    expect((await t.http().get('/api/v2/audit').set(as(member))).status).toBe(403);
    const narrow = await t.factories.token(owner.user, { scopes: ['user:read'] });
    expect((await t.http().get('/api/v2/audit').set(as(narrow))).status).toBe(403);
    const auditScope = await t.factories.token(owner.user, { scopes: ['audit_log:read'] });
    expect((await t.http().get('/api/v2/audit').set(as(auditScope))).status).toBe(200);
    expect((await t.http().get('/api/v2/audit')).status).toBe(401);
  });

  it('records Coder user management writes with actor, diff, request facts and description', async () => {
    const created = await t
      .http()
      .post('/api/v2/users')
      .set(as(owner))
      .set('User-Agent', 'audit-test/1.0')
      .send({
        username: 'audited',
        email: 'audited@example.com',
        password: STRONG,
        organization_ids: ['00000000-0000-0000-0000-000000000000'],
      });
    expect(created.status).toBe(201);
    await t.http().put('/api/v2/users/audited/status/suspend').set(as(owner)).expect(200);
    await t
      .http()
      .put('/api/v2/users/audited/roles')
      .set(as(owner))
      .send({ roles: ['auditor'] })
      .expect(200);
    const list = await entries('resource_type:user resource_target:audited');
    expect(list.map((e) => e.action)).toEqual(['write', 'write', 'create']);
    const create = list[2]!;
    expect(create).toMatchObject({
      user: { username: 'auditowner' },
      description: '{user} created user {target}',
      user_agent: 'audit-test/1.0',
    });
    expect(create.ip).not.toBe('');
    expect(create.diff.username).toEqual({ old: '', new: 'audited', secret: false });
    expect(list[1]!.diff.status).toEqual({ old: 'dormant', new: 'suspended', secret: false });
    expect(list[0]!.diff.rbac_roles).toEqual({ old: [], new: ['auditor'], secret: false });
  });

  it('a refused write leaves no entry (the entry is part of the write)', async () => {
    const before = (await entries('resource_type:user')).length;
    const dup = await t
      .http()
      .post('/api/v2/users')
      .set(as(owner))
      .send({
        username: 'audited',
        email: 'again@example.com',
        password: STRONG,
        organization_ids: ['00000000-0000-0000-0000-000000000000'],
      });
    expect(dup.status).toBe(409);
    expect((await entries('resource_type:user')).length).toBe(before);
  });

  it('records Gitea admin writes (create, edit, rename, delete)', async () => {
    const gitea = { Authorization: `token ${owner.token}` };
    await t
      .http()
      .post('/api/v1/admin/users')
      .set(gitea)
      .send({
        username: 'giteauser',
        email: 'giteauser@example.com',
        password: 'Gitea-Pass-12345',
        must_change_password: false,
      })
      .expect(201);
    await t
      .http()
      .patch('/api/v1/admin/users/giteauser')
      .set(gitea)
      .send({ full_name: 'Gitea User', login_name: 'giteauser' })
      .expect(200);
    await t
      .http()
      .post('/api/v1/admin/users/giteauser/rename')
      .set(gitea)
      .send({ new_username: 'giteauser2' })
      .expect(204);
    await t.http().delete('/api/v1/admin/users/giteauser2').set(gitea).expect(204);
    const list = await entries('resource_type:user username:auditowner');
    const giteaEntries = list.filter((e) => e.resource_target.startsWith('giteauser'));
    expect(giteaEntries.map((e) => e.action)).toEqual(['delete', 'write', 'write', 'create']);
    expect(giteaEntries[2]!.diff.full_name).toEqual({ old: '', new: 'Gitea User', secret: false });
    expect(giteaEntries[1]!.diff.username).toEqual({ old: 'giteauser', new: 'giteauser2', secret: false });
  });

  it('records API key creation and deletion, logins and logouts', async () => {
    const created = await t
      .http()
      .post('/api/v2/users/me/keys/tokens')
      .set(as(member))
      .send({ token_name: 'ci' });
    expect(created.status).toBe(201);
    const id = (created.body.key as string).split('-')[0]!;
    await t.http().delete(`/api/v2/users/me/keys/${id}`).set(as(member)).expect(204);
    const login = await t
      .http()
      .post('/api/v2/users/login')
      .send({ email: member.user.email, password: member.password });
    expect(login.status).toBe(201);
    await t.http().post('/api/v2/users/logout').set(as(login.body.session_token)).expect(200);
    const keys = await entries('resource_type:api_key username:auditmember');
    expect(keys.map((e) => e.action)).toEqual(['logout', 'login', 'delete', 'create']);
    expect(keys[1]!.description).toBe('{user} logged in');
    expect(keys[3]!.resource_target).toBe('ci');
  });

  it('records workflow rule changes, notification settings and secrets (never the value)', async () => {
    const auth = bearer(owner.token);
    const created = await ocs(t, 'post', `${WF}/global`, auth, accessRule({ name: 'audited rule' }));
    expect(created.status).toBe(200);
    const id = created.body.ocs.data.id as number;
    await ocs(t, 'put', `${WF}/global/${id}`, auth, accessRule({ name: 'audited rule' })).expect(200);
    await ocs(t, 'delete', `${WF}/global/${id}`, auth).expect(200);
    const rules = await entries('resource_type:workflow_rule');
    expect(rules.map((e) => e.action)).toEqual(['delete', 'write', 'create']);
    expect(rules[2]!.resource_target).toBe('audited rule');
    // The create's entry is written by the rule's own statement: the new id, the caller, the request.
    expect(rules[2]).toMatchObject({
      resource_id: String(id),
      user: { username: 'auditowner' },
      diff: {
        operation: { old: null, new: 'deny', secret: false },
        events: { old: null, new: [], secret: false },
      },
      additional_fields: { class: accessRule().class, scope: 'global' },
    });
    expect(rules[2]!.ip).not.toBe('');
    expect(rules[2]!.request_id).toEqual(expect.any(String));
    expect(rules[1]!.resource_id).toBe(String(id));

    await t
      .http()
      .put('/api/v2/notifications/settings')
      .set(as(owner))
      .send({ notifier_paused: true })
      .expect(200);
    const settings = await entries('resource_type:notifications_settings');
    expect(settings[0]!.diff.notifier_paused).toEqual({ old: false, new: true, secret: false });

    await t
      .http()
      .post('/api/v2/users/me/secrets')
      .set(as(member))
      .send({ name: 'tok', value: 'hunter2-secret', env_name: 'TOK' })
      .expect(201);
    await t
      .http()
      .patch('/api/v2/users/me/secrets/tok')
      .set(as(member))
      .send({ value: 'rotated-secret' })
      .expect(200);
    await t.http().delete('/api/v2/users/me/secrets/tok').set(as(member)).expect(204);
    const secrets = await entries('resource_type:user_secret');
    expect(secrets.map((e) => e.action)).toEqual(['delete', 'write', 'create']);
    expect(JSON.stringify(secrets)).not.toContain('hunter2');
    expect(JSON.stringify(secrets)).not.toContain('rotated-secret');
    expect(secrets[1]!.diff.value).toEqual({ old: '', new: '', secret: true });
  });

  it('filters by action, username, date and organization; pages; refuses bad queries', async () => {
    const creates = await entries('action:create');
    expect(creates.length).toBeGreaterThan(2);
    expect(creates.every((e) => e.action === 'create')).toBe(true);
    const today = new Date().toISOString().slice(0, 10);
    expect((await entries(`date_from:${today} date_to:${today}`)).length).toBeGreaterThan(0);
    expect(await entries('date_to:2001-01-01')).toEqual([]);
    const page = await t.http().get('/api/v2/audit').query({ limit: 2, offset: 1 }).set(as(owner));
    expect(page.body.audit_logs).toHaveLength(2);
    expect(page.body.count).toBeGreaterThan(3);
    expect(page.body.count_cap).toBe(2000); // Coder always sends the cap (issue 48 item 9)
    const bare = await entries('api_key'); // a bare word is a resource type
    expect(bare.every((e) => e.resource_type === 'api_key')).toBe(true);
    for (const q of ['action:explode', 'date_from:yesterday', 'colour:red', 'organization:nowhere']) {
      const bad = await t.http().get('/api/v2/audit').query({ q }).set(as(owner));
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Invalid audit search query.');
    }
    const badLimit = await t.http().get('/api/v2/audit').query({ limit: -1 }).set(as(owner));
    expect(badLimit.status).toBe(400);
  });

  it('organization auditors see only their organizations', async () => {
    const org = await t.http().post('/api/v2/organizations').set(as(owner)).send({ name: 'auditorg' });
    expect(org.status).toBe(201);
    const orgAuditor = await t.factories.user({ username: 'orgauditor' });
    await t.http().post('/api/v2/organizations/auditorg/members/orgauditor').set(as(owner)).expect(200);
    await t
      .http()
      .put('/api/v2/organizations/auditorg/members/orgauditor/roles')
      .set(as(owner))
      .send({ roles: ['organization-auditor'] })
      .expect(200);
    const seen = await entries('', orgAuditor);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((e) => e.organization_id === org.body.id)).toBe(true);
    const byOrg = await entries('organization:auditorg');
    expect(byOrg.length).toBe(seen.length);
  });
});

describe('audit log count cap', () => {
  let t: TestApp;
  afterAll(() => t.close());

  it('reports count_cap when the count stops at AUDIT_COUNT_CAP', async () => {
    t = await createTestApp({ env: { AUDIT_COUNT_CAP: '3' } });
    const owner = await t.factories.admin({ username: 'capowner' });
    for (const name of ['g1', 'g2', 'g3', 'g4']) {
      await t
        .http()
        .post('/api/v2/organizations')
        .set('Service-Session-Token', owner.token)
        .send({ name })
        .expect(201);
    }
    const res = await t
      .http()
      .get('/api/v2/audit')
      .query({ limit: 2 })
      .set('Service-Session-Token', owner.token);
    expect(res.body).toMatchObject({ count: 3, count_cap: 3 });
    expect(res.body.audit_logs).toHaveLength(2);
    const narrow = await t
      .http()
      .get('/api/v2/audit')
      .query({ q: 'resource_target:g1' })
      .set('Service-Session-Token', owner.token);
    expect(narrow.body.count).toBe(1);
    expect(narrow.body.count_cap).toBe(3); // always present, also below the cap
  });
});
