import { ApiPropertyOptional } from '@nestjs/swagger';
import { FormString } from '../../../api/gitea/gitea-binding.decorators';
import { GiteaListQueryDto } from '../../../api/gitea/gitea-list-query.dto';

/** `GET /user/keys`, `GET /users/{username}/keys` query. */
export class ListPublicKeysQueryDto extends GiteaListQueryDto {
  @ApiPropertyOptional({ description: 'only the key with this SHA256 fingerprint' })
  @FormString()
  fingerprint: string = '';
}
