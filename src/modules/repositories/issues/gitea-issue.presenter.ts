import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { User } from '../../identity/entities/user.entity';
import { GiteaUserDto, presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import type { Repository } from '../entities/repository.entity';
import { GiteaRepositoryDto } from '../presenters/gitea-repository.presenter';
import type { Comment } from './comment.entity';
import type { Issue } from './issue.entity';
import type { PullRequest } from './pull-request.entity';
import { GiteaLabelDto } from '../labels/gitea-label.presenter';
import { GiteaMilestoneDto } from '../milestones/gitea-milestone.presenter';
import type { IssueMeta } from '../milestones/issue-meta';

/** What a presenter needs to build URLs and user JSON. */
export interface PresentContext {
  repo: Repository;
  owner: User;
  viewer: User | undefined;
  publicUrl: string;
}

/** Gitea's "Ghost": the poster of an issue or comment whose account was deleted. */
export function ghostUser(): User {
  return Object.assign(new User(), {
    id: '-1',
    name: 'Ghost',
    lowerName: 'ghost',
    loginName: '',
    loginSource: '0',
    fullName: '',
    email: '',
    keepEmailPrivate: true,
    avatarUrl: '',
    language: '',
    isAdmin: false,
    lastLoginAt: null,
    createdAt: new Date(0),
    restricted: false,
    status: 'active',
    prohibitLogin: false,
    location: '',
    website: '',
    description: '',
    visibility: 'public',
  });
}

export function presentPoster(user: User | null, context: PresentContext): GiteaUserDto {
  return presentGiteaUser(user ?? ghostUser(), context.viewer, context.publicUrl);
}

function repoPath(context: PresentContext): string {
  return `${encodeURIComponent(context.owner.name)}/${encodeURIComponent(context.repo.name)}`;
}

/** An attachment as Gitea's `Attachment` (filled by the attachments of issue 14). */
export class GiteaAssetDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty() size: number;
  @ApiProperty() download_count: number;
  @ApiProperty() created_at: string;
  @ApiProperty() uuid: string;
  @ApiProperty() browser_download_url: string;
}

export class GiteaRepositoryMetaDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty() owner: string;
  @ApiProperty() full_name: string;
}

export class GiteaPullRequestMetaDto {
  @ApiProperty() merged: boolean;
  @ApiProperty({ nullable: true, type: String }) merged_at: string | null;
  @ApiProperty() draft: boolean;
  @ApiProperty() html_url: string;
}

/** Gitea's `Issue` JSON (assignees are not modelled: always empty). */
export class GiteaIssueDto {
  @ApiProperty() id: number;
  @ApiProperty() url: string;
  @ApiProperty() html_url: string;
  @ApiProperty() number: number;
  @ApiProperty({ type: GiteaUserDto }) user: GiteaUserDto;
  @ApiProperty() original_author: string;
  @ApiProperty() original_author_id: number;
  @ApiProperty() title: string;
  @ApiProperty() body: string;
  @ApiProperty() ref: string;
  @ApiProperty({ type: [GiteaAssetDto] }) assets: GiteaAssetDto[];
  @ApiProperty({ type: [GiteaLabelDto] }) labels: GiteaLabelDto[];
  @ApiProperty({ nullable: true, type: GiteaMilestoneDto }) milestone: GiteaMilestoneDto | null;
  @ApiProperty({ nullable: true, type: Object }) assignee: null;
  @ApiProperty({ nullable: true, type: [Object] }) assignees: null;
  @ApiProperty({ enum: ['open', 'closed'] }) state: 'open' | 'closed';
  @ApiProperty() is_locked: boolean;
  @ApiProperty() comments: number;
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
  @ApiProperty({ nullable: true, type: String }) closed_at: string | null;
  @ApiProperty({ nullable: true, type: String }) due_date: null;
  @ApiPropertyOptional({ type: GiteaPullRequestMetaDto, nullable: true })
  pull_request: GiteaPullRequestMetaDto | null;
  @ApiProperty({ type: GiteaRepositoryMetaDto }) repository: GiteaRepositoryMetaDto;
  @ApiProperty() pin_order: number;
  /** Seconds; devplane has no time tracking, so 0 as in Gitea for an issue without an estimate. */
  @ApiProperty() time_estimate: number;
}

