import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Binding, FormString, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';
import { GiteaListQueryDto } from '../../../api/gitea/gitea-list-query.dto';

/** Gitea `api.CreateStatusOption`. */
@GoStruct('CreateStatusOption')
export class CreateStatusOptionDto {
  @ApiProperty({ enum: ['pending', 'success', 'error', 'failure', 'warning'] })
  @GoType('string')
  @Binding('')
  state: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('', { name: 'TargetURL' })
  target_url?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  description?: string;

  @ApiPropertyOptional({ description: 'default `default`' })
  @GoType('string')
  @Binding('')
  context?: string;
}

/** Gitea's status list query. */
export class StatusListQueryDto extends GiteaListQueryDto {
  @ApiPropertyOptional({ enum: ['oldest', 'recentupdate', 'leastupdate', 'leastindex', 'highestindex'] })
  @FormString()
  sort: string = '';

  @ApiPropertyOptional({ enum: ['pending', 'success', 'error', 'failure', 'warning'] })
  @FormString()
  state: string = '';
}
