import { ApiProperty } from '@nestjs/swagger';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.RenameUserOption` (`POST /admin/users/{username}/rename`). */
@GoStruct('RenameUserOption')
export class RenameUserOptionDto {
  // MaxSize(40) beyond Gitea (the name column; Gitea answers 500), as on create.
  @ApiProperty({ maxLength: 40 })
  @GoType('string')
  @Binding('Required;MaxSize(40)', { name: 'NewName' })
  new_username: string;
}
