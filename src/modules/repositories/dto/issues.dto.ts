import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';
import { MERGE_STYLES } from '../issues/pull-git';
import { GiteaListQueryDto } from './repositories.dto';

/** Gitea `api.CreateIssueOption` (assignees are accepted and ignored). */
@GoStruct('CreateIssueOption')
export class CreateIssueOptionDto {
  @ApiPropertyOptional({ type: [Number], description: 'label ids' })
  @GoType('[]int64')
  @Binding('')
  labels?: number[];

  @ApiPropertyOptional({ description: 'milestone id' })
  @GoType('int64')
  @Binding('')
  milestone?: number;

  @ApiProperty({ maxLength: 255 })
  @GoType('string')
  @Binding('Required;MaxSize(255)')
  title: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  body?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  closed?: boolean;
}

/** Gitea `api.EditIssueOption`. */
@GoStruct('EditIssueOption')
export class EditIssueOptionDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @GoType('string')
  @Binding('MaxSize(255)')
  title?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  body?: string;

  @ApiPropertyOptional({ enum: ['open', 'closed'] })
  @GoType('string')
  @Binding('In(open,closed)')
  state?: 'open' | 'closed';

  @ApiPropertyOptional({ description: 'milestone id; 0 removes the milestone (write access)' })
  @GoType('int64')
  @Binding('')
  milestone?: number;
}

/** `GET /repos/{o}/{r}/issues`. */
export class IssueListQueryDto extends GiteaListQueryDto {
  @ApiPropertyOptional({ enum: ['open', 'closed', 'all'], default: 'open' })
  @IsOptional()
  @IsString()
  state?: string;

  @ApiPropertyOptional({ enum: ['issues', 'pulls'] })
  @IsOptional()
  @IsString()
  type?: string;

  @ApiPropertyOptional({ description: 'search in title and body' })
  @IsOptional()
  @IsString()
  q?: string;

  @ApiPropertyOptional({ description: 'comma-separated label names or ids: issues carrying all of them' })
  @IsOptional()
  @IsString()
  labels?: string;

  @ApiPropertyOptional({ description: 'comma-separated milestone names or ids: issues in any of them' })
  @IsOptional()
  @IsString()
  milestones?: string;
}

/** `GET /repos/{o}/{r}/pulls`. */
export class PullListQueryDto extends GiteaListQueryDto {
  @ApiPropertyOptional({ enum: ['open', 'closed', 'all'], default: 'open' })
  @IsOptional()
  @IsString()
  state?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'label ids or names (repeated, or comma-separated): pulls carrying all of them',
  })
  @IsOptional()
  @IsString({ each: true })
  labels?: string | string[];

  @ApiPropertyOptional({ description: 'milestone id (Gitea)' })
  @IsOptional()
  @IsString()
  milestone?: string;

  @ApiPropertyOptional({ description: 'comma-separated milestone names or ids' })
  @IsOptional()
  @IsString()
  milestones?: string;
}

/** Gitea `api.CreateIssueCommentOption`. */
@GoStruct('CreateIssueCommentOption')
export class CreateIssueCommentOptionDto {
  @ApiProperty()
  @GoType('string')
  @Binding('Required')
  body: string;
}

/** Gitea `api.EditIssueCommentOption`. */
@GoStruct('EditIssueCommentOption')
export class EditIssueCommentOptionDto {
  @ApiProperty()
  @GoType('string')
  @Binding('Required')
  body: string;
}

/** Gitea `api.CreatePullRequestOption`. */
@GoStruct('CreatePullRequestOption')
export class CreatePullRequestOptionDto {
  @ApiProperty({ description: '`branch`, `owner:branch` (a fork) or `owner/repo:branch`' })
  @GoType('string')
  @Binding('Required')
  head: string;

  @ApiProperty()
  @GoType('string')
  @Binding('Required')
  base: string;

