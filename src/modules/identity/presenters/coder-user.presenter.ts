import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Membership } from '../organizations.service';
import type { User } from '../entities/user.entity';

const ROLE_DISPLAY_NAMES: Record<string, string> = {
  owner: 'Owner',
  auditor: 'Auditor',
  'template-admin': 'Template Admin',
  'user-admin': 'User Admin',
};

export class CoderSlimRoleDto {
  @ApiProperty() name: string;
  @ApiProperty() display_name: string;
  @ApiPropertyOptional() organization_id?: string;
}

/** codersdk.User */
export class CoderUserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() username: string;
  /** Omitted when empty (Go `omitempty`; `""` would fail its `uri` format). */
  @ApiPropertyOptional({ format: 'uri' }) avatar_url?: string;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ format: 'date-time' }) last_seen_at: string;
  @ApiProperty({ enum: ['active', 'suspended', 'dormant'] }) status: string;
  @ApiProperty({ enum: ['password', 'github', 'oidc', 'token', 'none'] }) login_type: string;
  @ApiProperty() theme_preference: string;
  @ApiProperty({ type: [String] }) organization_ids: string[];
  @ApiProperty({ type: [CoderSlimRoleDto] }) roles: CoderSlimRoleDto[];
  @ApiProperty() has_ai_seat: boolean;
  @ApiPropertyOptional() is_service_account?: boolean;
}

/** Coder's site roles of a user: the stored ones, with `owner` for site administrators. */
export function coderSiteRoles(user: User): string[] {
  const roles = new Set(user.siteRoles);
  if (user.isAdmin) roles.add('owner');
  return [...roles].sort();
}

export function presentCoderUser(user: User, memberships: Membership[], hasAiSeat = false): CoderUserDto {
  const dto: CoderUserDto = {
    id: user.uuid,
    username: user.name,
    ...(user.avatarUrl ? { avatar_url: user.avatarUrl } : {}),
    name: user.fullName,
    email: user.email,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
    last_seen_at: (user.lastSeenAt ?? user.createdAt).toISOString(),
    status: user.status,
    login_type: user.loginType,
    theme_preference: '',
    organization_ids: memberships.map((m) => m.organizationUuid),
    roles: coderSiteRoles(user).map((name) => ({ name, display_name: ROLE_DISPLAY_NAMES[name] ?? name })),
    has_ai_seat: hasAiSeat,
  };
  if (user.isServiceAccount) dto.is_service_account = true;
  return dto;
}
