import { Global, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PullRequests } from '../../platform/ports/pull-requests';
import { RepositoryLinks } from '../../platform/ports/repository-links';
import { OwnedResourcesRegistry } from '../identity/owned-resources.registry';
import { PullRequestsPortService } from './issues/pull-requests-port.service';
import { RepositoryLinksService } from './repository-links.service';
import { GiteaMigrationsController } from './controllers/gitea-migrations.controller';
import { MirrorsService } from './mirrors/mirrors.service';
import { loadRepositoriesConfig, REPOSITORIES_CONFIG } from './repositories.config';
import './repositories.error-codes';
import { APP_CONFIG } from '../../platform/config/config.token';
import type { AppConfig } from '../../platform/config/app-config';
import { CollaboratorsService } from './collaborators.service';
import { GitHooksController } from './controllers/git-hooks.controller';
import { GitSmartHttpController } from './controllers/git-smart-http.controller';
import { GiteaCollaboratorsController } from './controllers/gitea-collaborators.controller';
import { GiteaRepositoriesController } from './controllers/gitea-repositories.controller';
import { GiteaTeamRepositoriesController } from './controllers/gitea-team-repositories.controller';
import { GiteaIssuesController } from './controllers/gitea-issues.controller';
import { GiteaPullsController } from './controllers/gitea-pulls.controller';
import { GiteaPullDiffsController, PullDiffPagesController } from './controllers/gitea-pull-diffs.controller';
import { PullDiffsService } from './issues/pull-diffs.service';
import { GiteaReleasesController } from './controllers/gitea-releases.controller';
import { ContentDeletionHooks } from './content-deletion-hooks';
import { AttachmentsService } from './attachments/attachments.service';
import { BranchProtectionsService } from './branches/branch-protections.service';
import { BranchesService } from './branches/branches.service';
import { RefUpdateChecks } from './branches/ref-update-checks.service';
import { GiteaBranchProtectionsController } from './controllers/gitea-branch-protections.controller';
import { GiteaBranchesController } from './controllers/gitea-branches.controller';
import { GiteaContentsController } from './controllers/gitea-contents.controller';
import { GiteaLabelsController } from './controllers/gitea-labels.controller';
import { LabelsService } from './labels/labels.service';
import { LabelsRepository } from './labels/labels.repository';
import { GiteaStatusesController } from './controllers/gitea-statuses.controller';
import { GiteaReviewsController } from './controllers/gitea-reviews.controller';
import { CommitStatusesService } from './statuses/commit-statuses.service';
import { CommitStatusesRepository } from './statuses/commit-statuses.repository';
import { PullReviewsService } from './reviews/pull-reviews.service';
import { PullReviewsRepository } from './reviews/pull-reviews.repository';
import { GiteaCommitsController } from './controllers/gitea-commits.controller';
import { CommitsService } from './commits/commits.service';
import { ContentsService } from './contents/contents.service';
import { AttachmentDownloadsController } from './controllers/attachment-downloads.controller';
import { GiteaIssueAssetsController } from './controllers/gitea-issue-assets.controller';
import { GiteaReleaseAssetsController } from './controllers/gitea-release-assets.controller';
import { IssueAssets } from './issues/issue-assets';
import { IssuesRepository } from './issues/issues.repository';
import { PullsRepository } from './issues/pulls.repository';
import { ReleasesRepository } from './releases/releases.repository';
import { AttachmentsRepository } from './attachments/attachments.repository';
import { RepositoriesRepository } from './repositories.repository';
import { CollaboratorsRepository } from './collaborators.repository';
import { MirrorsRepository } from './mirrors/mirrors.repository';
import { BranchProtectionsRepository } from './branches/branch-protections.repository';
import { IssuesService } from './issues/issues.service';
import { PullsService } from './issues/pulls.service';
import { ReleasesService } from './releases/releases.service';
import { REPOSITORIES_ENTITIES } from './entities';
import { GitStorage } from './git/git-storage.service';
import { PushSessions } from './git/push-sessions.service';
import { HookCallerAssignment } from './git/hook-caller.assignment';
import { SmartHttpService } from './git/smart-http.service';
import { PushHooksService } from './push-hooks.service';
import { PullCheckQueue } from './issues/pull-check-queue';
import { PushReactionsService } from './push-reactions.service';
import { RefChangesService } from './ref-changes.service';
import { RepositoriesService } from './repositories.service';
import { RepositoryPermissions } from './repository-permissions.service';
import { RepoAccessGuard, RepoAssignment } from './repo-access';
import { WEBHOOK_CONTROLLERS, WEBHOOK_PROVIDERS } from './webhooks';
import { GitLfsController } from './lfs/git-lfs.controller';
import { GiteaMilestonesController } from './controllers/gitea-milestones.controller';
import { IssueMetaLoader } from './milestones/issue-meta';
import { MilestonesRepository } from './milestones/milestones.repository';
import { MilestonesService } from './milestones/milestones.service';
import { LfsAccessAssignment } from './lfs/lfs-access.assignment';
import { LfsLinks } from './lfs/lfs-links';
import { LfsRepository } from './lfs/lfs.repository';
import { LfsService } from './lfs/lfs.service';

