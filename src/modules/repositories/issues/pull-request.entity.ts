import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToOne,
  PrimaryColumn,
  type Relation,
} from 'typeorm';
import { User } from '../../identity/entities/user.entity';
import { Repository } from '../entities/repository.entity';
import { Issue } from './issue.entity';

export type PullStatus = 'checking' | 'mergeable' | 'conflict' | 'empty' | 'merged';

/**
 * The pull-request half of an `Issue`: head (this repository or a fork) and base branch, the
 * mergeability last computed with `git merge-tree` for the head and base commits it names, and the
 * merge. The head commits are kept in the base repository under `refs/pull/{index}/head`.
 */
@Entity({ name: 'pull_requests' })
// A push to a repository finds the pull requests it heads (PullCheckQueue, PullsRepository.openTouching).
@Index('IDX_pull_requests_head', ['headRepositoryId', 'headBranch'])
export class PullRequest {
  @PrimaryColumn({ name: 'issue_id', type: 'bigint' })
  issueId: string;

  @OneToOne(() => Issue, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'issue_id' })
  issue: Relation<Issue>;

  /** Null when the head fork was deleted. */
  @Column({ name: 'head_repository_id', type: 'bigint', nullable: true })
  headRepositoryId: string | null;

  @ManyToOne(() => Repository, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'head_repository_id' })
  headRepository: Relation<Repository> | null;

  @Column({ name: 'head_branch', type: 'varchar', length: 255 })
  headBranch: string;

  @Column({ name: 'base_branch', type: 'varchar', length: 255 })
  baseBranch: string;

  @Column({ name: 'head_commit_id', type: 'varchar', length: 64, default: '' })
  headCommitId: string;

  @Column({ name: 'base_commit_id', type: 'varchar', length: 64, default: '' })
  baseCommitId: string;

  @Column({ name: 'merge_base', type: 'varchar', length: 64, default: '' })
  mergeBase: string;

  @Column({ type: 'varchar', length: 16, default: 'checking' })
  status: PullStatus;

  @Column({ name: 'has_merged', type: 'boolean', default: false })
  hasMerged: boolean;

  @Column({ name: 'merged_at', type: 'timestamptz', nullable: true })
  mergedAt: Date | null;

  @Column({ name: 'merged_by_id', type: 'bigint', nullable: true })
  mergedById: string | null;

  @ManyToOne(() => User, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'merged_by_id' })
  mergedBy: Relation<User> | null;

  @Column({ name: 'merged_commit_id', type: 'varchar', length: 64, nullable: true })
  mergedCommitId: string | null;

  /** Lines added and deleted, files changed and commits from the merge base to the head; null until computed. */
  @Column({ type: 'integer', nullable: true })
  additions: number | null;

  @Column({ type: 'integer', nullable: true })
  deletions: number | null;

  @Column({ name: 'changed_files', type: 'integer', nullable: true })
  changedFiles: number | null;

  @Column({ name: 'commits_count', type: 'integer', nullable: true })
  commitsCount: number | null;

  @Column({ name: 'allow_maintainer_edit', type: 'boolean', default: false })
  allowMaintainerEdit: boolean;
}
