import { goDuration } from '../../../src/modules/auth/auth.config';
import { EXTERNAL_SCOPES, RBAC_RESOURCE_NAMES } from '../../../src/modules/auth/rbac/rbac-catalogue';
import {
  CompiledSubject,
  type RbacObject,
  type RbacSubjectInput,
} from '../../../src/modules/auth/rbac/rbac-evaluator';
import { ORG_ROLES, orgRole, SITE_ROLES, siteRole } from '../../../src/modules/auth/rbac/rbac-roles';
import { COMPOSITE_SCOPES, expandScopes } from '../../../src/modules/auth/rbac/rbac-scopes';

const ME = 'aaaaaaaa-0000-4000-8000-000000000001';
const OTHER = 'aaaaaaaa-0000-4000-8000-000000000002';
const ORG = 'bbbbbbbb-0000-4000-8000-000000000001';
const ORG2 = 'bbbbbbbb-0000-4000-8000-000000000002';
const BASE = ['organization-member', 'organization-workspace-access'];

function subject(partial: Partial<RbacSubjectInput> = {}, ownerWorkspaceExec = true): CompiledSubject {
  return new CompiledSubject(
    {
      id: ME,
      siteRoles: [],
      memberships: [{ orgId: ORG, roles: BASE, sharingMode: 'everyone' }],
      scopes: ['coder:all'],
      ...partial,
    },
    { ownerWorkspaceExec },
  );
}

const ws = (owner: string, org = ORG): RbacObject => ({ type: 'workspace', owner, orgOwner: org });

describe('RBAC catalogue', () => {
  it('has 51 resources and 55 external scopes that all expand', () => {
    expect(RBAC_RESOURCE_NAMES).toHaveLength(51);
    expect(EXTERNAL_SCOPES).toHaveLength(55);
    for (const scope of EXTERNAL_SCOPES) expect(expandScopes([scope]).length).toBeGreaterThan(0);
  });

  it('every built-in role is defined', () => {
    for (const name of SITE_ROLES) expect(siteRole(name, { ownerWorkspaceExec: true })).toBeDefined();
    for (const name of ORG_ROLES) expect(orgRole(name, 'everyone')).toBeDefined();
    expect(siteRole('nope', { ownerWorkspaceExec: true })).toBeUndefined();
  });
});

