import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { GoStruct, GoType, GoValidate } from '../../../api/coder/coder-dto.decorators';
import { CoderSlimRoleDto, CoderUserDto } from '../presenters/coder-user.presenter';

// ------------------------------------------------------------------------------------ queries

/** `?q=&limit=&offset=&after_id=` of Coder's list routes; `q` is parsed with Coder's search rules. */
export class CoderSearchPageQueryDto {
  @ApiPropertyOptional({ description: 'search query (`key:value` terms and free text)' })
  @IsOptional()
  @IsString()
  q?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() offset?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() after_id?: string;
}

export class UserStatusCountsQueryDto {
  @ApiPropertyOptional({ description: 'IANA time zone name, e.g. Europe/Berlin' })
  @IsOptional()
  @IsString()
  timezone?: string;
  @ApiPropertyOptional({ description: 'deprecated: whole-hour offset from UTC, e.g. -2' })
  @IsOptional()
  @IsString()
  tz_offset?: string;
  @ApiPropertyOptional({ description: 'deprecated, ignored' }) @IsOptional() @IsString() interval?: string;
}

// ------------------------------------------------------------------------------------ users

/** codersdk.CreateUserRequestWithOrgs. Email, password and login type rules are the service's (reference D.8). */
@GoStruct('CreateUserRequestWithOrgs')
export class CreateUserRequestDto {
  @ApiPropertyOptional({ format: 'email' }) @GoType('string') @GoValidate('email') email?: string;
  @ApiProperty() @GoType('string') @GoValidate('required', 'username') username: string;
  @ApiPropertyOptional() @GoType('string') @GoValidate('user_real_name') name?: string;
  @ApiPropertyOptional() @GoType('string') password?: string;
  @ApiPropertyOptional({ enum: ['password', 'github', 'oidc', 'none'] })
  @GoType('string')
  login_type?: string;
  @ApiPropertyOptional({ enum: ['active', 'dormant', 'suspended'] }) @GoType('string') user_status?: string;
  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'the nil uuid = the default organization',
  })
  @GoType('[]uuid.UUID')
  organization_ids?: string[];
  @ApiPropertyOptional({ description: 'a service account: login type none, no password, no email' })
  @GoType('bool')
  service_account?: boolean;
}

@GoStruct('UpdateUserProfileRequest')
export class UpdateUserProfileRequestDto {
  @ApiProperty() @GoType('string') @GoValidate('required', 'username') username: string;
  @ApiPropertyOptional() @GoType('string') @GoValidate('user_real_name') name?: string;
}

@GoStruct('UpdateRoles')
export class UpdateRolesRequestDto {
  @ApiProperty({ type: [String] }) @GoType('[]string') roles?: string[];
}

export class GetUsersResponseDto {
  @ApiProperty({ type: [CoderUserDto] }) users: CoderUserDto[];
  @ApiProperty() count: number;
}

export class UserRolesDto {
  @ApiProperty({ type: [String] }) roles: string[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } })
  organization_roles: Record<string, string[]>;
}

export class UserStatusChangeCountDto {
  @ApiProperty({ format: 'date-time' }) date: string;
  @ApiProperty() count: number;
}

export class UserStatusCountsResponseDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { $ref: '#/components/schemas/UserStatusChangeCountDto' } },
    description: 'per status (`active`, `dormant`, `suspended`): one count per calendar day in the time zone',
  })
  status_counts: Record<string, UserStatusChangeCountDto[]>;
}

export class OidcClaimsResponseDto {
  @ApiProperty({ type: 'object', additionalProperties: true }) claims: Record<string, unknown>;
}

export class OidcClaimsDebugDto {
  @ApiProperty({ type: 'object', additionalProperties: true }) id_token_claims: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) user_info_claims: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) merged_claims: Record<string, unknown>;
}

// ------------------------------------------------------------------------------------ organizations

@GoStruct('CreateOrganizationRequest')
export class CreateOrganizationRequestDto {
  @ApiProperty() @GoType('string') @GoValidate('required', 'username') name: string;
  @ApiPropertyOptional() @GoType('string') @GoValidate('group_display_name') display_name?: string;
  @ApiPropertyOptional() @GoType('string') description?: string;
  @ApiPropertyOptional() @GoType('string') icon?: string;
}

@GoStruct('UpdateOrganizationRequest')
export class UpdateOrganizationRequestDto {
  @ApiPropertyOptional() @GoType('string') @GoValidate('username') name?: string;
  @ApiPropertyOptional() @GoType('string') @GoValidate('group_display_name') display_name?: string;
  @ApiPropertyOptional() @GoType('string') description?: string;
  @ApiPropertyOptional() @GoType('string') icon?: string;
}

/** codersdk.Organization */
export class CoderOrganizationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() display_name: string;
  @ApiProperty() description: string;
  @ApiProperty() icon: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty() is_default: boolean;
  @ApiProperty({ type: [String] }) default_org_member_roles: string[];
}

/** codersdk.OrganizationMember */
export class CoderOrganizationMemberDto {
  @ApiProperty({ format: 'uuid' }) user_id: string;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: [CoderSlimRoleDto] }) roles: CoderSlimRoleDto[];
}