export function presentGiteaIssue(
  issue: Issue,
  context: PresentContext,
  assets: GiteaAssetDto[] = [],
  pull?: PullRequest | null,
  meta?: IssueMeta,
): GiteaIssueDto {
  const path = repoPath(context);
  const kind = issue.isPull ? 'pulls' : 'issues';
  return {
    id: Number(issue.id),
    url: `${context.publicUrl}api/v1/repos/${path}/issues/${issue.index}`,
    html_url: `${context.publicUrl}${path}/${kind}/${issue.index}`,
    number: Number(issue.index),
    user: presentPoster(issue.poster, context),
    original_author: '',
    original_author_id: 0,
    title: issue.title,
    body: issue.body,
    ref: '',
    assets,
    labels: meta?.labels ?? [],
    milestone: meta?.milestone ?? null,
    assignee: null,
    assignees: null,
    state: issue.isClosed ? 'closed' : 'open',
    is_locked: issue.isLocked,
    comments: issue.numComments,
    created_at: issue.createdAt.toISOString(),
    updated_at: issue.updatedAt.toISOString(),
    closed_at: issue.closedAt ? issue.closedAt.toISOString() : null,
    due_date: null,
    pull_request: issue.isPull
      ? {
          merged: pull?.hasMerged ?? false,
          merged_at: pull?.mergedAt ? pull.mergedAt.toISOString() : null,
          draft: false,
          html_url: `${context.publicUrl}${path}/pulls/${issue.index}`,
        }
      : null,
    repository: {
      id: Number(context.repo.id),
      name: context.repo.name,
      owner: context.owner.name,
      full_name: `${context.owner.name}/${context.repo.name}`,
    },
    pin_order: 0,
    time_estimate: 0,
  };
}

/** Gitea's `Comment` JSON. */
export class GiteaCommentDto {
  @ApiProperty() id: number;
  @ApiProperty() html_url: string;
  @ApiProperty() pull_request_url: string;
  @ApiProperty() issue_url: string;
  @ApiProperty({ type: GiteaUserDto }) user: GiteaUserDto;
  @ApiProperty() original_author: string;
  @ApiProperty() original_author_id: number;
  @ApiProperty() body: string;
  @ApiProperty({ type: [GiteaAssetDto] }) assets: GiteaAssetDto[];
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
}

export function presentGiteaComment(
  comment: Comment,
  issue: Issue,
  context: PresentContext,
  assets: GiteaAssetDto[] = [],
): GiteaCommentDto {
  const path = repoPath(context);
  const issuePage = `${context.publicUrl}${path}/${issue.isPull ? 'pulls' : 'issues'}/${issue.index}`;
  return {
    id: Number(comment.id),
    html_url: `${issuePage}#issuecomment-${comment.id}`,
    pull_request_url: issue.isPull ? issuePage : '',
    issue_url: issue.isPull ? '' : issuePage,
    user: presentPoster(comment.poster, context),
    original_author: '',
    original_author_id: 0,
    body: comment.body,
    assets,
    created_at: comment.createdAt.toISOString(),
    updated_at: comment.updatedAt.toISOString(),
  };
}

export class GiteaPrBranchDto {
  @ApiProperty() label: string;
  @ApiProperty() ref: string;
  @ApiProperty() sha: string;
  @ApiProperty() repo_id: number;
  @ApiPropertyOptional({ type: GiteaRepositoryDto, nullable: true }) repo: GiteaRepositoryDto | null;
}

