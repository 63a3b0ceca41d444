import type { WorkspaceSharingMode } from '../../identity/entities/organization.entity';
import { RBAC_RESOURCE_NAMES, RBAC_RESOURCES } from './rbac-catalogue';

/** One permission: a resource type (or `*`), an action (or `*`), possibly negated. */
export interface Permission {
  type: string;
  action: string;
  negate?: boolean;
}

/** The permissions of a role at each level (Coder `rbac.Role`); org and member apply inside one org. */
export interface RolePermissions {
  site: Permission[];
  org: Permission[];
  member: Permission[];
  user: Permission[];
}

export const SITE_ROLES = ['owner', 'member', 'auditor', 'template-admin', 'user-admin'] as const;
export const ORG_ROLES = [
  'organization-admin',
  'organization-member',
  'organization-user-admin',
  'organization-template-admin',
  'organization-auditor',
  'organization-service-account',
  'organization-workspace-access',
  'organization-workspace-creation-ban',
] as const;

/** Roles every member of an organization gets without assignment (`default_org_member_roles`). */
export const DEFAULT_ORG_MEMBER_ROLES: readonly string[] = ['organization-workspace-access'];

export interface SiteRoleOptions {
  /** false = owners lose workspace ssh / application_connect (Coder `--disable-owner-workspace-access`). */
  ownerWorkspaceExec: boolean;
}

const WS_ALL = RBAC_RESOURCES.workspace!;
const DORMANT = [
  'read',
  'delete',
  'create',
  'update',
  'stop',
  'create_agent',
  'delete_agent',
  'update_agent',
];

/** `perms('user', 'read', 'update')` → two permissions. */
function perms(type: string, ...actions: string[]): Permission[] {
  return actions.map((action) => ({ type, action }));
}
function deny(type: string, ...actions: string[]): Permission[] {
  return actions.map((action) => ({ type, action, negate: true }));
}
/** `type:*` for every catalogue resource except the listed ones. */
function allExcept(...excluded: string[]): Permission[] {
  return RBAC_RESOURCE_NAMES.filter((name) => !excluded.includes(name)).map((type) => ({
    type,
    action: '*',
  }));
}
function empty(): RolePermissions {
  return { site: [], org: [], member: [], user: [] };
}

const siteCache = new Map<string, RolePermissions | undefined>();
const orgCache = new Map<string, RolePermissions | undefined>();

/** A site role's permissions (built once per name and options; read-only), or undefined for an unknown name. */
export function siteRole(name: string, options: SiteRoleOptions): RolePermissions | undefined {
  const key = `${name}|${options.ownerWorkspaceExec}`;
  if (!siteCache.has(key)) siteCache.set(key, buildSiteRole(name, options));
  return siteCache.get(key);
}

/** An organization role's permissions inside its organization (cached; read-only), or undefined for an unknown name. */
export function orgRole(name: string, sharingMode: WorkspaceSharingMode): RolePermissions | undefined {
  const key = `${name}|${sharingMode}`;
  if (!orgCache.has(key)) orgCache.set(key, buildOrgRole(name, sharingMode));
  return orgCache.get(key);
}

function buildSiteRole(name: string, options: SiteRoleOptions): RolePermissions | undefined {
  const role = empty();
  switch (name) {
    case 'owner':
      role.site = [
        ...allExcept(
          'workspace',
          'workspace_dormant',
          'prebuilt_workspace',
          'user_secret',
          'user_skill',
          'usage_event',
          'boundary_usage',
          'boundary_log',
          'ai_seat',
          'ai_gateway_key',
        ),
        ...perms(
          'workspace',
          ...WS_ALL.filter((a) => options.ownerWorkspaceExec || (a !== 'ssh' && a !== 'application_connect')),
        ),
        ...perms('workspace_dormant', ...DORMANT),
        ...perms('user_skill', 'read', 'delete'),
        ...perms('ai_gateway_key', 'create', 'read', 'delete'),
        ...perms('prebuilt_workspace', 'update', 'delete'),
        ...perms('boundary_log', 'read'),
      ];
      return role;
    case 'member':
      role.site = [
        ...perms('assign_role', 'read'),
        ...perms('oauth2_app', 'read'),
        ...perms('workspace_proxy', 'read'),
      ];
      role.user = [
        ...allExcept(
          'workspace_dormant',
          'prebuilt_workspace',
          'workspace',
          'user',
          'organization_member',
          'boundary_usage',
          'boundary_log',
          'aibridge_interception',
          'chat',
          'ai_seat',
        ),
        ...perms('user', 'read', 'read_personal', 'update_personal'),
        ...perms('provisioner_daemon', 'read', 'create', 'update'),
        ...perms('aibridge_interception', 'create', 'update'),
        ...perms('boundary_log', 'create'),
      ];
      return role;
    case 'auditor':
      role.site = [
        ...[
          'assign_org_role',
          'audit_log',
          'connection_log',
          'user',
          'group',
          'group_member',
          'organization',
          'organization_member',
          'deployment_stats',
          'deployment_config',
          'aibridge_interception',
          'boundary_log',
        ].flatMap((type) => perms(type, 'read')),
        ...perms('template', 'read', 'view_insights'),
      ];
      return role;
    case 'template-admin':
      role.site = [
        ...perms('assign_org_role', 'read'),
        ...perms('template', '*'),
        ...perms('file', 'create', 'read'),
        ...perms('workspace', 'read'),
        ...perms('workspace_dormant', 'read'),
        ...perms('prebuilt_workspace', 'update', 'delete'),
        ...perms('provisioner_daemon', 'create', 'read', 'update', 'delete'),
        ...['user', 'group', 'group_member', 'organization', 'organization_member'].flatMap((type) =>
          perms(type, 'read'),
        ),
      ];
      return role;
    case 'user-admin':
      role.site = [
        ...perms('assign_role', 'assign', 'unassign', 'read'),
        ...perms('assign_org_role', 'assign', 'unassign', 'read'),
        ...perms('user', 'create', 'read', 'update', 'delete', 'read_personal', 'update_personal'),
        ...perms('group', 'create', 'read', 'update', 'delete'),
        ...perms('group_member', 'read'),
        ...perms('organization', 'read'),
        ...perms('organization_member', 'create', 'read', 'update', 'delete'),
        ...perms('idpsync_settings', 'read', 'update'),
      ];
      return role;
    default:
      return undefined;
  }
}

