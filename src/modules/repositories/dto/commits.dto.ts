import { ApiPropertyOptional } from '@nestjs/swagger';
import { FormBool, FormString } from '../../../api/gitea/gitea-binding.decorators';
import { GiteaListQueryDto } from '../../../api/gitea/gitea-list-query.dto';

/** Gitea's GetAllCommits query. */
export class CommitListQueryDto extends GiteaListQueryDto {
  @ApiPropertyOptional({
    description: 'SHA or branch to start listing commits from (default: the default branch)',
  })
  @FormString()
  sha: string = '';

  @ApiPropertyOptional({ description: 'only commits touching this file or directory' })
  @FormString()
  path: string = '';

  @ApiPropertyOptional({ description: 'commits reachable from these refs are left out' })
  @FormString()
  not: string = '';

  @ApiPropertyOptional({ type: 'boolean', description: 'diff stats per commit (default true)' })
  @FormBool()
  stat?: boolean;

  @ApiPropertyOptional({ type: 'boolean', description: 'accepted (no signature is verified)' })
  @FormBool()
  verification?: boolean;

  @ApiPropertyOptional({ type: 'boolean', description: 'affected files per commit (default true)' })
  @FormBool()
  files?: boolean;
}

/** Options of one commit. */
export class CommitQueryDto {
  @ApiPropertyOptional({ type: 'boolean' })
  @FormBool()
  stat?: boolean;

  @ApiPropertyOptional({ type: 'boolean' })
  @FormBool()
  verification?: boolean;

  @ApiPropertyOptional({ type: 'boolean' })
  @FormBool()
  files?: boolean;
}

/** Gitea's GetTree query. */
export class TreeQueryDto {
  @ApiPropertyOptional({ type: 'boolean' })
  @FormBool()
  recursive?: boolean;

  @ApiPropertyOptional({ type: 'integer' })
  @FormString()
  page: string = '';

  @ApiPropertyOptional({ type: 'integer', description: 'entries per page (default 1000)' })
  @FormString()
  per_page: string = '';
}