  @ApiProperty({ maxLength: 255 })
  @GoType('string')
  @Binding('Required;MaxSize(255)')
  title: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  body?: string;

  @ApiPropertyOptional({ type: [Number], description: 'label ids' })
  @GoType('[]int64')
  @Binding('')
  labels?: number[];

  @ApiPropertyOptional({ description: 'milestone id' })
  @GoType('int64')
  @Binding('')
  milestone?: number;
}

/** Gitea `api.EditPullRequestOption`. */
@GoStruct('EditPullRequestOption')
export class EditPullRequestOptionDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @GoType('string')
  @Binding('MaxSize(255)')
  title?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  body?: string;

  @ApiPropertyOptional({ enum: ['open', 'closed'] })
  @GoType('string')
  @Binding('In(open,closed)')
  state?: 'open' | 'closed';

  @ApiPropertyOptional({ description: 'a new base branch' })
  @GoType('string')
  @Binding('')
  base?: string;

  @ApiPropertyOptional({ type: [Number], description: 'label ids: replace the labels (write access)' })
  @GoType('[]int64')
  @Binding('')
  labels?: number[];

  @ApiPropertyOptional({ description: 'milestone id; 0 removes the milestone (write access)' })
  @GoType('int64')
  @Binding('')
  milestone?: number;
}

/** Gitea `api.MergePullRequestOption` (form `MergePullRequestForm`). */
@GoStruct('MergePullRequestOption')
export class MergePullRequestOptionDto {
  @ApiProperty({ enum: MERGE_STYLES })
  @GoType('string')
  @Binding(`Required;In(${MERGE_STYLES.join(',')})`, { name: 'Do' })
  Do: (typeof MERGE_STYLES)[number];

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  MergeTitleField?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  MergeMessageField?: string;

  @ApiPropertyOptional({ description: 'refused with 409 when the head moved since' })
  @GoType('string')
  @Binding('')
  head_commit_id?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  delete_branch_after_merge?: boolean;

  @ApiPropertyOptional({ description: 'accepted; devplane has no merge checks to skip' })
  @GoType('bool')
  @Binding('')
  force_merge?: boolean;
}

/** Gitea `api.CreateReleaseOption`. */
@GoStruct('CreateReleaseOption')
export class CreateReleaseOptionDto {
  @ApiProperty({ maxLength: 255 })
  @GoType('string')
  @Binding('Required;MaxSize(255)')
  tag_name: string;

  @ApiPropertyOptional({
    description: 'branch or commit the tag is created at (default: the default branch)',
  })
  @GoType('string')
  @Binding('')
  target_commitish?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @GoType('string')
  @Binding('MaxSize(255)', { name: 'Title' })
  name?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('', { name: 'Note' })
  body?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('', { name: 'IsDraft' })
  draft?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('', { name: 'IsPrerelease' })
  prerelease?: boolean;
}

/** Gitea `api.EditReleaseOption`. */
@GoStruct('EditReleaseOption')
export class EditReleaseOptionDto {
  @ApiPropertyOptional({ maxLength: 255 })
  @GoType('string')
  @Binding('MaxSize(255)')
  tag_name?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  target_commitish?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @GoType('string')
  @Binding('MaxSize(255)', { name: 'Title' })
  name?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('', { name: 'Note' })
  body?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('', { name: 'IsDraft' })
  draft?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('', { name: 'IsPrerelease' })
  prerelease?: boolean;
}

/** `GET /repos/{o}/{r}/releases`. */
export class ReleaseListQueryDto extends GiteaListQueryDto {
  @ApiPropertyOptional({ type: 'boolean', description: 'only drafts (true) or only published (false)' })
  @IsOptional()
  @IsIn(['true', 'false'])
  draft?: string;

  @ApiPropertyOptional({ type: 'boolean', name: 'pre-release' })
  @IsOptional()
  @IsIn(['true', 'false'])
  'pre-release'?: string;
}
