import { ApiProperty } from '@nestjs/swagger';
import type { Team } from '../entities/team.entity';
import type { User } from '../entities/user.entity';

/** Gitea's Organization (structs.Organization). */
export class GiteaOrganizationDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty() username: string;
  @ApiProperty() full_name: string;
  @ApiProperty() email: string;
  @ApiProperty() avatar_url: string;
  @ApiProperty() description: string;
  @ApiProperty() website: string;
  @ApiProperty() location: string;
  @ApiProperty({ enum: ['public', 'limited', 'private'] }) visibility: string;
  @ApiProperty() repo_admin_change_team_access: boolean;
}

/** Gitea's Team (structs.Team). */
export class GiteaTeamDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty() description: string;
  @ApiProperty({ type: GiteaOrganizationDto, nullable: true }) organization: GiteaOrganizationDto | null;
  @ApiProperty() includes_all_repositories: boolean;
  @ApiProperty({ enum: ['none', 'read', 'write', 'admin', 'owner'] }) permission: string;
  @ApiProperty({ type: [String] }) units: string[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) units_map: Record<
    string,
    string
  >;
  @ApiProperty() can_create_org_repo: boolean;
}

export function presentGiteaOrganization(organization: User, publicUrl: string): GiteaOrganizationDto {
  return {
    id: Number(organization.id),
    name: organization.name,
    username: organization.name,
    full_name: organization.fullName,
    email: organization.email,
    avatar_url: organization.avatarUrl || `${publicUrl}avatars/${organization.lowerName}`,
    description: organization.description,
    website: organization.website,
    location: organization.location,
    visibility: organization.visibility,
    repo_admin_change_team_access: false,
  };
}

export function presentGiteaTeam(team: Team, organization: User | null, publicUrl: string): GiteaTeamDto {
  return {
    id: Number(team.id),
    name: team.name,
    description: team.description,
    organization: organization ? presentGiteaOrganization(organization, publicUrl) : null,
    includes_all_repositories: team.includesAllRepositories,
    permission: team.permission,
    units: team.units,
    units_map: Object.fromEntries(
      team.units.map((unit) => [unit, team.permission === 'owner' ? 'owner' : team.permission]),
    ),
    can_create_org_repo: team.canCreateOrgRepo,
  };
}
