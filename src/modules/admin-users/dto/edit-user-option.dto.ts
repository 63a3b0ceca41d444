import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.EditUserOption` (`PATCH /admin/users/{username}`). */
@GoStruct('EditUserOption')
export class EditUserOptionDto {
  @ApiPropertyOptional({ type: 'integer', format: 'int64' })
  @GoType('int64')
  @Binding('', { name: 'SourceID' })
  source_id?: number;

  @ApiProperty({ maxLength: 255, description: 'always applied' })
  @GoType('string')
  @Binding('Required;MaxSize(255)')
  login_name: string;

  @ApiPropertyOptional({ format: 'email', maxLength: 254 })
  @GoType('string')
  @Binding('MaxSize(254)')
  email?: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @GoType('string')
  @Binding('MaxSize(100)')
  full_name?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @GoType('string')
  @Binding('MaxSize(255)')
  password?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  must_change_password?: boolean;

  @ApiPropertyOptional({ format: 'uri', maxLength: 255 })
  @GoType('string')
  @Binding('Url;MaxSize(255)')
  website?: string;

  @ApiPropertyOptional({ maxLength: 50 })
  @GoType('string')
  @Binding('MaxSize(50)')
  location?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @GoType('string')
  @Binding('MaxSize(255)')
  description?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  active?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  admin?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  allow_git_hook?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  allow_import_local?: boolean;

  @ApiPropertyOptional({ type: 'integer', format: 'int64', description: '-1 = the site default' })
  @GoType('int64')
  @Binding('')
  max_repo_creation?: number;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  prohibit_login?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  allow_create_organization?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  restricted?: boolean;

  @ApiPropertyOptional({ enum: ['public', 'limited', 'private'] })
  @GoType('string')
  @Binding('In(,public,limited,private)')
  visibility?: string;
}