describe('RBAC evaluator', () => {
  const member = subject();
  const owner = subject({ siteRoles: ['owner'] });
  const orgAdmin = subject({
    memberships: [{ orgId: ORG, roles: [...BASE, 'organization-admin'], sharingMode: 'everyone' }],
  });

  it.each([
    ['member', 'read', { type: 'user' }, false],
    ['member', 'read', { type: 'user', owner: ME }, true],
    ['member', 'update_personal', { type: 'user', owner: ME }, true],
    ['member', 'update', { type: 'user', owner: ME }, false],
    ['member', 'read', { type: 'user', owner: ME, orgOwner: ORG }, false], // user level needs no org
    ['member', 'read', ws(ME), true],
    ['member', 'read', ws(OTHER), false],
    ['member', 'read', ws(ME, ORG2), false], // not a member of ORG2
    ['member', 'create', { type: 'api_key', owner: ME }, true],
    ['member', 'create', { type: 'api_key', owner: OTHER }, false],
    ['member', 'read', { type: 'organization', orgOwner: ORG }, true],
    ['member', 'read', { type: 'assign_role' }, true],
    ['member', 'create', { type: 'workspace', owner: ME, anyOrg: true }, true],
    ['owner', 'read', ws(OTHER), true],
    ['owner', 'read', { type: 'user_secret', owner: OTHER }, false],
    ['owner', 'frobnicate', { type: 'user' }, true],
    ['owner', 'frobnicate', ws(OTHER), false],
    ['owner', 'read', { type: '*' }, false],
    ['orgAdmin', 'read', { type: 'user' }, true],
    ['orgAdmin', 'update', ws(OTHER), true],
    ['orgAdmin', 'ssh', ws(OTHER), false],
    ['orgAdmin', 'ssh', ws(ME), true],
    ['orgAdmin', 'read', ws(OTHER, ORG2), false],
  ] as const)('%s %s %j → %s', (who, action, object, expected) => {
    const s = { member, owner, orgAdmin }[who];
    expect(s.authorize(action, object)).toBe(expected);
  });

  it('owner without workspace exec cannot ssh into other workspaces', () => {
    const restricted = subject({ siteRoles: ['owner'] }, false);
    expect(restricted.authorize('ssh', ws(OTHER))).toBe(false);
    expect(restricted.authorize('ssh', ws(ME))).toBe(true); // member-level access to own workspace
  });

  it('sharing modes: member share of own workspace', () => {
    const mode = (sharingMode: 'everyone' | 'none' | 'service_accounts', roles: string[] = []) =>
      subject({ siteRoles: roles, memberships: [{ orgId: ORG, roles: BASE, sharingMode }] });
    expect(mode('everyone').authorize('share', ws(ME))).toBe(true);
    expect(mode('service_accounts').authorize('share', ws(ME))).toBe(false);
    expect(mode('none').authorize('share', ws(ME))).toBe(false);
    expect(mode('none', ['owner']).authorize('share', ws(ME))).toBe(true); // site grant beats org negation
    expect(mode('none').authorize('read', { type: 'organization_member', orgOwner: ORG })).toBe(false);
  });

  it('creation ban: an org negation beats member grants', () => {
    const banned = subject({
      memberships: [
        { orgId: ORG, roles: [...BASE, 'organization-workspace-creation-ban'], sharingMode: 'everyone' },
      ],
    });
    expect(banned.authorize('create', ws(ME))).toBe(false);
    expect(banned.authorize('update', ws(ME))).toBe(true);
  });

  it('any_org is the best answer over the organizations', () => {
    const twoOrgs = subject({
      memberships: [
        { orgId: ORG, roles: [...BASE, 'organization-workspace-creation-ban'], sharingMode: 'everyone' },
        { orgId: ORG2, roles: BASE, sharingMode: 'everyone' },
      ],
    });
    expect(twoOrgs.authorize('create', { type: 'workspace', owner: ME, anyOrg: true })).toBe(true);
    expect(
      subject({ memberships: [] }).authorize('create', { type: 'workspace', owner: ME, anyOrg: true }),
    ).toBe(false);
  });

  it('service accounts get no share negation at member level', () => {
    const sa = subject({
      memberships: [
        {
          orgId: ORG,
          roles: ['organization-service-account', 'organization-workspace-access'],
          sharingMode: 'service_accounts',
        },
      ],
    });
    expect(sa.authorize('share', ws(ME))).toBe(true);
  });

  it('ACL lists grant to org members only', () => {
    const object: RbacObject = { ...ws(OTHER), aclUserList: { [ME]: ['read'] } };
    expect(member.authorize('read', object)).toBe(true);
    expect(member.authorize('update', object)).toBe(false);
    expect(subject({ memberships: [] }).authorize('read', object)).toBe(false);
    expect(member.authorize('read', { ...ws(OTHER), aclGroupList: { [ORG]: ['*'] } })).toBe(true);
  });

  it('scopes narrow, the union of scopes applies, allow-lists intersect', () => {
    const scoped = subject({ scopes: ['workspace:read', 'user:read'] });
    expect(scoped.authorize('read', ws(ME))).toBe(true);
    expect(scoped.authorize('update', ws(ME))).toBe(false);
    expect(scoped.authorize('read', { type: 'user', owner: ME })).toBe(true);
    expect(
      subject({ siteRoles: ['owner'], scopes: ['template:read'] }).authorize('delete', {
        type: 'template',
        orgOwner: ORG,
      }),
    ).toBe(false);
    expect(subject({ scopes: ['all'] }).authorize('update', ws(ME))).toBe(true);
    expect(subject({ scopes: [] }).authorize('update', ws(ME))).toBe(true);
    expect(subject({ scopes: ['read:repository'] }).authorize('read', ws(ME))).toBe(false);
    const listed = subject({ allowList: [{ type: 'workspace', id: 'w1' }] });
    expect(listed.authorize('read', ws(ME))).toBe(false);
    expect(listed.authorize('read', { ...ws(ME), id: 'w1' })).toBe(true);
    expect(listed.authorize('read', { type: 'user', owner: ME, id: ME })).toBe(false);
  });

  it('composite scopes expand to their exact permissions', () => {
    const keys = (scope: string) => COMPOSITE_SCOPES[scope]!.map((p) => `${p.type}:${p.action}`).sort();
    expect(keys('coder:workspaces.access')).toEqual([
      'workspace:application_connect',
      'workspace:read',
      'workspace:ssh',
    ]);
    expect(keys('coder:apikeys.manage_self')).toEqual([
      'api_key:create',
      'api_key:delete',
      'api_key:read',
      'api_key:update',
    ]);
    expect(keys('coder:templates.build')).toEqual([
      'file:create',
      'file:read',
      'provisioner_jobs:read',
      'template:read',
    ]);
  });
});

describe('goDuration', () => {
  it.each([
    [60, '1m0s'],
    [90, '1m30s'],
    [45, '45s'],
    [3600, '1h0m0s'],
    [168 * 3600, '168h0m0s'],
    [876_600 * 3600, '876600h0m0s'],
  ])('%i s → %s', (seconds, text) => expect(goDuration(seconds)).toBe(text));
});
