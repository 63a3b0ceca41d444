import { ApiPropertyOptional } from '@nestjs/swagger';
import { FormString } from './gitea-binding.decorators';

/**
 * Gitea's `ListOptions` query (`page`, `limit`): list query DTOs extend it. Bad values are not
 * errors (Gitea's FormInt): `giteaPaging(dto)` falls back to page 1, limit 30, and clamps to 50.
 */
export class GiteaListQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'page number of results to return (1-based)',
  })
  @FormString()
  page: string = '';

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 50,
    description: 'page size of results (default 30, at most 50)',
  })
  @FormString()
  limit: string = '';
}
