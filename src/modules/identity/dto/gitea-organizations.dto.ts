import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { TEAM_UNITS } from '../organizations.service';

const VISIBILITIES = ['public', 'limited', 'private'];

/** Gitea's CreateOrgOption. */
export class CreateOrgOptionDto {
  @ApiProperty({ maxLength: 40 })
  @IsString()
  @MaxLength(40, { message: '[UserName]: MaxSize' })
  username: string;
  @ApiPropertyOptional({ maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100, { message: '[FullName]: MaxSize' })
  full_name?: string;
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255, { message: '[Description]: MaxSize' })
  description?: string;
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255, { message: '[Website]: MaxSize' })
  website?: string;
  @ApiPropertyOptional({ maxLength: 50 })
  @IsOptional()
  @IsString()
  @MaxLength(50, { message: '[Location]: MaxSize' })
  location?: string;
  @ApiPropertyOptional({ enum: VISIBILITIES })
  @IsOptional()
  @IsIn(VISIBILITIES, { message: '[Visibility]: In' })
  visibility?: 'public' | 'limited' | 'private';
  @ApiPropertyOptional() @IsOptional() @IsBoolean() repo_admin_change_team_access?: boolean;
}

/** Gitea's EditOrgOption. */
export class EditOrgOptionDto {
  @ApiPropertyOptional({ maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100, { message: '[FullName]: MaxSize' })
  full_name?: string;
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255, { message: '[Description]: MaxSize' })
  description?: string;
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255, { message: '[Website]: MaxSize' })
  website?: string;
  @ApiPropertyOptional({ maxLength: 50 })
  @IsOptional()
  @IsString()
  @MaxLength(50, { message: '[Location]: MaxSize' })
  location?: string;
  @ApiPropertyOptional({ enum: VISIBILITIES })
  @IsOptional()
  @IsIn(VISIBILITIES, { message: '[Visibility]: In' })
  visibility?: 'public' | 'limited' | 'private';
  @ApiPropertyOptional() @IsOptional() @IsBoolean() repo_admin_change_team_access?: boolean;
}

/** Gitea's CreateTeamOption / EditTeamOption (name required on create). */
export class TeamOptionDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255, { message: '[Name]: MaxSize' })
  name?: string;
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOptional()
  @IsString()
  @MaxLength(255, { message: '[Description]: MaxSize' })
  description?: string;
  @ApiPropertyOptional({ enum: ['read', 'write', 'admin'] })
  @IsOptional()
  @IsIn(['read', 'write', 'admin'], { message: '[Permission]: In' })
  permission?: 'read' | 'write' | 'admin';
  @ApiPropertyOptional({ type: [String], enum: TEAM_UNITS })
  @IsOptional()
  @IsArray()
  @IsIn(TEAM_UNITS as unknown as string[], { each: true, message: '[Units]: In' })
  units?: string[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  units_map?: Record<string, string>;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() includes_all_repositories?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() can_create_org_repo?: boolean;
}

export class GiteaPageQueryDto {
  @ApiPropertyOptional({ type: 'integer' }) @IsOptional() @IsString() page?: string;
  @ApiPropertyOptional({ type: 'integer' }) @IsOptional() @IsString() limit?: string;
}
