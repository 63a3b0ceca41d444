import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
  UpdateDateColumn,
} from 'typeorm';
import { Repository } from '../entities/repository.entity';

/**
 * A branch protection rule of a repository (Gitea's ProtectedBranch): a plain branch name or a glob,
 * a priority (lower first), and the switches enforced on every ref update. User and team lists hold
 * ids (names are resolved on write and presented from the ids, so renames follow).
 */
@Entity({ name: 'branch_protections' })
@Index('IDX_branch_protections_repository_rule', ['repositoryId', 'ruleName'], { unique: true })
export class BranchProtection {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;

  @Column({ name: 'rule_name', type: 'varchar', length: 255 })
  ruleName: string;

  @Column({ type: 'bigint', default: 0 })
  priority: string;

  @Column({ name: 'enable_push', type: 'boolean', default: false })
  enablePush: boolean;

  @Column({ name: 'enable_push_whitelist', type: 'boolean', default: false })
  enablePushWhitelist: boolean;

  @Column({ name: 'push_whitelist_user_ids', type: 'jsonb', default: () => "'[]'" })
  pushWhitelistUserIds: string[];

  @Column({ name: 'push_whitelist_team_ids', type: 'jsonb', default: () => "'[]'" })
  pushWhitelistTeamIds: string[];

  @Column({ name: 'push_whitelist_deploy_keys', type: 'boolean', default: false })
  pushWhitelistDeployKeys: boolean;

  @Column({ name: 'enable_force_push', type: 'boolean', default: false })
  enableForcePush: boolean;

  @Column({ name: 'enable_force_push_allowlist', type: 'boolean', default: false })
  enableForcePushAllowlist: boolean;

  @Column({ name: 'force_push_allowlist_user_ids', type: 'jsonb', default: () => "'[]'" })
  forcePushAllowlistUserIds: string[];

  @Column({ name: 'force_push_allowlist_team_ids', type: 'jsonb', default: () => "'[]'" })
  forcePushAllowlistTeamIds: string[];

  @Column({ name: 'force_push_allowlist_deploy_keys', type: 'boolean', default: false })
  forcePushAllowlistDeployKeys: boolean;

  @Column({ name: 'enable_merge_whitelist', type: 'boolean', default: false })
  enableMergeWhitelist: boolean;

  @Column({ name: 'merge_whitelist_user_ids', type: 'jsonb', default: () => "'[]'" })
  mergeWhitelistUserIds: string[];

  @Column({ name: 'merge_whitelist_team_ids', type: 'jsonb', default: () => "'[]'" })
  mergeWhitelistTeamIds: string[];

  @Column({ name: 'enable_status_check', type: 'boolean', default: false })
  enableStatusCheck: boolean;

  /** null until set (Gitea presents `null` then). */
  @Column({ name: 'status_check_contexts', type: 'jsonb', nullable: true })
  statusCheckContexts: string[] | null;

  @Column({ name: 'required_approvals', type: 'bigint', default: 0 })
  requiredApprovals: string;

  @Column({ name: 'enable_approvals_whitelist', type: 'boolean', default: false })
  enableApprovalsWhitelist: boolean;

  @Column({ name: 'approvals_whitelist_user_ids', type: 'jsonb', default: () => "'[]'" })
  approvalsWhitelistUserIds: string[];

  @Column({ name: 'approvals_whitelist_team_ids', type: 'jsonb', default: () => "'[]'" })
  approvalsWhitelistTeamIds: string[];

  @Column({ name: 'block_on_rejected_reviews', type: 'boolean', default: false })
  blockOnRejectedReviews: boolean;

  @Column({ name: 'block_on_official_review_requests', type: 'boolean', default: false })
  blockOnOfficialReviewRequests: boolean;

  @Column({ name: 'block_on_outdated_branch', type: 'boolean', default: false })
  blockOnOutdatedBranch: boolean;

  @Column({ name: 'dismiss_stale_approvals', type: 'boolean', default: false })
  dismissStaleApprovals: boolean;

  @Column({ name: 'ignore_stale_approvals', type: 'boolean', default: false })
  ignoreStaleApprovals: boolean;

  @Column({ name: 'require_signed_commits', type: 'boolean', default: false })
  requireSignedCommits: boolean;

  /** Semicolon-separated globs. */
  @Column({ name: 'protected_file_patterns', type: 'text', default: '' })
  protectedFilePatterns: string;

  @Column({ name: 'unprotected_file_patterns', type: 'text', default: '' })
  unprotectedFilePatterns: string;

  @Column({ name: 'block_admin_merge_override', type: 'boolean', default: false })
  blockAdminMergeOverride: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
