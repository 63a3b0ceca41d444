import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { FormBool, FormString, GiteaCheck } from '../../../api/gitea/gitea-binding.decorators';
import { GiteaListQueryDto } from '../../../api/gitea/gitea-list-query.dto';

export const USER_SORTS = ['name', 'created', 'updated', 'id'] as const;
export type UserSort = (typeof USER_SORTS)[number];
const VISIBILITIES = ['public', 'limited', 'private'];

/**
 * `GET /admin/users` query. Repeated parameters count by their first value, nested ones are empty.
 * `order` is checked before `sort`, and only with a `sort` (Gitea's order); flags are Go ParseBool
 * (junk = false).
 */
export class SearchUsersQueryDto extends GiteaListQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int64',
    description: 'authentication source; 0 or none = all',
  })
  @FormString()
  source_id: string = '';

  @ApiPropertyOptional({ description: "the user's login name at the source" })
  @FormString()
  login_name: string = '';

  @ApiPropertyOptional({ description: 'substring of the username, full name or email' })
  @FormString()
  q: string = '';

  @ApiPropertyOptional({ enum: ['asc', 'desc'], description: 'only with `sort`' })
  @FormString()
  @ValidateIf((dto: SearchUsersQueryDto) => dto.sort !== '')
  @GiteaCheck(
    (order) => order === '' || order === 'asc' || order === 'desc',
    (order) => `Invalid sort order: "${String(order)}"`,
  )
  order: string = '';

  @ApiPropertyOptional({ enum: [...USER_SORTS] })
  @FormString()
  @GiteaCheck(
    (sort) => sort === '' || (USER_SORTS as readonly unknown[]).includes(sort),
    (sort) => `Invalid sort mode: "${String(sort)}"`,
  )
  sort: string = '';

  @ApiPropertyOptional({ enum: VISIBILITIES })
  @FormString()
  @GiteaCheck(
    (visibility) => visibility === '' || VISIBILITIES.includes(visibility as string),
    (visibility) => `Invalid visibility: "${String(visibility)}"`,
  )
  visibility: string = '';

  @ApiPropertyOptional({ type: 'boolean' })
  @FormBool()
  is_active?: boolean;

  @ApiPropertyOptional({ type: 'boolean' })
  @FormBool()
  is_admin?: boolean;

  @ApiPropertyOptional({ type: 'boolean' })
  @FormBool()
  is_restricted?: boolean;

  @ApiPropertyOptional({ type: 'boolean', description: 'true matches nobody (no second factor exists yet)' })
  @FormBool()
  is_2fa_enabled?: boolean;

  @ApiPropertyOptional({ type: 'boolean' })
  @FormBool()
  is_prohibit_login?: boolean;
}
