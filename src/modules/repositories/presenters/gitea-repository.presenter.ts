import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { User } from '../../identity/entities/user.entity';
import { GiteaUserDto, presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import type { Repository } from '../entities/repository.entity';
import { type AccessMode, atLeast } from '../repository-permissions.service';

export class GiteaPermissionDto {
  @ApiProperty() admin: boolean;
  @ApiProperty() push: boolean;
  @ApiProperty() pull: boolean;
}

/** Gitea's InternalTracker: the built-in issue tracker's settings (Gitea's defaults; time tracking is not served). */
export class GiteaInternalTrackerDto {
  @ApiProperty() enable_time_tracker: boolean;
  @ApiProperty() allow_only_contributors_to_track_time: boolean;
  @ApiProperty() enable_issue_dependencies: boolean;
}

/** Gitea's Repository (structs.Repository, reference §1.9). */
export class GiteaRepositoryDto {
  @ApiProperty() id: number;
  @ApiProperty({ type: GiteaUserDto }) owner: GiteaUserDto;
  @ApiProperty() name: string;
  @ApiProperty() full_name: string;
  @ApiProperty() description: string;
  @ApiProperty() empty: boolean;
  @ApiProperty() private: boolean;
  @ApiProperty() fork: boolean;
  @ApiProperty() template: boolean;
  @ApiPropertyOptional({ type: () => GiteaRepositoryDto }) parent?: GiteaRepositoryDto;
  @ApiProperty() mirror: boolean;
  @ApiProperty() size: number;
  @ApiProperty() language: string;
  @ApiProperty() languages_url: string;
  @ApiProperty() html_url: string;
  @ApiProperty() url: string;
  @ApiProperty() link: string;
  @ApiProperty() ssh_url: string;
  @ApiProperty() clone_url: string;
  @ApiProperty() original_url: string;
  @ApiProperty() website: string;
  @ApiProperty() stars_count: number;
  @ApiProperty() forks_count: number;
  @ApiProperty() watchers_count: number;
  @ApiProperty() open_issues_count: number;
  @ApiProperty() open_pr_counter: number;
  @ApiProperty() release_counter: number;
  @ApiProperty() default_branch: string;
  @ApiProperty() archived: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ format: 'date-time' }) archived_at: string;
  @ApiPropertyOptional({ type: GiteaPermissionDto }) permissions?: GiteaPermissionDto;
  @ApiProperty() has_code: boolean;
  @ApiProperty() has_issues: boolean;
  @ApiPropertyOptional({ type: () => GiteaInternalTrackerDto }) internal_tracker?: GiteaInternalTrackerDto;
  @ApiProperty() default_target_branch: string;
  @ApiProperty() has_wiki: boolean;
  @ApiProperty() has_pull_requests: boolean;
  @ApiProperty() has_projects: boolean;
  @ApiProperty() projects_mode: string;
  @ApiProperty() has_releases: boolean;
  @ApiProperty() has_packages: boolean;
  @ApiProperty() has_actions: boolean;
  @ApiProperty() ignore_whitespace_conflicts: boolean;
  @ApiProperty() allow_merge_commits: boolean;
  @ApiProperty() allow_rebase: boolean;
  @ApiProperty() allow_rebase_explicit: boolean;
  @ApiProperty() allow_squash_merge: boolean;
  @ApiProperty() allow_fast_forward_only_merge: boolean;
  @ApiProperty() allow_rebase_update: boolean;
  @ApiProperty() allow_manual_merge: boolean;
  @ApiProperty() autodetect_manual_merge: boolean;
  @ApiProperty() default_delete_branch_after_merge: boolean;
  @ApiProperty() default_merge_style: string;
  @ApiProperty() default_allow_maintainer_edit: boolean;
  @ApiProperty() avatar_url: string;
  @ApiProperty() internal: boolean;
  @ApiProperty() mirror_interval: string;
  @ApiProperty({ enum: ['sha1', 'sha256'] }) object_format_name: string;
  @ApiProperty({ format: 'date-time' }) mirror_updated: string;
  @ApiProperty({ type: [String] }) topics: string[];
  @ApiProperty({ type: [String] }) licenses: string[];
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

/** convert.ToRepo: `permissions` for every caller, anonymous included (the caller's mode on this repository). */
export function presentGiteaRepository(
  repo: Repository,
  owner: User,
  viewer: User | undefined,
  mode: AccessMode,
  publicUrl: string,
  parent?: GiteaRepositoryDto,
): GiteaRepositoryDto {
  const path = `${encodeURIComponent(owner.name)}/${encodeURIComponent(repo.name)}`;
  const host = new URL(publicUrl).hostname;
  return {
    id: Number(repo.id),
    owner: presentGiteaUser(owner, viewer, publicUrl),
    name: repo.name,
    full_name: `${owner.name}/${repo.name}`,
    description: repo.description,
    empty: repo.isEmpty,
    private: repo.isPrivate,
    fork: repo.forkId !== null,
    template: false,
    ...(parent ? { parent } : {}),
    mirror: repo.isMirror,
    size: Number(repo.sizeKib),
    language: '',
    languages_url: `${publicUrl}api/v1/repos/${path}/languages`,
    html_url: `${publicUrl}${path}`,
    url: `${publicUrl}api/v1/repos/${path}`,
    link: '',
    ssh_url: `git@${host}:${path}.git`,
    clone_url: `${publicUrl}${path}.git`,
    original_url: '',
    website: repo.website,
    stars_count: 0,
    forks_count: repo.numForks ?? 0,
    watchers_count: 0,
    open_issues_count: repo.numOpenIssues ?? 0,
    open_pr_counter: repo.numOpenPulls ?? 0,
    release_counter: repo.numReleases ?? 0,
    default_branch: repo.defaultBranch,
    archived: repo.isArchived,
    created_at: repo.createdAt.toISOString(),
    updated_at: repo.updatedAt.toISOString(),
    archived_at: repo.archivedAt ? repo.archivedAt.toISOString() : new Date(0).toISOString(),
    permissions: {
      admin: atLeast(mode, 'admin'),
      push: atLeast(mode, 'write'),
      pull: atLeast(mode, 'read'),
    },
    has_code: true,
    has_issues: true,
    // Present because the issue unit is on, as in Gitea's convert.ToRepo.
    internal_tracker: {
      enable_time_tracker: true,
      allow_only_contributors_to_track_time: true,
      enable_issue_dependencies: true,
    },
    default_target_branch: repo.defaultBranch,
    has_wiki: false,
    has_pull_requests: true,
    has_projects: false,
    projects_mode: 'all',
    has_releases: true,
    has_packages: true,
    has_actions: false,
    ignore_whitespace_conflicts: false,
    allow_merge_commits: true,
    allow_rebase: true,
    allow_rebase_explicit: true,
    allow_squash_merge: true,
    allow_fast_forward_only_merge: true,
    allow_rebase_update: true,
    allow_manual_merge: false,
    autodetect_manual_merge: false,
    default_delete_branch_after_merge: false,
    default_merge_style: 'merge',
    default_allow_maintainer_edit: false,
    avatar_url: '',
    internal: false,
    mirror_interval: '',
    object_format_name: 'sha1',
    mirror_updated: ZERO_TIME,
    topics: [],
    licenses: [],
  };
}
