import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * Request bodies, for the OpenAPI document. They are bound by binding.ts (Gitea's field order
 * and `[Field]: Rule` texts), not by class-validator.
 */
export class CreateUserOptionDto {
  @ApiPropertyOptional({ type: 'integer', format: 'int64' }) source_id?: number;
  @ApiPropertyOptional() login_name?: string;
  @ApiProperty({ maxLength: 40 }) username: string;
  @ApiPropertyOptional({ maxLength: 100 }) full_name?: string;
  @ApiProperty({ format: 'email', maxLength: 254 }) email: string;
  @ApiPropertyOptional({ maxLength: 255 }) password?: string;
  @ApiPropertyOptional({ default: true }) must_change_password?: boolean;
  @ApiPropertyOptional() send_notify?: boolean;
  @ApiPropertyOptional() restricted?: boolean;
  @ApiPropertyOptional({ enum: ['public', 'limited', 'private'] }) visibility?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'sets creation and update time' }) created_at?: string;
}

export class EditUserOptionDto {
  @ApiPropertyOptional({ type: 'integer', format: 'int64' }) source_id?: number;
  @ApiProperty({ description: 'always applied' }) login_name: string;
  @ApiPropertyOptional({ maxLength: 254 }) email?: string;
  @ApiPropertyOptional({ maxLength: 100 }) full_name?: string;
  @ApiPropertyOptional({ maxLength: 255 }) password?: string;
  @ApiPropertyOptional() must_change_password?: boolean;
  @ApiPropertyOptional({ maxLength: 255 }) website?: string;
  @ApiPropertyOptional({ maxLength: 50 }) location?: string;
  @ApiPropertyOptional({ maxLength: 255 }) description?: string;
  @ApiPropertyOptional() active?: boolean;
  @ApiPropertyOptional() admin?: boolean;
  @ApiPropertyOptional() allow_git_hook?: boolean;
  @ApiPropertyOptional() allow_import_local?: boolean;
  @ApiPropertyOptional({ type: 'integer' }) max_repo_creation?: number;
  @ApiPropertyOptional() prohibit_login?: boolean;
  @ApiPropertyOptional() allow_create_organization?: boolean;
  @ApiPropertyOptional() restricted?: boolean;
  @ApiPropertyOptional({ enum: ['public', 'limited', 'private'] }) visibility?: string;
}

export class RenameUserOptionDto {
  @ApiProperty() new_username: string;
}

export class CreateKeyOptionDto {
  @ApiProperty() title: string;
  @ApiProperty({ description: 'an OpenSSH public key line' }) key: string;
  @ApiPropertyOptional() read_only?: boolean;
}

export class GiteaErrorDto {
  @ApiProperty() message: string;
  @ApiPropertyOptional() url?: string;
}
