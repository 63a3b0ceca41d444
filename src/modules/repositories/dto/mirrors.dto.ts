import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.MigrateRepoOptions` (git migrations; the issue/PR/wiki switches are accepted and ignored). */
@GoStruct('MigrateRepoOptions')
export class MigrateRepoOptionsDto {
  @ApiProperty({ description: 'http(s) URL of the git repository to clone' })
  @GoType('string')
  @Binding('Required', { name: 'CloneAddr' })
  clone_addr: string;

  @ApiProperty({ maxLength: 100 })
  @GoType('string')
  @Binding('Required;MaxSize(100)', { name: 'RepoName' })
  repo_name: string;

  @ApiPropertyOptional({
    description: 'owner (user or organization) of the new repository; default: the caller',
  })
  @GoType('string')
  @Binding('', { name: 'RepoOwner' })
  repo_owner?: string;

  @ApiPropertyOptional({ deprecated: true, description: 'owner id (use repo_owner)' })
  @GoType('int64')
  @Binding('', { name: 'RepoOwnerID' })
  uid?: number;

  @ApiPropertyOptional({ description: 'keep fetching from the remote (a read-only mirror)' })
  @GoType('bool')
  @Binding('')
  mirror?: boolean;

  @ApiPropertyOptional({ description: 'Go duration (`8h0m0s`); `0` turns periodic syncs off' })
  @GoType('string')
  @Binding('')
  mirror_interval?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  private?: boolean;

  @ApiPropertyOptional({ maxLength: 2048 })
  @GoType('string')
  @Binding('MaxSize(2048)')
  description?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  auth_username?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  auth_password?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  auth_token?: string;

  @ApiPropertyOptional({ description: 'git (default); other services are migrated as plain git' })
  @GoType('string')
  @Binding('')
  service?: string;

  @ApiPropertyOptional() @GoType('bool') @Binding('') wiki?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') issues?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') labels?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') milestones?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') pull_requests?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') releases?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') lfs?: boolean;
}
