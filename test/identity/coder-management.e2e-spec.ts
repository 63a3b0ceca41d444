import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const STRONG = 'Correct-Horse-Battery-Staple-9';

/** Coder's user, organization, group and role management (issue 16 items 1, 4, 5, 6). */
describe('Coder user and organization management', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let userAdmin: CreatedUser;
  let member: CreatedUser;
  let defaultOrg: string;
  const as = (who: CreatedUser | string) => ({
    'Service-Session-Token': typeof who === 'string' ? who : who.token,
  });

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.admin({ username: 'theowner' });
    userAdmin = await t.factories.user({ username: 'useradmin', siteRoles: ['user-admin'] });
    member = await t.factories.user({ username: 'plainmember' });
    const rows: { uuid: string }[] = await t.dataSource.query(
      `SELECT u.uuid FROM organizations o JOIN users u ON u.id = o.account_id WHERE o.is_default`,
    );
    defaultOrg = rows[0]!.uuid;
  });
  afterAll(() => t.close());

  describe('POST /api/v2/users', () => {
    const create = (body: Record<string, unknown>, who: CreatedUser = owner) =>
      t.http().post('/api/v2/users').set(as(who)).send(body);

    it('creates a password user (201, dormant until the first sign-in) in the given organizations', async () => {
      const res = await create({
        username: 'newbie',
        email: 'newbie@example.com',
        name: 'New Bie',
        password: STRONG,
        organization_ids: [defaultOrg],
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        username: 'newbie',
        email: 'newbie@example.com',
        name: 'New Bie',
        status: 'dormant',
        login_type: 'password',
        organization_ids: [defaultOrg],
        roles: [],
        has_ai_seat: false,
      });
      expect(res.body.is_service_account).toBeUndefined();
      const login = await t
        .http()
        .post('/api/v2/users/login')
        .send({ email: 'newbie@example.com', password: STRONG });
      expect(login.status).toBe(201);
      const after = await t.http().get('/api/v2/users/newbie').set(as(owner));
      expect(after.body.status).toBe('active');
    });

    it('the nil uuid means the default organization; a user-admin may create', async () => {
      const res = await create(
        {
          username: 'viaadmin',
          email: 'viaadmin@example.com',
          password: STRONG,
          organization_ids: ['00000000-0000-0000-0000-000000000000'],
          user_status: 'active',
        },
        userAdmin,
      );
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('active');
      expect(res.body.organization_ids).toEqual([defaultOrg]);
    });

    it.each([
      [{ username: 'x1', email: 'x1@example.com', password: STRONG }, 400, 'No organization specified'],
      [
        { username: 'x2', email: 'x2@example.com', password: 'short', organization_ids: [] as string[] },
        400,
        'No organization specified',
      ],
      [
        { username: 'x3', email: 'x3@example.com', password: 'password', organization_ids: ['ORG'] },
        400,
        'Password not strong enough!',
      ],
      [
        {
          username: 'x4',
          email: 'x4@example.com',
          login_type: 'github',
          password: STRONG,
          organization_ids: ['ORG'],
        },
        400,
        'Password cannot be set for non-password ("github") authentication.',
      ],
      [
        { username: 'x5', email: 'x5@example.com', login_type: 'oidc', organization_ids: ['ORG'] },
        400,
        'You must configure OIDC before creating OIDC users.',
      ],
      [
        { username: 'x6', email: 'x6@example.com', login_type: 'token', organization_ids: ['ORG'] },
        400,
        'Unsupported login type "token" for manually creating new users.',
      ],
      [
        { username: 'x7', email: 'x7@example.com', login_type: 'none', organization_ids: ['ORG'] },
        400,
        "Login type 'none' requires a service account.",
      ],
      [
        { username: 'theowner', email: 'other@example.com', password: STRONG, organization_ids: ['ORG'] },
        409,
        'User already exists.',
      ],
      [
        { username: 'fresh', email: 'THEOWNER@example.com', password: STRONG, organization_ids: ['ORG'] },
        409,
        'User already exists.',
      ],
      [
        {
          username: 'y1',
          email: 'y1@example.com',
          password: STRONG,
          organization_ids: ['7c5c2b2e-0000-4000-8000-000000000000'],
        },
        404,
        'Organization does not exist with the provided id "7c5c2b2e-0000-4000-8000-000000000000".',
      ],
    ] as [Record<string, unknown> & { username: string; organization_ids?: string[] }, number, string][])(
      'refuses %j with %i',
      async (body, status, message) => {
        const payload = {
          ...body,
          ...(body.organization_ids
            ? { organization_ids: body.organization_ids.map((id) => (id === 'ORG' ? defaultOrg : id)) }
            : {}),
        };
        const res = await create(payload);
        expect(res.status).toBe(status);
        expect(res.body.message).toContain(message);
        const { count } = (
          await t.dataSource.query(`SELECT count(*)::int AS count FROM users WHERE name = $1`, [
            body.username,
          ])
        )[0];
        expect(count).toBe(body.username === 'theowner' ? 1 : 0);
      },
    );

    it('validates the username and email with Coder texts', async () => {
      const bad = await create({
        username: 'not valid!',
        email: 'v@example.com',
        password: STRONG,
        organization_ids: [defaultOrg],
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        message: 'Validation failed.',
        validations: [
          { field: 'username', detail: 'Validation failed for tag "username" with value: "not valid!"' },
        ],
      });
      const noEmail = await create({ username: 'noemail', password: STRONG, organization_ids: [defaultOrg] });
      expect(noEmail.status).toBe(400);
      expect(noEmail.body.validations).toEqual([
        { field: 'email', detail: 'Validation failed for tag "required" with value: ""' },
      ]);
      const badEmail = await create({
        username: 'bademail',
        email: 'nope',
        password: STRONG,
        organization_ids: [defaultOrg],
      });
      expect(badEmail.body.validations).toEqual([
        { field: 'email', detail: 'Validation failed for tag "email" with value: "nope"' },
      ]);
      const badOrg = await create({
        username: 'badorg',
        email: 'b@example.com',
        password: STRONG,
        organization_ids: ['nope'],
      });
      expect(badOrg.status).toBe(400);
      expect(badOrg.body.message).toBe('Request body must be valid JSON.');
    });

    it('refuses members (403) and narrow tokens (403) and anonymous callers (401)', async () => {
      const body = {
        username: 'nope1',
        email: 'nope1@example.com',
        password: STRONG,
        organization_ids: [defaultOrg],
      };
      const denied = await create(body, member);
      expect(denied.status).toBe(403);
      expect(denied.body.message).toBe('You are not authorized to create users.');
      const narrow = await t.factories.token(owner.user, { scopes: ['user:read'] });
      expect((await t.http().post('/api/v2/users').set(as(narrow)).send(body)).status).toBe(403);
      expect((await t.http().post('/api/v2/users').send(body)).status).toBe(401);
      expect((await t.http().post('/api/v2/users').set(as('bogus-token')).send(body)).status).toBe(401);
    });
  });

  describe('service accounts (reference D.8)', () => {
    const create = (body: Record<string, unknown>) =>
      t
        .http()
        .post('/api/v2/users')
        .set(as(owner))
        .send({ organization_ids: [defaultOrg], ...body });

    it('creates one with login type none, no email, is_service_account true', async () => {
      const res = await create({ username: 'ci-bot', service_account: true });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        username: 'ci-bot',
        email: '',
        login_type: 'none',
        is_service_account: true,
      });
      const explicit = await create({ username: 'ci-bot2', service_account: true, login_type: 'none' });
      expect(explicit.status).toBe(201);
    });

    it.each([
      [
        { username: 'sa1', service_account: true, login_type: 'password' },
        "Service accounts must use login type 'none'.",
      ],
      [
        { username: 'sa2', service_account: true, password: STRONG },
        'Password cannot be set for service accounts.',
      ],
      [
        { username: 'sa3', service_account: true, email: 'sa3@example.com' },
        'Email cannot be set for service accounts.',
      ],
    ])('refuses %j', async (body, message) => {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    });

    it('service accounts cannot sign in, are found by service_account:true, and hold the service-account org role', async () => {
      const list = await t.http().get('/api/v2/users').query({ q: 'service_account:true' }).set(as(owner));
      expect(list.status).toBe(200);
      expect(list.body.users.map((u: { username: string }) => u.username).sort()).toEqual([
        'ci-bot',
        'ci-bot2',
      ]);
      expect(list.body.count).toBe(2);
      const humans = await t.http().get('/api/v2/users').query({ q: 'service_account:false' }).set(as(owner));
      expect(
        humans.body.users.every((u: { is_service_account?: boolean }) => u.is_service_account === undefined),
      ).toBe(true);
      const bad = await t.http().get('/api/v2/users').query({ q: 'service_account:maybe' }).set(as(owner));
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        message: 'Invalid user search query.',
        validations: [
          {
            field: 'service_account',
            detail: 'Query param "service_account" must be a valid boolean: invalid syntax',
          },
        ],
      });
      const login = await t.http().post('/api/v2/users/login').send({ email: 'ci-bot', password: 'x' });
      expect(login.status).toBeGreaterThanOrEqual(400);
    });
  });

  describe('GET /api/v2/users (search and paging)', () => {
    it('filters by status, role, login type and text; pages with limit/offset/after_id and counts', async () => {
      const all = await t.http().get('/api/v2/users').set(as(owner));
      expect(all.status).toBe(200);
      const names = all.body.users.map((u: { username: string }) => u.username);
      expect(names).toEqual([...names].sort());
      expect(all.body.count).toBe(names.length);
      const owners = await t.http().get('/api/v2/users').query({ q: 'role:owner' }).set(as(owner));
      expect(owners.body.users.map((u: { username: string }) => u.username)).toEqual(
        expect.arrayContaining(['admin', 'theowner']),
      );
      expect(owners.body.users.map((u: { username: string }) => u.username)).not.toContain('plainmember');
      const dormant = await t.http().get('/api/v2/users').query({ q: 'status:dormant' }).set(as(owner));
      expect(dormant.body.users.every((u: { status: string }) => u.status === 'dormant')).toBe(true);
      const text = await t.http().get('/api/v2/users').query({ q: 'plainm' }).set(as(owner));
      expect(text.body.users.map((u: { username: string }) => u.username)).toEqual(['plainmember']);
      const none = await t.http().get('/api/v2/users').query({ q: 'login_type:none' }).set(as(owner));
      expect(none.body.count).toBe(2);
      const page = await t.http().get('/api/v2/users').query({ limit: 2, offset: 1 }).set(as(owner));
      expect(page.body.users.map((u: { username: string }) => u.username)).toEqual(names.slice(1, 3));
      expect(page.body.count).toBe(names.length);
      const firstId = all.body.users[0].id;
      const after = await t.http().get('/api/v2/users').query({ after_id: firstId, limit: 1 }).set(as(owner));
      expect(after.body.users[0].username).toBe(names[1]);
    });

    it('answers Coder texts for bad queries', async () => {
      const badStatus = await t.http().get('/api/v2/users').query({ q: 'status:sleeping' }).set(as(owner));
      expect(badStatus.status).toBe(400);
      expect(badStatus.body.validations).toEqual([
        {
          field: 'status',
          detail: 'Query param "status" has invalid values: "sleeping" is not a valid value',
        },
      ]);
      const unknown = await t.http().get('/api/v2/users').query({ q: 'colour:red' }).set(as(owner));
      expect(unknown.body.validations).toEqual([
        { field: 'colour', detail: 'Query param "colour" is not a valid query param' },
      ]);
      const colons = await t.http().get('/api/v2/users').query({ q: 'a:b:c' }).set(as(owner));
      expect(colons.body.validations).toEqual([
        { field: 'q', detail: `Query element "a:b:c" can only contain 1 ':'` },
      ]);
      const limit = await t.http().get('/api/v2/users').query({ limit: 'many' }).set(as(owner));
      expect(limit.status).toBe(400);
      expect(limit.body.message).toBe('Query parameters have invalid values.');
    });

    it('a plain member sees only themselves', async () => {
      const res = await t.http().get('/api/v2/users').set(as(member));
      expect(res.body.users.map((u: { username: string }) => u.username)).toEqual(['plainmember']);
      expect(res.body.count).toBe(1);
    });
  });

  describe('status, profile, roles, delete', () => {
    let target: CreatedUser;
    beforeAll(async () => {
      target = await t.factories.user({ username: 'target1' });
    });

    it('suspends and activates (200 User); suspended users cannot call the API', async () => {
      const suspended = await t.http().put('/api/v2/users/target1/status/suspend').set(as(userAdmin));
      expect(suspended.status).toBe(200);
      expect(suspended.body.status).toBe('suspended');
      expect((await t.http().get('/api/v2/users/me').set(as(target))).status).toBe(401);
      const active = await t
        .http()
        .put(`/api/v2/users/${target.user.uuid}/status/activate`)
        .set(as(userAdmin));
      expect(active.body.status).toBe('active');
      expect((await t.http().get('/api/v2/users/me').set(as(target))).status).toBe(200);
    });

    it('refuses suspending yourself, an owner, and members suspending anyone', async () => {
      const self = await t.http().put('/api/v2/users/me/status/suspend').set(as(userAdmin));
      expect(self.status).toBe(400);
      expect(self.body.message).toBe('You cannot suspend yourself.');
      const anOwner = await t.http().put('/api/v2/users/theowner/status/suspend').set(as(userAdmin));
      expect(anOwner.status).toBe(400);
      expect(anOwner.body.message).toBe(
        'You cannot suspend a user with the "owner" role. You must remove the role first.',
      );
      const byMember = await t.http().put('/api/v2/users/target1/status/suspend').set(as(member));
      expect(byMember.status).toBe(404); // members cannot read other users
    });

    it('updates the profile (username, name) and refuses a taken username with 409', async () => {
      const res = await t
        .http()
        .put('/api/v2/users/me/profile')
        .set(as(target))
        .send({ username: 'target1', name: 'Tar Get' });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Tar Get');
      const taken = await t
        .http()
        .put('/api/v2/users/me/profile')
        .set(as(target))
        .send({ username: 'plainmember' });
      expect(taken.status).toBe(409);
      expect(taken.body).toEqual({
        message: 'A user with this username already exists.',
        validations: [{ field: 'username', detail: 'This username is already in use.' }],
      });
      const invalid = await t.http().put('/api/v2/users/me/profile').set(as(target)).send({ username: '' });
      expect(invalid.status).toBe(400);
      expect(invalid.body.validations[0].field).toBe('username');
      const other = await t
        .http()
        .put('/api/v2/users/target1/profile')
        .set(as(member))
        .send({ username: 'hijack' });
      expect(other.status).toBe(404);
    });

    it('reads and sets site roles; only owners grant owner; nobody changes their own roles', async () => {
      const roles = await t.http().get('/api/v2/users/target1/roles').set(as(userAdmin));
      expect(roles.status).toBe(200);
      expect(roles.body).toEqual({ roles: [], organization_roles: { [defaultOrg]: [] } });
      const auditor = await t
        .http()
        .put('/api/v2/users/target1/roles')
        .set(as(userAdmin))
        .send({ roles: ['auditor'] });
      expect(auditor.status).toBe(200);
      expect(auditor.body.roles).toEqual([{ name: 'auditor', display_name: 'Auditor' }]);
      const ownerByUserAdmin = await t
        .http()
        .put('/api/v2/users/target1/roles')
        .set(as(userAdmin))
        .send({ roles: ['owner'] });
      expect(ownerByUserAdmin.status).toBe(403);
      const ownerByOwner = await t
        .http()
        .put('/api/v2/users/target1/roles')
        .set(as(owner))
        .send({ roles: ['owner'] });
      expect(ownerByOwner.status).toBe(200);
      const admin = await t.http().get('/api/v1/user').set('Authorization', `token ${target.token}`);
      expect(admin.body.is_admin).toBe(true); // one identity: owner is the Gitea site administrator
      await t.http().put('/api/v2/users/target1/roles').set(as(owner)).send({ roles: [] }).expect(200);
      const own = await t.http().put('/api/v2/users/me/roles').set(as(owner)).send({ roles: [] });
      expect(own.status).toBe(400);
      expect(own.body.message).toBe('You cannot change your own roles.');
      const unknown = await t
        .http()
        .put('/api/v2/users/target1/roles')
        .set(as(owner))
        .send({ roles: ['wizard'] });
      expect(unknown.status).toBe(400);
      const byMember = await t
        .http()
        .put('/api/v2/users/me/roles')
        .set(as(member))
        .send({ roles: ['owner'] });
      expect(byMember.status).toBe(400);
    });

    it('deletes a user (200 message); not yourself (403); members cannot (404)', async () => {
      const doomed = await t.factories.user({ username: 'doomed' });
      expect((await t.http().delete('/api/v2/users/doomed').set(as(member))).status).toBe(404);
      const self = await t.http().delete('/api/v2/users/me').set(as(userAdmin));
      expect(self.status).toBe(403);
      expect(self.body.message).toBe('You cannot delete yourself!');
      const owners = await t.http().delete('/api/v2/users/theowner').set(as(userAdmin));
      expect(owners.status).toBe(403);
      const res = await t.http().delete(`/api/v2/users/${doomed.user.uuid}`).set(as(userAdmin));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'User has been deleted!' });
      expect((await t.http().get('/api/v2/users/doomed').set(as(owner))).status).toBe(404);
      expect((await t.http().get('/api/v2/users/me').set(as(doomed))).status).toBe(401);
    });
  });

  describe('organizations, members and groups', () => {
    let orgId: string;
    let alice: CreatedUser;
    let bob: CreatedUser;
    beforeAll(async () => {
      alice = await t.factories.user({ username: 'alice' });
      bob = await t.factories.user({ username: 'bob' });
    });

    it('creates (201), lists, gets by id or name, updates and refuses duplicates', async () => {
      const created = await t
        .http()
        .post('/api/v2/organizations')
        .set(as(owner))
        .send({ name: 'acme', display_name: 'Acme Inc', description: 'widgets', icon: '/icon/acme.svg' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'acme',
        display_name: 'Acme Inc',
        description: 'widgets',
        icon: '/icon/acme.svg',
        is_default: false,
      });
      orgId = created.body.id;
      const dup = await t.http().post('/api/v2/organizations').set(as(owner)).send({ name: 'acme' });
      expect(dup.status).toBe(409);
      expect(dup.body.message).toBe('Organization already exists with the name "acme".');
      const byMember = await t.http().post('/api/v2/organizations').set(as(member)).send({ name: 'mine' });
      expect(byMember.status).toBe(403);
      expect((await t.http().get('/api/v2/organizations/acme').set(as(owner))).body.id).toBe(orgId);
      expect((await t.http().get(`/api/v2/organizations/${orgId}`).set(as(member))).status).toBe(404);
      const mine = await t.http().get('/api/v2/organizations').set(as(member));
      expect(mine.body.map((o: { id: string }) => o.id)).toEqual([defaultOrg]);
      const patched = await t
        .http()
        .patch('/api/v2/organizations/acme')
        .set(as(owner))
        .send({ display_name: 'ACME' });
      expect(patched.status).toBe(200);
      expect(patched.body.display_name).toBe('ACME');
      // One identity: the Gitea dialect sees the same organization.
      expect(
        (await t.http().get('/api/v1/orgs/acme').set('Authorization', `token ${owner.token}`)).body.full_name,
      ).toBe('ACME');
    });

    it('adds members, sets their roles, lists and pages them with filters, removes them', async () => {
      const added = await t.http().post('/api/v2/organizations/acme/members/alice').set(as(owner));
      expect(added.status).toBe(200);
      expect(added.body).toMatchObject({ user_id: alice.user.uuid, organization_id: orgId, roles: [] });
      expect((await t.http().post('/api/v2/organizations/acme/members/alice').set(as(owner))).status).toBe(
        400,
      );
      await t.http().post('/api/v2/organizations/acme/members/bob').set(as(owner)).expect(200);
      const roles = await t
        .http()
        .put('/api/v2/organizations/acme/members/alice/roles')
        .set(as(owner))
        .send({ roles: ['organization-auditor'] });
      expect(roles.status).toBe(200);
      expect(roles.body.roles).toEqual([
        { name: 'organization-auditor', display_name: 'Organization Auditor', organization_id: orgId },
      ]);
      const badRole = await t
        .http()
        .put('/api/v2/organizations/acme/members/alice/roles')
        .set(as(owner))
        .send({ roles: ['root'] });
      expect(badRole.status).toBe(400);
      const page = await t
        .http()
        .get('/api/v2/organizations/acme/paginated-members')
        .query({ limit: 1 })
        .set(as(owner));
      expect(page.status).toBe(200);
      expect(page.body.count).toBe(3); // owner (creator), alice, bob
      expect(page.body.members).toHaveLength(1);
      expect(page.body.members[0]).toMatchObject({ username: 'alice', has_ai_seat: false, status: 'active' });
      const filtered = await t
        .http()
        .get('/api/v2/organizations/acme/paginated-members')
        .query({ q: 'role:organization-auditor' })
        .set(as(owner));
      expect(filtered.body.members.map((m: { username: string }) => m.username)).toEqual(['alice']);
      const byText = await t
        .http()
        .get('/api/v2/organizations/acme/paginated-members')
        .query({ q: 'bob' })
        .set(as(owner));
      expect(byText.body.members.map((m: { username: string }) => m.username)).toEqual(['bob']);
      const byEmail = await t
        .http()
        .get('/api/v2/organizations/acme/paginated-members')
        .query({ q: 'alice@example' })
        .set(as(owner));
      expect(byEmail.body.count).toBe(1);
      const list = await t.http().get('/api/v2/organizations/acme/members').set(as(alice));
      expect(list.body.map((m: { username: string }) => m.username)).toEqual(['alice', 'bob', 'theowner']);
      const bad = await t
        .http()
        .get('/api/v2/organizations/acme/paginated-members')
        .query({ q: 'status:zzz' })
        .set(as(owner));
      expect(bad.status).toBe(400);
      const removed = await t.http().delete('/api/v2/organizations/acme/members/bob').set(as(owner));
      expect(removed.status).toBe(204);
      expect((await t.http().delete('/api/v2/organizations/acme/members/bob').set(as(owner))).status).toBe(
        404,
      );
      const self = await t.http().delete('/api/v2/organizations/acme/members/me').set(as(owner));
      expect(self.status).toBe(400);
    });

    it('groups are teams: create, list with Everyone, patch members, member paging, delete', async () => {
      const created = await t
        .http()
        .post('/api/v2/organizations/acme/groups')
        .set(as(owner))
        .send({ name: 'devs', display_name: 'Developers', quota_allowance: 3 });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'devs',
        display_name: 'Developers',
        organization_id: orgId,
        organization_name: 'acme',
        members: [],
        total_member_count: 0,
        quota_allowance: 3,
        source: 'user',
      });
      const groupId = created.body.id;
      expect(
        (await t.http().post('/api/v2/organizations/acme/groups').set(as(owner)).send({ name: 'devs' }))
          .status,
      ).toBe(409);
      const reserved = await t
        .http()
        .post('/api/v2/organizations/acme/groups')
        .set(as(owner))
        .send({ name: 'Everyone' });
      expect(reserved.status).toBe(400);
      const patched = await t
        .http()
        .patch(`/api/v2/groups/${groupId}`)
        .set(as(owner))
        .send({ add_users: [alice.user.uuid], name: 'developers' });
      expect(patched.status).toBe(200);
      expect(patched.body.name).toBe('developers');
      expect(patched.body.members.map((m: { username: string }) => m.username)).toEqual(['alice']);
      const notMember = await t
        .http()
        .patch(`/api/v2/groups/${groupId}`)
        .set(as(owner))
        .send({ add_users: [bob.user.uuid] });
      expect(notMember.status).toBe(400);
      expect(notMember.body.message).toBe('User must be a member of organization "acme"');
      // The Gitea dialect sees the same team.
      const teams = await t
        .http()
        .get('/api/v1/orgs/acme/teams')
        .set('Authorization', `token ${owner.token}`);
      expect(teams.body.map((team: { name: string }) => team.name)).toContain('developers');
      const groups = await t.http().get('/api/v2/organizations/acme/groups').set(as(owner));
      expect(groups.body.map((g: { name: string }) => g.name)).toEqual(['Everyone', 'developers', 'Owners']);
      expect(groups.body[0].id).toBe(orgId);
      expect(groups.body[0].total_member_count).toBe(2);
      const members = await t.http().get(`/api/v2/groups/${groupId}/members`).set(as(owner));
      expect(members.body).toMatchObject({ count: 1, users: [{ username: 'alice' }] });
      const everyone = await t
        .http()
        .patch(`/api/v2/groups/${orgId}`)
        .set(as(owner))
        .send({ add_users: [alice.user.uuid] });
      expect(everyone.status).toBe(400);
      expect((await t.http().delete(`/api/v2/groups/${orgId}`).set(as(owner))).status).toBe(400);
      expect((await t.http().get(`/api/v2/groups/${groupId}`).set(as(member))).status).toBe(404);
      const deleted = await t.http().delete(`/api/v2/groups/${groupId}`).set(as(owner));
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ message: 'Successfully deleted group!' });
      expect((await t.http().get(`/api/v2/groups/${groupId}`).set(as(owner))).status).toBe(404);
    });

    it('workspace sharing modes change what members may share (authcheck)', async () => {
      const get = await t.http().get('/api/v2/organizations/acme/settings/workspace-sharing').set(as(alice));
      expect(get.body).toEqual({
        sharing_globally_disabled: false,
        sharing_disabled: false,
        shareable_workspace_owners: 'everyone',
      });
      const share = async (who: CreatedUser) => {
        const res = await t
          .http()
          .post('/api/v2/authcheck')
          .set(as(who))
          .send({
            checks: {
              s: {
                action: 'share',
                object: { resource_type: 'workspace', owner_id: who.user.uuid, organization_id: orgId },
              },
            },
          });
        return res.body.s as boolean;
      };
      expect(await share(alice)).toBe(true);
      const denied = await t
        .http()
        .patch('/api/v2/organizations/acme/settings/workspace-sharing')
        .set(as(alice))
        .send({ shareable_workspace_owners: 'none' });
      expect(denied.status).toBe(403);
      const bad = await t
        .http()
        .patch('/api/v2/organizations/acme/settings/workspace-sharing')
        .set(as(owner))
        .send({ shareable_workspace_owners: 'some' });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Invalid shareable workspace owners value.');
      const sa = await t
        .http()
        .patch('/api/v2/organizations/acme/settings/workspace-sharing')
        .set(as(owner))
        .send({ shareable_workspace_owners: 'service_accounts' });
      expect(sa.body.shareable_workspace_owners).toBe('service_accounts');
      expect(await share(alice)).toBe(false);
      const legacy = await t
        .http()
        .patch('/api/v2/organizations/acme/settings/workspace-sharing')
        .set(as(owner))
        .send({ sharing_disabled: true });
      expect(legacy.body).toEqual({
        sharing_globally_disabled: false,
        sharing_disabled: true,
        shareable_workspace_owners: 'none',
      });
      await t
        .http()
        .patch('/api/v2/organizations/acme/settings/workspace-sharing')
        .set(as(owner))
        .send({ sharing_disabled: false })
        .expect(200);
      expect(await share(alice)).toBe(true);
    });

    it('deletes an organization (not the default one)', async () => {
      const defaultDelete = await t.http().delete(`/api/v2/organizations/${defaultOrg}`).set(as(owner));
      expect(defaultDelete.status).toBe(400);
      expect(defaultDelete.body.message).toBe('Default organization cannot be deleted.');
      expect((await t.http().delete('/api/v2/organizations/acme').set(as(alice))).status).toBe(403);
      const res = await t.http().delete('/api/v2/organizations/acme').set(as(owner));
      expect(res.status).toBe(200);
      expect((await t.http().get('/api/v2/organizations/acme').set(as(owner))).status).toBe(404);
    });
  });

  it('every management route refuses anonymous callers with 401', async () => {
    for (const [method, path] of [
      ['get', '/api/v2/users'],
      ['get', '/api/v2/organizations'],
      ['get', `/api/v2/organizations/${defaultOrg}/paginated-members`],
      ['get', `/api/v2/groups/${defaultOrg}`],
      ['get', '/api/v2/insights/user-status-counts'],
      ['get', '/api/v2/audit'],
    ] as const) {
      expect((await t.http()[method](path)).status).toBe(401);
    }
  });
  describe("assignable roles (Coder's getRoles and getOrganizationRoles, issue 33 item 11)", () => {
    type Role = {
      name: string;
      display_name: string;
      organization_id?: string;
      assignable: boolean;
      built_in: boolean;
      site_permissions: { negate: boolean; resource_type: string; action: string }[];
      organization_permissions: unknown[];
      user_permissions: unknown[];
      organization_member_permissions: unknown[];
    };
    const byName = (roles: Role[]) => Object.fromEntries(roles.map((role) => [role.name, role]));

    it('GET /users/roles: the site roles with permissions; owners may assign all, user-admins all but owner', async () => {
      const res = await t.http().get('/api/v2/users/roles').set(as(owner));
      expect(res.status).toBe(200);
      const roles = res.body as Role[];
      expect(roles.map((role) => role.name)).toEqual(['owner', 'auditor', 'template-admin', 'user-admin']);
      expect(byName(roles).owner).toMatchObject({ display_name: 'Owner', assignable: true, built_in: true });
      expect(byName(roles)['template-admin']!.display_name).toBe('Template Admin');
      expect(roles.every((role) => role.organization_id === undefined)).toBe(true);
      expect(byName(roles).auditor!.site_permissions).toContainEqual({
        negate: false,
        resource_type: 'audit_log',
        action: 'read',
      });
      for (const role of roles)
        for (const list of [
          'organization_permissions',
          'user_permissions',
          'organization_member_permissions',
        ])
          expect(Array.isArray(role[list as keyof Role])).toBe(true);

      const asUserAdmin = byName(
        (await t.http().get('/api/v2/users/roles').set(as(userAdmin))).body as Role[],
      );
      expect(asUserAdmin.owner!.assignable).toBe(false);
      expect(asUserAdmin['template-admin']!.assignable).toBe(true);
    });

    it('GET /users/roles: members read them (nothing assignable); narrow tokens 403; anonymous 401', async () => {
      const res = await t.http().get('/api/v2/users/roles').set(as(member));
      expect(res.status).toBe(200);
      expect((res.body as Role[]).some((role) => role.assignable)).toBe(false);
      const narrow = await t.factories.token(owner.user, { scopes: ['user:read'] });
      expect((await t.http().get('/api/v2/users/roles').set(as(narrow))).status).toBe(403);
      expect((await t.http().get('/api/v2/users/roles')).status).toBe(401);
      expect((await t.http().get('/api/v2/users/roles').set(as('bogus-token'))).status).toBe(401);
    });

    it('GET /organizations/{org}/members/roles: organization roles of that organization', async () => {
      const res = await t.http().get(`/api/v2/organizations/${defaultOrg}/members/roles`).set(as(owner));
      expect(res.status).toBe(200);
      const roles = res.body as Role[];
      expect(roles.map((role) => role.name)).toEqual([
        'organization-admin',
        'organization-user-admin',
        'organization-template-admin',
        'organization-auditor',
        'organization-workspace-creation-ban',
      ]);
      expect(roles.every((role) => role.organization_id === defaultOrg && role.assignable)).toBe(true);
      expect(byName(roles)['organization-admin']).toMatchObject({ display_name: 'Organization Admin' });
      expect(byName(roles)['organization-admin']!.organization_permissions.length).toBeGreaterThan(0);

      const asMember = await t
        .http()
        .get(`/api/v2/organizations/${defaultOrg}/members/roles`)
        .set(as(member));
      expect(asMember.status).toBe(200);
      expect((asMember.body as Role[]).some((role) => role.assignable)).toBe(false);
      const unknown = await t
        .http()
        .get('/api/v2/organizations/00000000-0000-4000-8000-000000000001/members/roles')
        .set(as(owner));
      expect(unknown.status).toBe(404);
      const narrow = await t.factories.token(owner.user, { scopes: ['user:read'] });
      expect(
        (await t.http().get(`/api/v2/organizations/${defaultOrg}/members/roles`).set(as(narrow))).status,
      ).toBe(403);
      expect((await t.http().get(`/api/v2/organizations/${defaultOrg}/members/roles`)).status).toBe(401);
    });
  });
});
