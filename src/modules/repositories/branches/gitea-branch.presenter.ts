import { ApiProperty } from '@nestjs/swagger';
import type { Repository } from '../entities/repository.entity';
import type { BranchProtection } from './branch-protection.entity';
import type { BranchView } from './branches.service';
import { isGlobRuleName } from './gitea-glob';

export class GiteaPayloadUserDto {
  @ApiProperty() name: string;
  @ApiProperty() email: string;
  @ApiProperty({ description: 'the account whose e-mail address this is, else empty' }) username: string;
}

export class GiteaPayloadCommitVerificationDto {
  @ApiProperty() verified: boolean;
  @ApiProperty() reason: string;
  @ApiProperty() signature: string;
  @ApiProperty({ type: GiteaPayloadUserDto, nullable: true }) signer: GiteaPayloadUserDto | null;
  @ApiProperty() payload: string;
}

export class GiteaPayloadCommitDto {
  @ApiProperty({ description: 'commit id' }) id: string;
  @ApiProperty() message: string;
  @ApiProperty() url: string;
  @ApiProperty({ type: GiteaPayloadUserDto }) author: GiteaPayloadUserDto;
  @ApiProperty({ type: GiteaPayloadUserDto }) committer: GiteaPayloadUserDto;
  @ApiProperty({ type: GiteaPayloadCommitVerificationDto }) verification: GiteaPayloadCommitVerificationDto;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiProperty({ type: [String], nullable: true }) added: string[] | null;
  @ApiProperty({ type: [String], nullable: true }) removed: string[] | null;
  @ApiProperty({ type: [String], nullable: true }) modified: string[] | null;
}

export class GiteaBranchDto {
  @ApiProperty() name: string;
  @ApiProperty({ type: GiteaPayloadCommitDto }) commit: GiteaPayloadCommitDto;
  @ApiProperty() protected: boolean;
  @ApiProperty() required_approvals: number;
  @ApiProperty() enable_status_check: boolean;
  @ApiProperty({ type: [String], nullable: true }) status_check_contexts: string[] | null;
  @ApiProperty() user_can_push: boolean;
  @ApiProperty() user_can_merge: boolean;
  @ApiProperty({ description: 'the effective rule name, for repository administrators only' })
  effective_branch_protection_name: string;
}

