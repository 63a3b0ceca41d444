import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { COLLABORATOR_MODES, type CollaboratorMode } from '../entities/collaborator.entity';

/** Gitea's CreateRepoOption (the fields devplane acts on; others are accepted and ignored). */
export class CreateRepoOptionDto {
  @ApiProperty({ maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' })
  @IsString()
  name: string;

  @ApiPropertyOptional({ maxLength: 2048 })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  description?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  private?: boolean;

  @ApiPropertyOptional({ description: 'create a first commit with a README' })
  @IsOptional()
  @IsBoolean()
  auto_init?: boolean;

  @ApiPropertyOptional({ default: 'main' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  default_branch?: string;
}

/** Gitea's EditRepoOption (the fields devplane acts on). */
export class EditRepoOptionDto {
  @ApiPropertyOptional({ description: 'new name; the old one redirects' })
  @IsOptional()
  @IsString()
  name?: string;

  @ApiPropertyOptional({ maxLength: 2048 })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  description?: string;

  @ApiPropertyOptional({ maxLength: 1024 })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  website?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  private?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  archived?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(255)
  default_branch?: string;
}

/** Gitea's CreateForkOption. */
export class CreateForkOptionDto {
  @ApiPropertyOptional({ description: 'organization to fork into (default: the caller)' })
  @IsOptional()
  @IsString()
  organization?: string;

  @ApiPropertyOptional({ description: 'name of the fork (default: the source name)' })
  @IsOptional()
  @IsString()
  name?: string;
}

/** Gitea's AddCollaboratorOption. */
export class AddCollaboratorOptionDto {
  @ApiPropertyOptional({ enum: COLLABORATOR_MODES, default: 'write' })
  @IsOptional()
  @IsIn(COLLABORATOR_MODES as unknown as string[])
  permission?: CollaboratorMode;
}

/** `page` and `limit` of Gitea's lists (parsed leniently as Gitea does). */
export class GiteaListQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @IsOptional()
  @IsString()
  page?: string;

  @ApiPropertyOptional({ type: 'integer', maximum: 50 })
  @IsOptional()
  @IsString()
  limit?: string;
}

/** `GET /repos/search`. */
export class SearchRepositoriesQueryDto extends GiteaListQueryDto {
  @ApiPropertyOptional({ description: 'keyword (part of the name)' })
  @IsOptional()
  @IsString()
  q?: string;

  @ApiPropertyOptional({ type: 'integer', description: 'owner id' })
  @IsOptional()
  @IsString()
  uid?: string;

  @ApiPropertyOptional({ type: 'boolean' })
  @IsOptional()
  @IsString()
  is_private?: string;

  @ApiPropertyOptional({ enum: ['alpha', 'created', 'updated', 'size', 'id'] })
  @IsOptional()
  @IsString()
  sort?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'] })
  @IsOptional()
  @IsString()
  order?: string;
}

export class SearchResultsDto {
  @ApiProperty() ok: boolean;
  @ApiProperty({ type: 'array', items: { $ref: '#/components/schemas/GiteaRepositoryDto' } }) data: unknown[];
}