/** codersdk.Permission */
export class CoderPermissionDto {
  @ApiProperty() negate: boolean;
  @ApiProperty({ description: 'RBAC resource type, or `*`' }) resource_type: string;
  @ApiProperty({ description: 'RBAC action, or `*`' }) action: string;
}

/** codersdk.AssignableRoles (a codersdk.Role with whether the caller may assign it) */
export class CoderAssignableRoleDto {
  @ApiProperty() name: string;
  @ApiPropertyOptional({ format: 'uuid' }) organization_id?: string;
  @ApiProperty() display_name: string;
  @ApiProperty({ type: [CoderPermissionDto] }) site_permissions: CoderPermissionDto[];
  @ApiProperty({ type: [CoderPermissionDto] }) organization_permissions: CoderPermissionDto[];
  @ApiProperty({ type: [CoderPermissionDto] }) user_permissions: CoderPermissionDto[];
  @ApiProperty({ type: [CoderPermissionDto] }) organization_member_permissions: CoderPermissionDto[];
  @ApiProperty() assignable: boolean;
  @ApiProperty() built_in: boolean;
}

/** codersdk.OrganizationMemberWithUserData */
export class CoderOrganizationMemberWithUserDto extends CoderOrganizationMemberDto {
  @ApiProperty() username: string;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional() avatar_url?: string;
  @ApiProperty() email: string;
  @ApiProperty({ type: [CoderSlimRoleDto] }) global_roles: CoderSlimRoleDto[];
  @ApiProperty({ format: 'date-time' }) last_seen_at: string;
  @ApiProperty() status: string;
  @ApiProperty() login_type: string;
  @ApiProperty({ format: 'date-time' }) user_created_at: string;
  @ApiProperty({ format: 'date-time' }) user_updated_at: string;
  @ApiPropertyOptional() is_service_account?: boolean;
  @ApiProperty({ description: 'false until the AI gateway records seats' }) has_ai_seat: boolean;
}

export class PaginatedMembersResponseDto {
  @ApiProperty({ type: [CoderOrganizationMemberWithUserDto] }) members: CoderOrganizationMemberWithUserDto[];
  @ApiProperty() count: number;
}

export class WorkspaceSharingSettingsDto {
  @ApiProperty() sharing_globally_disabled: boolean;
  @ApiProperty({ description: 'deprecated: true when the mode is `none`' }) sharing_disabled: boolean;
  @ApiProperty({ enum: ['none', 'everyone', 'service_accounts'] }) shareable_workspace_owners: string;
}

@GoStruct('UpdateWorkspaceSharingSettingsRequest')
export class UpdateWorkspaceSharingSettingsRequestDto {
  @ApiPropertyOptional({ enum: ['none', 'everyone', 'service_accounts'] })
  @GoType('string')
  shareable_workspace_owners?: string;
  @ApiPropertyOptional({ description: 'deprecated: true = none, false = everyone' })
  @GoType('bool')
  sharing_disabled?: boolean;
}

// ------------------------------------------------------------------------------------ groups

@GoStruct('CreateGroupRequest')
export class CreateGroupRequestDto {
  @ApiProperty() @GoType('string') @GoValidate('required', 'username') name: string;
  @ApiPropertyOptional() @GoType('string') @GoValidate('group_display_name') display_name?: string;
  @ApiPropertyOptional() @GoType('string') avatar_url?: string;
  @ApiPropertyOptional() @GoType('int64') quota_allowance?: number;
}

@GoStruct('PatchGroupRequest')
export class PatchGroupRequestDto {
  @ApiPropertyOptional({ type: [String], format: 'uuid' }) @GoType('[]string') add_users?: string[];
  @ApiPropertyOptional({ type: [String], format: 'uuid' }) @GoType('[]string') remove_users?: string[];
  @ApiPropertyOptional({ description: '"" leaves the name unchanged' })
  @GoType('string')
  @GoValidate('username')
  name?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'null leaves it unchanged' })
  @GoType('string')
  @GoValidate('group_display_name')
  display_name?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'null leaves it unchanged' })
  @GoType('string')
  avatar_url?: string | null;
  @ApiPropertyOptional({ type: Number, nullable: true, description: 'null leaves it unchanged' })
  @GoType('int64')
  quota_allowance?: number | null;
}

/** codersdk.ReducedUser plus the group member's fields. */
export class CoderGroupMemberDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() username: string;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional() avatar_url?: string;
  @ApiProperty() email: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ format: 'date-time' }) last_seen_at: string;
  @ApiProperty() status: string;
  @ApiProperty() login_type: string;
  @ApiProperty() theme_preference: string;
  @ApiPropertyOptional() is_service_account?: boolean;
}

/** codersdk.Group (a devplane team: one concept for both dialects). */
export class CoderGroupDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() display_name: string;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty() organization_name: string;
  @ApiProperty() organization_display_name: string;
  @ApiProperty({ type: [CoderGroupMemberDto] }) members: CoderGroupMemberDto[];
  @ApiProperty() total_member_count: number;
  @ApiProperty() avatar_url: string;
  @ApiProperty() quota_allowance: number;
  @ApiProperty({ enum: ['user', 'oidc'] }) source: string;
}

export class GroupMembersResponseDto {
  @ApiProperty({ type: [CoderGroupMemberDto] }) users: CoderGroupMemberDto[];
  @ApiProperty() count: number;
}