export class GiteaBranchProtectionDto {
  @ApiProperty({ description: 'deprecated: the rule name when it is not a glob, else empty' })
  branch_name: string;
  @ApiProperty() rule_name: string;
  @ApiProperty() priority: number;
  @ApiProperty() enable_push: boolean;
  @ApiProperty() enable_push_whitelist: boolean;
  @ApiProperty({ type: [String] }) push_whitelist_usernames: string[];
  @ApiProperty({ type: [String] }) push_whitelist_teams: string[];
  @ApiProperty() push_whitelist_deploy_keys: boolean;
  @ApiProperty() enable_force_push: boolean;
  @ApiProperty() enable_force_push_allowlist: boolean;
  @ApiProperty({ type: [String] }) force_push_allowlist_usernames: string[];
  @ApiProperty({ type: [String] }) force_push_allowlist_teams: string[];
  @ApiProperty() force_push_allowlist_deploy_keys: boolean;
  @ApiProperty() enable_merge_whitelist: boolean;
  @ApiProperty({ type: [String] }) merge_whitelist_usernames: string[];
  @ApiProperty({ type: [String] }) merge_whitelist_teams: string[];
  @ApiProperty() enable_status_check: boolean;
  @ApiProperty({ type: [String], nullable: true }) status_check_contexts: string[] | null;
  @ApiProperty() required_approvals: number;
  @ApiProperty() enable_approvals_whitelist: boolean;
  @ApiProperty({ type: [String], description: 'singular, as Gitea names it' })
  approvals_whitelist_username: string[];
  @ApiProperty({ type: [String] }) approvals_whitelist_teams: string[];
  @ApiProperty() block_on_rejected_reviews: boolean;
  @ApiProperty() block_on_official_review_requests: boolean;
  @ApiProperty() block_on_outdated_branch: boolean;
  @ApiProperty() dismiss_stale_approvals: boolean;
  @ApiProperty() ignore_stale_approvals: boolean;
  @ApiProperty() require_signed_commits: boolean;
  @ApiProperty() protected_file_patterns: string;
  @ApiProperty() unprotected_file_patterns: string;
  @ApiProperty() block_admin_merge_override: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class MergeUpstreamResponseDto {
  @ApiProperty({ enum: ['up-to-date', 'fast-forward', 'merge'] }) merge_type: string;
}

const UNSIGNED = {
  verified: false,
  reason: 'gpg.error.not_signed_commit',
  signature: '',
  signer: null,
  payload: '',
};

export function presentGiteaBranch(
  branch: BranchView,
  context: { repoHtmlUrl: string; isRepoAdmin: boolean; usernamesByEmail: Map<string, string> },
): GiteaBranchDto {
  const commit = branch.commit;
  const user = (name: string, email: string): GiteaPayloadUserDto => ({
    name,
    email,
    username: context.usernamesByEmail.get(email.toLowerCase()) ?? '',
  });
  const rule = branch.rule;
  return {
    name: branch.name,
    commit: {
      id: branch.commitId,
      message: commit?.message ?? '',
      url: `${context.repoHtmlUrl}/commit/${branch.commitId}`,
      author: user(commit?.authorName ?? '', commit?.authorEmail ?? ''),
      committer: user(commit?.committerName ?? '', commit?.committerEmail ?? ''),
      verification: UNSIGNED,
      timestamp: commit?.authorDate ?? new Date(0).toISOString(),
      added: null,
      removed: null,
      modified: null,
    },
    protected: rule !== null,
    required_approvals: rule ? Number(rule.requiredApprovals) : 0,
    enable_status_check: rule?.enableStatusCheck ?? false,
    status_check_contexts: rule ? rule.statusCheckContexts : [],
    user_can_push: branch.userCanPush,
    user_can_merge: branch.userCanMerge,
    effective_branch_protection_name: rule && context.isRepoAdmin ? rule.ruleName : '',
  };
}

export function presentGiteaBranchProtection(
  rule: BranchProtection,
  names: { users: Map<string, string>; teams: Map<string, string> },
): GiteaBranchProtectionDto {
  const users = (ids: string[]) =>
    ids.map((id) => names.users.get(id)).filter((name): name is string => name !== undefined);
  const teams = (ids: string[]) =>
    ids.map((id) => names.teams.get(id)).filter((name): name is string => name !== undefined);
  return {
    branch_name: isGlobRuleName(rule.ruleName) ? '' : rule.ruleName,
    rule_name: rule.ruleName,
    priority: Number(rule.priority),
    enable_push: rule.enablePush,
    enable_push_whitelist: rule.enablePushWhitelist,
    push_whitelist_usernames: users(rule.pushWhitelistUserIds),
    push_whitelist_teams: teams(rule.pushWhitelistTeamIds),
    push_whitelist_deploy_keys: rule.pushWhitelistDeployKeys,
    enable_force_push: rule.enableForcePush,
    enable_force_push_allowlist: rule.enableForcePushAllowlist,
    force_push_allowlist_usernames: users(rule.forcePushAllowlistUserIds),
    force_push_allowlist_teams: teams(rule.forcePushAllowlistTeamIds),
    force_push_allowlist_deploy_keys: rule.forcePushAllowlistDeployKeys,
    enable_merge_whitelist: rule.enableMergeWhitelist,
    merge_whitelist_usernames: users(rule.mergeWhitelistUserIds),
    merge_whitelist_teams: teams(rule.mergeWhitelistTeamIds),
    enable_status_check: rule.enableStatusCheck,
    status_check_contexts: rule.statusCheckContexts,
    required_approvals: Number(rule.requiredApprovals),
    enable_approvals_whitelist: rule.enableApprovalsWhitelist,
    approvals_whitelist_username: users(rule.approvalsWhitelistUserIds),
    approvals_whitelist_teams: teams(rule.approvalsWhitelistTeamIds),
    block_on_rejected_reviews: rule.blockOnRejectedReviews,
    block_on_official_review_requests: rule.blockOnOfficialReviewRequests,
    block_on_outdated_branch: rule.blockOnOutdatedBranch,
    dismiss_stale_approvals: rule.dismissStaleApprovals,
    ignore_stale_approvals: rule.ignoreStaleApprovals,
    require_signed_commits: rule.requireSignedCommits,
    protected_file_patterns: rule.protectedFilePatterns,
    unprotected_file_patterns: rule.unprotectedFilePatterns,
    block_admin_merge_override: rule.blockAdminMergeOverride,
    created_at: rule.createdAt.toISOString(),
    updated_at: rule.updatedAt.toISOString(),
  };
}

export function repoHtmlUrl(publicUrl: string, ownerName: string, repo: Repository): string {
  return `${publicUrl}${ownerName}/${repo.name}`;
}
