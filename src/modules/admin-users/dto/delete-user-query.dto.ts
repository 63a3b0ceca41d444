import { ApiPropertyOptional } from '@nestjs/swagger';
import { FormBool } from '../../../api/gitea/gitea-binding.decorators';

/** `DELETE /admin/users/{username}` query: `purge` is Go ParseBool of the first value (junk = false). */
export class DeleteUserQueryDto {
  @ApiPropertyOptional({ type: 'boolean', description: 'remove the user completely, with what it owns' })
  @FormBool()
  purge?: boolean;
}
