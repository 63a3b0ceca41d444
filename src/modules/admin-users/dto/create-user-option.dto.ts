import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Binding, GoStruct, GoTime, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.CreateUserOption` (`POST /admin/users`). */
@GoStruct('CreateUserOption')
export class CreateUserOptionDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int64',
    description: 'authentication source; only 0 (local) exists',
  })
  @GoType('int64')
  @Binding('', { name: 'SourceID' })
  source_id?: number;

  @ApiPropertyOptional({ maxLength: 255 })
  @GoType('string')
  @Binding('MaxSize(255)')
  login_name?: string;

  @ApiProperty({ maxLength: 40, pattern: '^[\\da-zA-Z][-.\\w]*$' })
  @GoType('string')
  @Binding('Required;Username;MaxSize(40)')
  username: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @GoType('string')
  @Binding('MaxSize(100)')
  full_name?: string;

  @ApiProperty({ format: 'email', maxLength: 254 })
  @GoType('string')
  @Binding('Required;Email;MaxSize(254)')
  email: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @GoType('string')
  @Binding('MaxSize(255)')
  password?: string;

  @ApiPropertyOptional({ default: true })
  @GoType('bool')
  @Binding('')
  must_change_password?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  send_notify?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  restricted?: boolean;

  @ApiPropertyOptional({ enum: ['public', 'limited', 'private'] })
  @GoType('string')
  @Binding('In(,public,limited,private)')
  visibility?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'sets creation and update time (RFC 3339)' })
  @GoType('string')
  @GoTime()
  @Binding('', { name: 'Created' })
  created_at?: string;
}
