import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.CreateKeyOption` (`POST /user/keys`, `POST /admin/users/{username}/keys`). */
@GoStruct('CreateKeyOption')
export class CreateKeyOptionDto {
  @ApiProperty({ maxLength: 255 })
  @GoType('string')
  @Binding('Required;MaxSize(255)')
  title: string;

  @ApiProperty({ description: 'an OpenSSH public key line' })
  @GoType('string')
  @Binding('Required')
  key: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  read_only?: boolean;
}