/**
 * Code hosting core (spec 3, issue 12): repositories as rows plus bare git repositories on disk,
 * Gitea's repository and collaborator routes, git smart HTTP with devplane's push hooks, and the
 * one repository permission function every code-hosting module uses. See README.md.
 */
/** Global for its ports (RepositoryLinks, PullRequests); other modules cannot import its classes (lint layers). */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature(REPOSITORIES_ENTITIES)],
  controllers: [
    GiteaRepositoriesController,
    GiteaCollaboratorsController,
    GiteaTeamRepositoriesController,
    GitSmartHttpController,
    GitLfsController,
    GitHooksController,
    GiteaMigrationsController,
    GiteaBranchProtectionsController,
    GiteaBranchesController,
    GiteaContentsController,
    GiteaLabelsController,
    GiteaMilestonesController,
    GiteaStatusesController,
    GiteaReviewsController,
    GiteaCommitsController,
    GiteaIssueAssetsController,
    GiteaIssuesController,
    GiteaPullDiffsController,
    GiteaPullsController,
    GiteaReleaseAssetsController,
    AttachmentDownloadsController,
    PullDiffPagesController,
    GiteaReleasesController,
    ...WEBHOOK_CONTROLLERS,
  ],
  providers: [
    RepositoriesService,
    PullDiffsService,
    RepositoryPermissions,
    RepoAssignment,
    LfsAccessAssignment,
    LfsLinks,
    LfsRepository,
    LfsService,
    IssueMetaLoader,
    MilestonesRepository,
    MilestonesService,
    HookCallerAssignment,
    RepoAccessGuard,
    CollaboratorsService,
    GitStorage,
    SmartHttpService,
    PushSessions,
    PushHooksService,
    RefChangesService,
    PushReactionsService,
    ContentDeletionHooks,
    IssueAssets,
    IssuesRepository,
    PullsRepository,
    ReleasesRepository,
    AttachmentsRepository,
    RepositoriesRepository,
    CollaboratorsRepository,
    MirrorsRepository,
    BranchProtectionsRepository,
    IssuesService,
    PullsService,
    PullCheckQueue,
    ReleasesService,
    AttachmentsService,
    BranchProtectionsService,
    RefUpdateChecks,
    BranchesService,
    ContentsService,
    LabelsService,
    LabelsRepository,
    CommitStatusesService,
    CommitStatusesRepository,
    PullReviewsService,
    PullReviewsRepository,
    CommitsService,
    RepositoryLinksService,
    PullRequestsPortService,
    MirrorsService,
    ...WEBHOOK_PROVIDERS,
    {
      provide: REPOSITORIES_CONFIG,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loadRepositoriesConfig(config.env),
    },
    { provide: RepositoryLinks, useExisting: RepositoryLinksService },
    { provide: PullRequests, useExisting: PullRequestsPortService },
  ],
  exports: [
    RepositoryLinks,
    PullRequests,
    RepositoriesService,
    RepositoryPermissions,
    ContentDeletionHooks,
    IssueAssets,
    IssuesService,
    PullsService,
    ReleasesService,
  ],
})
export class RepositoriesModule implements OnModuleInit, OnModuleDestroy {
  constructor(
    private readonly owned: OwnedResourcesRegistry,
    private readonly repositories: RepositoriesService,
  ) {}

  /** A user or organization that owns repositories cannot be deleted (422) unless purged with them. */
  onModuleInit(): void {
    this.owned.register({
      kind: 'repositories',
      message: (userId) => `user still has ownership of repositories [uid: ${userId}]`,
      count: (userId, manager) => this.repositories.countOwnedBy(userId, manager),
      purge: async (userId, tx) => {
        for (const repo of await this.repositories.ownedBy(userId, tx.manager)) {
          await this.repositories.deleteInTransaction(repo, tx);
        }
      },
    });
  }

  onModuleDestroy(): void {
    this.owned.unregister('repositories');
  }
}
