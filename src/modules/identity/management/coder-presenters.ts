import type { Organization } from '../entities/organization.entity';
import type { User } from '../entities/user.entity';
import { coderSiteRoles } from '../presenters/coder-user.presenter';
import type { RolePermission, RolePermissionSets } from '../../../api/access/access-policy';
import type {
  CoderAssignableRoleDto,
  CoderGroupDto,
  CoderGroupMemberDto,
  CoderOrganizationDto,
  CoderOrganizationMemberDto,
  CoderOrganizationMemberWithUserDto,
  CoderPermissionDto,
} from './coder-management.dto';

const ORG_ROLE_DISPLAY: Record<string, string> = {
  'organization-admin': 'Organization Admin',
  'organization-member': 'Organization Member',
  'organization-user-admin': 'Organization User Admin',
  'organization-template-admin': 'Organization Template Admin',
  'organization-auditor': 'Organization Auditor',
  'organization-service-account': 'Organization Service Account',
  'organization-workspace-creation-ban': 'Organization Workspace Creation Ban',
};
const SITE_ROLE_DISPLAY: Record<string, string> = {
  owner: 'Owner',
  auditor: 'Auditor',
  'template-admin': 'Template Admin',
  'user-admin': 'User Admin',
};

/** Display names of the roles the roles lists show (Coder leaves out the implied member roles). */
export function roleDisplayName(name: string): string {
  return SITE_ROLE_DISPLAY[name] ?? ORG_ROLE_DISPLAY[name] ?? '';
}

/** Coder's AssignableRoles JSON of a built-in role. */
export function presentAssignableRole(
  name: string,
  permissions: RolePermissionSets,
  assignable: boolean,
  organizationId?: string,
): CoderAssignableRoleDto {
  const wire = (list: RolePermission[]): CoderPermissionDto[] =>
    list.map((permission) => ({
      negate: permission.negate === true,
      resource_type: permission.type,
      action: permission.action,
    }));
  return {
    name,
    ...(organizationId ? { organization_id: organizationId } : {}),
    display_name: roleDisplayName(name),
    site_permissions: wire(permissions.site),
    organization_permissions: wire(permissions.org),
    user_permissions: wire(permissions.user),
    organization_member_permissions: wire(permissions.member),
    assignable,
    built_in: true,
  };
}

export interface OrganizationView {
  account: User;
  details: Organization;
}

export function presentOrganization({ account, details }: OrganizationView): CoderOrganizationDto {
  return {
    id: account.uuid,
    name: account.name,
    display_name: details.displayName || account.name,
    description: account.description,
    icon: details.icon,
    created_at: details.createdAt.toISOString(),
    updated_at: details.updatedAt.toISOString(),
    is_default: details.isDefault,
    // Roles every new member gets besides organization-member: none in devplane.
    default_org_member_roles: [],
  };
}

export interface MemberView {
  user: User;
  organizationUuid: string;
  roles: string[];
  createdAt: Date;
  updatedAt: Date;
}

export function presentMember(member: MemberView): CoderOrganizationMemberDto {
  return {
    user_id: member.user.uuid,
    organization_id: member.organizationUuid,
    created_at: member.createdAt.toISOString(),
    updated_at: member.updatedAt.toISOString(),
    roles: member.roles.map((name) => ({
      name,
      display_name: ORG_ROLE_DISPLAY[name] ?? name,
      organization_id: member.organizationUuid,
    })),
  };
}

export function presentMemberWithUser(member: MemberView): CoderOrganizationMemberWithUserDto {
  const user = member.user;
  return {
    ...presentMember(member),
    username: user.name,
    ...(user.fullName ? { name: user.fullName } : {}),
    ...(user.avatarUrl ? { avatar_url: user.avatarUrl } : {}),
    email: user.email,
    global_roles: coderSiteRoles(user).map((name) => ({
      name,
      display_name: SITE_ROLE_DISPLAY[name] ?? name,
    })),
    last_seen_at: (user.lastSeenAt ?? user.createdAt).toISOString(),
    status: user.status,
    login_type: user.loginType,
    user_created_at: user.createdAt.toISOString(),
    user_updated_at: user.updatedAt.toISOString(),
    ...(user.isServiceAccount ? { is_service_account: true } : {}),
    has_ai_seat: false,
  };
}

export function presentGroupMember(user: User): CoderGroupMemberDto {
  return {
    id: user.uuid,
    username: user.name,
    ...(user.fullName ? { name: user.fullName } : {}),
    ...(user.avatarUrl ? { avatar_url: user.avatarUrl } : {}),
    email: user.email,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
    last_seen_at: (user.lastSeenAt ?? user.createdAt).toISOString(),
    status: user.status,
    login_type: user.loginType,
    theme_preference: '',
    ...(user.isServiceAccount ? { is_service_account: true } : {}),
  };
}

export interface GroupView {
  id: string;
  name: string;
  displayName: string;
  avatarUrl: string;
  quotaAllowance: number;
  organization: OrganizationView;
  members: User[];
}

export function presentGroup(group: GroupView): CoderGroupDto {
  return {
    id: group.id,
    name: group.name,
    display_name: group.displayName,
    organization_id: group.organization.account.uuid,
    organization_name: group.organization.account.name,
    organization_display_name: group.organization.details.displayName || group.organization.account.name,
    members: group.members.map(presentGroupMember),
    total_member_count: group.members.length,
    avatar_url: group.avatarUrl,
    quota_allowance: group.quotaAllowance,
    source: 'user',
  };
}