const MEMBER_LEVEL_COMMON: Permission[] = [
  ...perms('organization_member', 'read'),
  ...perms('group_member', 'read'),
  ...perms('aibridge_interception', 'create', 'update'),
  ...perms('api_key', '*'),
  ...perms('notification_message', 'read', 'update'),
  ...perms('notification_preference', '*'),
  ...perms('inbox_notification', '*'),
];

function buildOrgRole(name: string, sharingMode: WorkspaceSharingMode): RolePermissions | undefined {
  const role = empty();
  switch (name) {
    case 'organization-admin':
      role.site = perms('user', 'read');
      role.org = [
        ...allExcept(
          'workspace',
          'workspace_dormant',
          'prebuilt_workspace',
          'assign_role',
          'user_secret',
          'boundary_usage',
          'boundary_log',
          'ai_seat',
          'workspace_build_orchestration',
        ),
        ...perms('workspace', ...WS_ALL.filter((a) => a !== 'ssh' && a !== 'application_connect')),
        ...perms('workspace_dormant', ...DORMANT),
        ...perms('prebuilt_workspace', 'update', 'delete'),
      ];
      return role;
    case 'organization-member':
      role.org = [
        ...perms('provisioner_daemon', 'read'),
        ...perms('organization', 'read'),
        ...perms('assign_org_role', 'read'),
        ...(sharingMode !== 'none' ? perms('organization_member', 'read') : []),
        ...(sharingMode === 'everyone' ? perms('group', 'read') : []),
        ...(sharingMode === 'none' ? deny('workspace', 'share') : []),
      ];
      role.member = [
        ...MEMBER_LEVEL_COMMON,
        // Chat rights: newer Coder folds the retired `agents-access` role in here (README decision).
        ...perms('chat', 'create', 'read', 'share', 'update'),
        ...(sharingMode !== 'everyone' ? deny('workspace', 'share') : []),
      ];
      return role;
    case 'organization-service-account':
      role.org = [
        ...perms('provisioner_daemon', 'read'),
        ...perms('organization', 'read'),
        ...perms('assign_org_role', 'read'),
        ...(sharingMode !== 'none'
          ? [...perms('organization_member', 'read'), ...perms('group', 'read')]
          : []),
        ...(sharingMode === 'none' ? deny('workspace', 'share') : []),
      ];
      role.member = [...MEMBER_LEVEL_COMMON];
      return role;
    case 'organization-user-admin':
      role.site = perms('user', 'read');
      role.org = [
        ...perms('assign_org_role', 'assign', 'unassign', 'read'),
        ...perms('organization', 'read'),
        ...perms('organization_member', 'create', 'read', 'update', 'delete'),
        ...perms('group', '*'),
        ...perms('group_member', '*'),
        ...perms('idpsync_settings', 'read', 'update'),
      ];
      return role;
    case 'organization-template-admin':
      role.org = [
        ...perms('template', '*'),
        ...perms('file', 'create', 'read'),
        ...perms('workspace', 'read'),
        ...perms('workspace_dormant', 'read'),
        ...perms('prebuilt_workspace', 'update', 'delete'),
        ...perms('organization', 'read'),
        ...perms('organization_member', 'read'),
        ...perms('group', 'read'),
        ...perms('group_member', 'read'),
        ...perms('provisioner_daemon', 'create', 'read', 'update', 'delete'),
        ...perms('provisioner_jobs', 'create', 'read', 'update'),
      ];
      return role;
    case 'organization-auditor':
      role.org = [
        ...perms('audit_log', 'read'),
        ...perms('connection_log', 'read'),
        ...perms('template', 'read', 'view_insights'),
        ...perms('group', 'read'),
        ...perms('group_member', 'read'),
        ...perms('organization', 'read'),
        ...perms('organization_member', 'read'),
      ];
      return role;
    case 'organization-workspace-access':
      role.member = [
        ...perms('workspace', ...WS_ALL),
        ...perms('workspace_dormant', ...DORMANT),
        ...perms('file', 'create', 'read'),
        ...perms('provisioner_daemon', 'create', 'read'),
      ];
      return role;
    case 'organization-workspace-creation-ban':
      role.org = deny('workspace', 'create', 'delete', 'create_agent', 'delete_agent');
      return role;
    default:
      return undefined;
  }
}
