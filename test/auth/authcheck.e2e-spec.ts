import { AuthorizationService } from '../../src/modules/auth/authorization.service';
import type { Principal } from '../../src/api/access/principal';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

interface CheckObject {
  resource_type: string;
  owner_id?: string;
  organization_id?: string;
  resource_id?: string;
  any_org?: boolean;
}
type Checks = Record<string, { action: string; object: CheckObject }>;

/** POST /api/v2/authcheck: the role matrix of reference A.2/A.3 and the key's scopes on top. */
describe('auth: POST /api/v2/authcheck', () => {
  let t: TestApp;
  let org: string; // default organization uuid
  let member: CreatedUser;
  let other: CreatedUser;
  let orgAdmin: CreatedUser;
  let owner: CreatedUser;

  const authcheck = (as: string, checks: Checks | undefined, raw?: string) => {
    const req = t.http().post('/api/v2/authcheck').set('Service-Session-Token', as);
    return raw !== undefined
      ? req.set('Content-Type', 'application/json').send(raw)
      : req.send(checks ? { checks } : {});
  };
  const answers = async (as: string, checks: Checks): Promise<Record<string, boolean>> => {
    const res = await authcheck(as, checks);
    expect(res.status).toBe(200);
    return res.body as Record<string, boolean>;
  };
  const one = async (as: string, action: string, object: CheckObject): Promise<boolean> =>
    (await answers(as, { k: { action, object } })).k!;
  const setOrgRoles = (user: CreatedUser, roles: string[]) =>
    t.dataSource.query(
      `UPDATE organization_members SET roles = $1 WHERE user_id = $2 AND organization_id = (SELECT account_id FROM organizations WHERE is_default)`,
      [roles, user.user.id],
    );
  const setSharing = (mode: string) =>
    t.dataSource.query(`UPDATE organizations SET workspace_sharing_mode = $1 WHERE is_default`, [mode]);
  const setSiteRoles = (user: CreatedUser, roles: string[]) =>
    t.dataSource.query(`UPDATE users SET site_roles = $1 WHERE id = $2`, [roles, user.user.id]);

  beforeAll(async () => {
    t = await createTestApp();
    const rows: { uuid: string }[] = await t.dataSource.query(
      `SELECT u.uuid FROM organizations o JOIN users u ON u.id = o.account_id WHERE o.is_default`,
    );
    org = rows[0]!.uuid;
    member = await t.factories.user();
    other = await t.factories.user();
    orgAdmin = await t.factories.user();
    await setOrgRoles(orgAdmin, ['organization-admin']);
    owner = await t.factories.admin();
  });
  afterAll(() => t.close());

  describe('request handling', () => {
    it('401 without a credential', async () => {
      const res = await t.http().post('/api/v2/authcheck').send({ checks: {} });
      expect(res.status).toBe(401);
      expect(res.body.detail).toBe('Cookie "service_session_token" or query parameter must be provided.');
    });

    it('400 for malformed JSON and wrong types', async () => {
      const bad = await authcheck(member.token, undefined, '{');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Request body must be valid JSON.');
      const wrong = await t
        .http()
        .post('/api/v2/authcheck')
        .set('Service-Session-Token', member.token)
        .send({ checks: { k: { action: 'read', object: { resource_type: 'user', any_org: 'yes' } } } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.message).toBe('Request body must be valid JSON.');
    });

    it('200 {} for no checks', async () => {
      expect((await authcheck(member.token, undefined)).body).toEqual({});
      expect((await authcheck(member.token, {})).body).toEqual({});
    });

    it('400 for more than 10 resource_id checks', async () => {
      const checks: Checks = {};
      for (let i = 0; i < 11; i++)
        checks[`c${i}`] = {
          action: 'read',
          object: { resource_type: 'user', resource_id: member.user.uuid },
        };
      const res = await authcheck(member.token, checks);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message:
          'Endpoint only supports using "resource_id" field 10 times, found 11 usages. Remove 1 objects with this field set.',
      });
    });

    it('400 for an empty resource_type, a bad uuid, a type without resource_id support', async () => {
      const empty = await authcheck(member.token, { k: { action: 'read', object: { resource_type: '' } } });
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual({ message: 'Object\'s "resource_type" field must be defined for key "k".' });
      const badId = await authcheck(member.token, {
        k: { action: 'read', object: { resource_type: 'user', resource_id: 'abc' } },
      });
      expect(badId.status).toBe(400);
      expect(badId.body).toEqual({
        message: 'Object "abc" id is not a valid uuid.',
        validations: [{ field: 'resource_id', detail: 'invalid UUID length: 3' }],
      });
      const badType = await authcheck(member.token, {
        k: { action: 'read', object: { resource_type: 'organization', resource_id: org } },
      });
      expect(badType.status).toBe(400);
      const text = 'Object type "organization" does not support "resource_id" field.';
      expect(badType.body).toEqual({
        message: text,
        validations: [{ field: 'resource_type', detail: text }],
      });
    });
  });

  describe('resource_id rows', () => {
    it('a member: unknown user false, another user false (not visible), self read true / update false', async () => {
      const res = await answers(member.token, {
        unknown: {
          action: 'read',
          object: { resource_type: 'user', resource_id: '6b2f3e2c-1d4e-4a8b-9c7d-0e1f2a3b4c5d' },
        },
        other: { action: 'read', object: { resource_type: 'user', resource_id: other.user.uuid } },
        selfRead: { action: 'read', object: { resource_type: 'user', resource_id: member.user.uuid } },
        selfUpdate: { action: 'update', object: { resource_type: 'user', resource_id: member.user.uuid } },
        workspace: { action: 'read', object: { resource_type: 'workspace', resource_id: member.user.uuid } },
        template: { action: 'read', object: { resource_type: 'template', resource_id: member.user.uuid } },
      });
      expect(res).toEqual({
        unknown: false,
        other: false,
        selfRead: true,
        selfUpdate: false,
        workspace: false,
        template: false,
      });
      expect(await one(owner.token, 'update', { resource_type: 'user', resource_id: other.user.uuid })).toBe(
        true,
      );
    });
  });

  describe('role matrix', () => {
    const matrix = (): Checks => ({
      'read-all-users': { action: 'read', object: { resource_type: 'user' } },
      'read-org-workspaces': { action: 'read', object: { resource_type: 'workspace', organization_id: org } },
      'read-myself': { action: 'read', object: { resource_type: 'user', owner_id: 'me' } },
      'read-own-workspaces': {
        action: 'read',
        object: { resource_type: 'workspace', organization_id: org, owner_id: 'me' },
      },
    });

    it('owner: all true; org admin: all true; member: false,false,true,true', async () => {
      expect(Object.values(await answers(owner.token, matrix()))).toEqual([true, true, true, true]);
      expect(Object.values(await answers(orgAdmin.token, matrix()))).toEqual([true, true, true, true]);
      expect(await answers(member.token, matrix())).toEqual({
        'read-all-users': false,
        'read-org-workspaces': false,
        'read-myself': true,
        'read-own-workspaces': true,
      });
    });

    it("another user's workspace: member false, org admin true, owner true", async () => {
      const object = { resource_type: 'workspace', organization_id: org, owner_id: other.user.uuid };
      expect(await one(member.token, 'read', object)).toBe(false);
      expect(await one(orgAdmin.token, 'read', object)).toBe(true);
      expect(await one(owner.token, 'read', object)).toBe(true);
    });

    it('55 organization_member checks: read true for a member, update false; owner update true', async () => {
      const build = (action: string): Checks =>
        Object.fromEntries(
          Array.from({ length: 55 }, (_, i) => [
            `m${i}`,
            { action, object: { resource_type: 'organization_member', organization_id: org } },
          ]),
        );
      expect(Object.values(await answers(member.token, build('read'))).every(Boolean)).toBe(true);
      expect(Object.values(await answers(member.token, build('update'))).some(Boolean)).toBe(false);
      expect(Object.values(await answers(owner.token, build('update'))).every(Boolean)).toBe(true);
    });

    it('any_org workspace create for me: true for a member (also 55 times), false with no organization', async () => {
      const object = { resource_type: 'workspace', owner_id: 'me', any_org: true };
      expect(await one(member.token, 'create', object)).toBe(true);
      const many: Checks = Object.fromEntries(
        Array.from({ length: 55 }, (_, i) => [`w${i}`, { action: 'create', object }]),
      );
      expect(Object.values(await answers(member.token, many)).every(Boolean)).toBe(true);
      const loner = await t.factories.user();
      await t.dataSource.query('DELETE FROM organization_members WHERE user_id = $1', [loner.user.id]);
      expect(await one(loner.token, 'create', object)).toBe(false);
    });

    it('workspace sharing modes; a site grant beats an org negation; owner exec vs org admin', async () => {
      const own = { resource_type: 'workspace', owner_id: 'me', organization_id: org };
      try {
        expect(await one(member.token, 'share', own)).toBe(true);
        await setSharing('service_accounts');
        expect(await one(member.token, 'share', own)).toBe(false);
        await setSharing('none');
        expect(await one(member.token, 'share', own)).toBe(false);
        expect(await one(owner.token, 'share', own)).toBe(true);
        const members: Checks = {
          k: { action: 'read', object: { resource_type: 'organization_member', organization_id: org } },
        };
        expect((await answers(member.token, members)).k).toBe(false);
      } finally {
        await setSharing('everyone');
      }
      const othersWorkspace = { resource_type: 'workspace', owner_id: other.user.uuid, organization_id: org };
      expect(await one(orgAdmin.token, 'ssh', othersWorkspace)).toBe(false);
      expect(await one(orgAdmin.token, 'ssh', own)).toBe(true);
      expect(await one(owner.token, 'ssh', othersWorkspace)).toBe(true);
    });

    it('organization-workspace-creation-ban denies create in that org', async () => {
      const banned = await t.factories.user();
      await setOrgRoles(banned, ['organization-workspace-creation-ban']);
      expect(
        await one(banned.token, 'create', {
          resource_type: 'workspace',
          owner_id: 'me',
          organization_id: org,
        }),
      ).toBe(false);
      expect(
        await one(banned.token, 'read', { resource_type: 'workspace', owner_id: 'me', organization_id: org }),
      ).toBe(true);
    });

    it('site roles: auditor, template-admin, user-admin', async () => {
      const auditor = await t.factories.user();
      await setSiteRoles(auditor, ['auditor']);
      expect(await one(auditor.token, 'read', { resource_type: 'audit_log' })).toBe(true);
      expect(await one(auditor.token, 'update', { resource_type: 'user', owner_id: other.user.uuid })).toBe(
        false,
      );
      const templateAdmin = await t.factories.user();
      await setSiteRoles(templateAdmin, ['template-admin']);
      expect(
        await one(templateAdmin.token, 'create', { resource_type: 'template', organization_id: org }),
      ).toBe(true);
      expect(
        await one(templateAdmin.token, 'update', {
          resource_type: 'workspace',
          organization_id: org,
          owner_id: other.user.uuid,
        }),
      ).toBe(false);
      const userAdmin = await t.factories.user();
      await setSiteRoles(userAdmin, ['user-admin']);
      expect(await one(userAdmin.token, 'create', { resource_type: 'user' })).toBe(true);
      expect(
        await one(userAdmin.token, 'delete', { resource_type: 'organization_member', organization_id: org }),
      ).toBe(true);
    });

    it('organization roles: user-admin, template-admin, auditor', async () => {
      const ua = await t.factories.user();
      await setOrgRoles(ua, ['organization-user-admin']);
      expect(
        await one(ua.token, 'create', { resource_type: 'organization_member', organization_id: org }),
      ).toBe(true);
      expect(await one(ua.token, 'create', { resource_type: 'template', organization_id: org })).toBe(false);
      const ta = await t.factories.user();
      await setOrgRoles(ta, ['organization-template-admin']);
      expect(await one(ta.token, 'create', { resource_type: 'template', organization_id: org })).toBe(true);
      expect(
        await one(ta.token, 'delete', { resource_type: 'organization_member', organization_id: org }),
      ).toBe(false);
      const oa = await t.factories.user();
      await setOrgRoles(oa, ['organization-auditor']);
      expect(await one(oa.token, 'read', { resource_type: 'audit_log', organization_id: org })).toBe(true);
      expect(await one(oa.token, 'read', { resource_type: 'audit_log' })).toBe(false);
    });

    it('unknown types and actions are false; the owner holds user:* so any action on user is true', async () => {
      expect(await one(owner.token, 'read', { resource_type: 'nope' })).toBe(false);
      expect(await one(owner.token, 'read', { resource_type: '*' })).toBe(false);
      expect(await one(owner.token, 'frobnicate', { resource_type: 'workspace', organization_id: org })).toBe(
        false,
      );
      expect(await one(owner.token, 'frobnicate', { resource_type: 'user' })).toBe(true);
    });
  });

  describe('API key scopes on top of the roles', () => {
    it('workspace:read: own workspace read true, update false, user read false', async () => {
      const scoped = await t.factories.token(member.user, { scopes: ['workspace:read'] });
      const own = { resource_type: 'workspace', owner_id: 'me', organization_id: org };
      expect(await one(scoped, 'read', own)).toBe(true);
      expect(await one(scoped, 'update', own)).toBe(false);
      expect(await one(scoped, 'read', { resource_type: 'user', owner_id: 'me' })).toBe(false);
      // The scope only narrows: another member's workspace stays invisible.
      expect(await one(scoped, 'read', { ...own, owner_id: other.user.uuid })).toBe(false);
    });

    it('coder:workspaces.access: ssh true, delete false', async () => {
      const scoped = await t.factories.token(member.user, { scopes: ['coder:workspaces.access'] });
      const own = { resource_type: 'workspace', owner_id: 'me', organization_id: org };
      expect(await one(scoped, 'ssh', own)).toBe(true);
      expect(await one(scoped, 'delete', own)).toBe(false);
    });

    it("a scope narrows an owner; legacy stored 'all' behaves as coder:all", async () => {
      const narrowed = await t.factories.token(owner.user, { scopes: ['template:read'] });
      expect(await one(narrowed, 'read', { resource_type: 'template', organization_id: org })).toBe(true);
      expect(await one(narrowed, 'delete', { resource_type: 'template', organization_id: org })).toBe(false);
      const legacy = await t.factories.token(owner.user, { scopes: ['all'] });
      expect(await one(legacy, 'delete', { resource_type: 'template', organization_id: org })).toBe(true);
    });

    it('an allow-list restricts to listed objects', async () => {
      const res = await t
        .http()
        .post('/api/v2/users/me/keys/tokens')
        .set('Service-Session-Token', member.token)
        .send({ token_name: 'only-me', allow_list: [{ type: 'user', id: member.user.uuid }] });
      expect(res.status).toBe(201);
      const key = res.body.key as string;
      expect(
        await one(key, 'read', { resource_type: 'workspace', owner_id: 'me', organization_id: org }),
      ).toBe(false);
      expect(await one(key, 'read', { resource_type: 'user', resource_id: member.user.uuid })).toBe(true);
    });
  });

  describe('AuthorizationService for other modules', () => {
    const principalOf = (user: CreatedUser): Principal => ({
      kind: 'user',
      user: user.user,
      token: null,
      source: 'basic_password',
      scopes: ['all'],
    });

    it('authorize / require / filter, with uuids or the numeric ids of the caller and its organizations', async () => {
      const authz = t.app.get(AuthorizationService);
      const orgRow: { account_id: string }[] = await t.dataSource.query(
        'SELECT account_id FROM organizations WHERE is_default',
      );
      const numericOrg = String(orgRow[0]!.account_id);
      const p = principalOf(member);
      expect(
        await authz.authorize(p, 'read', { type: 'workspace', ownerId: member.user.uuid, orgId: org }),
      ).toBe(true);
      expect(
        await authz.authorize(p, 'read', { type: 'workspace', ownerId: member.user.id, orgId: numericOrg }),
      ).toBe(true);
      expect(
        await authz.authorize(p, 'read', { type: 'workspace', ownerId: other.user.id, orgId: numericOrg }),
      ).toBe(false);
      await expect(
        authz.require(p, 'update', AuthorizationService.userObject(other.user)),
      ).rejects.toMatchObject({ kind: 'forbidden' });
      await expect(
        authz.require(p, 'read', AuthorizationService.userObject(other.user), { notFound: true }),
      ).rejects.toMatchObject({ kind: 'not_found' });
      const rows = [member.user, other.user];
      expect(await authz.filter(p, 'read', rows, (u) => AuthorizationService.userObject(u))).toEqual([
        member.user,
      ]);
      expect(
        await authz.filter(principalOf(owner), 'read', rows, (u) => AuthorizationService.userObject(u)),
      ).toEqual(rows);
    });
  });
});
