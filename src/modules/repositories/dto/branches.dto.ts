import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.CreateBranchRepoOption`. */
@GoStruct('CreateBranchRepoOption')
export class CreateBranchRepoOptionDto {
  @ApiProperty({ maxLength: 100, description: 'name of the new branch' })
  @GoType('string')
  @Binding('Required;GitRefName;MaxSize(100)', { name: 'BranchName' })
  new_branch_name: string;

  @ApiPropertyOptional({
    maxLength: 100,
    description: 'branch, tag, full ref or commit to branch from; takes precedence',
  })
  @GoType('string')
  @Binding('GitRefName;MaxSize(100)', { name: 'OldRefName' })
  old_ref_name?: string;

  @ApiPropertyOptional({ maxLength: 100, deprecated: true, description: 'used when old_ref_name is empty' })
  @GoType('string')
  @Binding('GitRefName;MaxSize(100)', { name: 'OldBranchName' })
  old_branch_name?: string;
}

/** Gitea `api.UpdateBranchRepoOption`. */
@GoStruct('UpdateBranchRepoOption')
export class UpdateBranchRepoOptionDto {
  @ApiProperty({ description: 'the commit the branch should point to (anything git resolves to a commit)' })
  @GoType('string')
  @Binding('Required', { name: 'NewCommitID' })
  new_commit_id: string;

  @ApiPropertyOptional({ description: 'the tip the branch is expected to have (compare-and-swap)' })
  @GoType('string')
  @Binding('', { name: 'OldCommitID' })
  old_commit_id?: string;

  @ApiPropertyOptional({ description: 'allow a non-fast-forward move' })
  @GoType('bool')
  @Binding('')
  force?: boolean;
}

/** Gitea `api.RenameBranchRepoOption`. */
@GoStruct('RenameBranchRepoOption')
export class RenameBranchRepoOptionDto {
  @ApiProperty({ maxLength: 100, description: 'the new name' })
  @GoType('string')
  @Binding('Required;GitRefName;MaxSize(100)')
  name: string;
}

/** Gitea `api.MergeUpstreamRequest`. */
@GoStruct('MergeUpstreamRequest')
export class MergeUpstreamRequestDto {
  @ApiPropertyOptional({ description: "the fork's branch (default: its default branch)" })
  @GoType('string')
  @Binding('')
  branch?: string;

  @ApiPropertyOptional({
    description: 'refuse (400) instead of writing a merge commit when the branch has diverged',
  })
  @GoType('bool')
  @Binding('', { name: 'FfOnly' })
  ff_only?: boolean;
}

/** Gitea `api.UpdateBranchProtectionPriories` (sic). */
@GoStruct('UpdateBranchProtectionPriories')
export class UpdateBranchProtectionPrioritiesDto {
  @ApiProperty({ type: [Number], description: 'rule ids in the new priority order' })
  @GoType('[]int64')
  @Binding('', { name: 'IDs' })
  ids: number[];
}

/** The fields Create and Edit share (Edit: every one optional, absent = unchanged). */
abstract class BranchProtectionFieldsDto {
  @ApiPropertyOptional() @GoType('int64') @Binding('') priority?: number;
  @ApiPropertyOptional() @GoType('bool') @Binding('') enable_push?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') enable_push_whitelist?: boolean;
  @ApiPropertyOptional({ type: [String] })
  @GoType('[]string')
  @Binding('')
  push_whitelist_usernames?: string[];
  @ApiPropertyOptional({ type: [String] }) @GoType('[]string') @Binding('') push_whitelist_teams?: string[];
  @ApiPropertyOptional() @GoType('bool') @Binding('') push_whitelist_deploy_keys?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') enable_force_push?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') enable_force_push_allowlist?: boolean;
  @ApiPropertyOptional({ type: [String] })
  @GoType('[]string')
  @Binding('')
  force_push_allowlist_usernames?: string[];
  @ApiPropertyOptional({ type: [String] })
  @GoType('[]string')
  @Binding('')
  force_push_allowlist_teams?: string[];
  @ApiPropertyOptional() @GoType('bool') @Binding('') force_push_allowlist_deploy_keys?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') enable_merge_whitelist?: boolean;
  @ApiPropertyOptional({ type: [String] })
  @GoType('[]string')
  @Binding('')
  merge_whitelist_usernames?: string[];
  @ApiPropertyOptional({ type: [String] }) @GoType('[]string') @Binding('') merge_whitelist_teams?: string[];
  @ApiPropertyOptional() @GoType('bool') @Binding('') enable_status_check?: boolean;
  @ApiPropertyOptional({ type: [String] }) @GoType('[]string') @Binding('') status_check_contexts?: string[];
  @ApiPropertyOptional() @GoType('int64') @Binding('') required_approvals?: number;
  @ApiPropertyOptional() @GoType('bool') @Binding('') enable_approvals_whitelist?: boolean;
  @ApiPropertyOptional({ type: [String], description: 'singular, as Gitea names it' })
  @GoType('[]string')
  @Binding('')
  approvals_whitelist_username?: string[];
  @ApiPropertyOptional({ type: [String] })
  @GoType('[]string')
  @Binding('')
  approvals_whitelist_teams?: string[];
  @ApiPropertyOptional() @GoType('bool') @Binding('') block_on_rejected_reviews?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') block_on_official_review_requests?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') block_on_outdated_branch?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') dismiss_stale_approvals?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') ignore_stale_approvals?: boolean;
  @ApiPropertyOptional() @GoType('bool') @Binding('') require_signed_commits?: boolean;
  @ApiPropertyOptional({ description: 'semicolon-separated globs' })
  @GoType('string')
  @Binding('')
  protected_file_patterns?: string;
  @ApiPropertyOptional({ description: 'semicolon-separated globs' })
  @GoType('string')
  @Binding('')
  unprotected_file_patterns?: string;
  @ApiPropertyOptional() @GoType('bool') @Binding('') block_admin_merge_override?: boolean;
}

/** Gitea `api.CreateBranchProtectionOption`. */
@GoStruct('CreateBranchProtectionOption')
export class CreateBranchProtectionOptionDto extends BranchProtectionFieldsDto {
  @ApiPropertyOptional({ description: 'rule name: a branch name or a glob' })
  @GoType('string')
  @Binding('')
  rule_name?: string;
  @ApiPropertyOptional({ deprecated: true, description: 'used when rule_name is empty' })
  @GoType('string')
  @Binding('')
  branch_name?: string;
}

/** Gitea `api.EditBranchProtectionOption` (the rule name cannot change). */
@GoStruct('EditBranchProtectionOption')
export class EditBranchProtectionOptionDto extends BranchProtectionFieldsDto {}