/** Gitea's `PullRequest` JSON. */
export class GiteaPullRequestDto {
  @ApiProperty() id: number;
  @ApiProperty() url: string;
  @ApiProperty() number: number;
  @ApiProperty({ type: GiteaUserDto }) user: GiteaUserDto;
  @ApiProperty() title: string;
  @ApiProperty() body: string;
  @ApiProperty({ type: [GiteaLabelDto] }) labels: GiteaLabelDto[];
  @ApiProperty({ nullable: true, type: GiteaMilestoneDto }) milestone: GiteaMilestoneDto | null;
  @ApiProperty({ nullable: true, type: Object }) assignee: null;
  @ApiProperty({ nullable: true, type: [Object] }) assignees: null;
  /** Gitea answers `[]` rather than null (GitHub's shape); devplane has no review requests. */
  @ApiProperty({ type: [Object] }) requested_reviewers: unknown[];
  @ApiProperty({ type: [Object] }) requested_reviewers_teams: unknown[];
  @ApiProperty({ enum: ['open', 'closed'] }) state: 'open' | 'closed';
  @ApiProperty() draft: boolean;
  @ApiProperty() is_locked: boolean;
  @ApiProperty() comments: number;
  @ApiProperty() html_url: string;
  @ApiProperty() diff_url: string;
  @ApiProperty() patch_url: string;
  @ApiProperty() mergeable: boolean;
  @ApiProperty() merged: boolean;
  @ApiProperty({ nullable: true, type: String }) merged_at: string | null;
  @ApiProperty({ nullable: true, type: String }) merge_commit_sha: string | null;
  @ApiProperty({ nullable: true, type: GiteaUserDto }) merged_by: GiteaUserDto | null;
  @ApiProperty() allow_maintainer_edit: boolean;
  @ApiPropertyOptional({ description: 'lines added from the merge base to the head' }) additions?: number;
  @ApiPropertyOptional({ description: 'lines deleted from the merge base to the head' }) deletions?: number;
  @ApiPropertyOptional() changed_files?: number;
  @ApiProperty({ type: GiteaPrBranchDto }) base: GiteaPrBranchDto;
  @ApiProperty({ type: GiteaPrBranchDto }) head: GiteaPrBranchDto;
  @ApiProperty() merge_base: string;
  @ApiProperty({ nullable: true, type: String }) due_date: null;
  @ApiProperty() created_at: string;
  @ApiProperty() updated_at: string;
  @ApiProperty({ nullable: true, type: String }) closed_at: string | null;
  @ApiProperty() pin_order: number;
}

export interface PullPresentation {
  issue: Issue;
  pull: PullRequest;
  base: GiteaRepositoryDto;
  /** Null when the head fork is gone. */
  head: { repo: GiteaRepositoryDto; ownerName: string } | null;
  /** Labels and milestone (IssueMetaLoader); none when left out. */
  meta?: IssueMeta;
}

export function presentGiteaPull(input: PullPresentation, context: PresentContext): GiteaPullRequestDto {
  const { issue, pull } = input;
  const path = repoPath(context);
  const page = `${context.publicUrl}${path}/pulls/${issue.index}`;
  const sameRepo = pull.headRepositoryId === context.repo.id;
  return {
    id: Number(issue.id),
    url: page,
    number: Number(issue.index),
    user: presentPoster(issue.poster, context),
    title: issue.title,
    body: issue.body,
    labels: input.meta?.labels ?? [],
    milestone: input.meta?.milestone ?? null,
    assignee: null,
    assignees: null,
    requested_reviewers: [],
    requested_reviewers_teams: [],
    state: issue.isClosed ? 'closed' : 'open',
    draft: false,
    is_locked: issue.isLocked,
    comments: issue.numComments,
    html_url: page,
    diff_url: `${page}.diff`,
    patch_url: `${page}.patch`,
    mergeable: pull.status === 'mergeable' && !pull.hasMerged && !issue.isClosed,
    merged: pull.hasMerged,
    merged_at: pull.mergedAt ? pull.mergedAt.toISOString() : null,
    merge_commit_sha: pull.mergedCommitId,
    merged_by: pull.hasMerged ? presentPoster(pull.mergedBy, context) : null,
    allow_maintainer_edit: pull.allowMaintainerEdit,
    ...(pull.additions === null
      ? {}
      : { additions: pull.additions, deletions: pull.deletions ?? 0, changed_files: pull.changedFiles ?? 0 }),
    base: {
      label: pull.baseBranch,
      ref: pull.baseBranch,
      sha: pull.baseCommitId,
      repo_id: Number(context.repo.id),
      repo: input.base,
    },
    head: {
      label: sameRepo || !input.head ? pull.headBranch : `${input.head.ownerName}:${pull.headBranch}`,
      ref: pull.headBranch,
      sha: pull.headCommitId,
      repo_id: input.head ? Number(pull.headRepositoryId) : 0,
      repo: input.head?.repo ?? null,
    },
    merge_base: pull.mergeBase,
    due_date: null,
    created_at: issue.createdAt.toISOString(),
    updated_at: issue.updatedAt.toISOString(),
    closed_at: issue.closedAt ? issue.closedAt.toISOString() : null,
    pin_order: 0,
  };
}
