import { Body, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import {
  CreatePullRequestOptionDto,
  EditPullRequestOptionDto,
  MergePullRequestOptionDto,
  PullListQueryDto,
} from '../dto/issues.dto';
import { GiteaPullRequestDto, presentGiteaPull } from '../issues/gitea-issue.presenter';
import { type Pull, PullsService } from '../issues/pulls.service';
import { presentGiteaRepository } from '../presenters/gitea-repository.presenter';
import { RepositoriesService } from '../repositories.service';
import { type IssueMeta, IssueMetaLoader } from '../milestones/issue-meta';
import { RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

type PresentedHead = { repo: ReturnType<typeof presentGiteaRepository>; ownerName: string };
/** What a page of pulls presents once: the base repository, each head repository. */
interface PagePresentations {
  base?: ReturnType<typeof presentGiteaRepository>;
  heads: Map<string, Promise<PresentedHead>>;
}

const ERROR = { description: 'Gitea error `{message, url}`' };
type PullParams = { owner: string; repo: string; index: string };

/** Gitea's pull request routes (`/repos/{owner}/{repo}/pulls...`), token scope `repository`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/pulls')
export class GiteaPullsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly pulls: PullsService,
    private readonly meta: IssueMetaLoader,
  ) {}

  /**
   * One pull in Gitea's shape. On a page (`page` given), the base repository is presented once and each head
   * repository once (its permission computed once): a page of 30 pulls of one repository presents 1
   * repository, not 60.
   */
  private async present(
    found: Pull,
    context: RepositoryContext,
    principal: Principal | undefined,
    page?: PagePresentations,
    meta?: IssueMeta,
  ): Promise<GiteaPullRequestDto> {
    const viewer = principal?.user;
    const publicUrl = this.repositories.publicUrl;
    const base =
      page?.base ?? presentGiteaRepository(context.repo, context.owner, viewer, context.mode, publicUrl);
    if (page) page.base = base;
    const headRepo = found.pull.headRepository;
    let head: PresentedHead | null = null;
    if (headRepo) {
      let pending = page?.heads.get(headRepo.id);
      if (!pending) {
        pending = (async () => {
          if (headRepo.id === context.repo.id) return { repo: base, ownerName: headRepo.owner.name };
          const mode = await this.permissions.modeOf(viewer ?? null, headRepo);
          return {
            repo: presentGiteaRepository(headRepo, headRepo.owner, viewer, mode, publicUrl),
            ownerName: headRepo.owner.name,
          };
        })();
        page?.heads.set(headRepo.id, pending);
      }
      head = await pending;
    }
    return presentGiteaPull(
      {
        ...found,
        base,
        head,
        meta: meta ?? (await this.meta.ofIssue(context.repo, context.owner, publicUrl, found.issue)),
      },
      { repo: context.repo, owner: context.owner, viewer, publicUrl },
    );
  }

  @Get()
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "List a repository's pull requests" })
  @ApiOkResponse({ type: [GiteaPullRequestDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async list(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Query() query: PullListQueryDto,
  ): Promise<GiteaPage<GiteaPullRequestDto> | undefined> {
    const paging = giteaPaging(query);
    const state = query.state === 'closed' || query.state === 'all' ? query.state : 'open';
    const filter = await this.meta.listFilter(
      context.repo,
      query.labels,
      [query.milestones ?? [], query.milestone && query.milestone !== '0' ? query.milestone : []].flat(),
    );
    if (!filter) return new GiteaPage<GiteaPullRequestDto>([], 0, paging);
    const { items, total } = await this.pulls.list(context.repo, { state, ...filter, ...paging });
    // Labels and milestones of the page in a fixed number of queries.
    const metas = await this.meta.ofIssues(
      context.repo,
      context.owner,
      this.repositories.publicUrl,
      items.map((found) => found.issue),
    );
    const presented = [];
    const page: PagePresentations = { heads: new Map() };
    for (const found of items)
      presented.push(await this.present(found, context, principal, page, metas.get(found.issue.id)));
    return new GiteaPage(presented, total, paging);
  }

  @Post()
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Create a pull request (head: `branch`, `owner:branch` or `owner/repo:branch`)' })
  @ApiCreatedResponse({ type: GiteaPullRequestDto })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('read')
  async create(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreatePullRequestOptionDto,
  ): Promise<GiteaPullRequestDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const prepared = await this.meta.prepare(context.repo, context.mode, {
      labels: body.labels,
      milestone: body.milestone,
    });
    const created = await this.pulls.create(context.repo, principal.user, {
      head: body.head,
      base: body.base,
      title: body.title,
      body: body.body,
    });
    await this.meta.apply(context.repo, created.issue, prepared);
    return this.present(created, context, principal);
  }

  @Get(':index')
  @Public()
  @ApiOperation({ summary: 'Get a pull request' })
  @ApiOkResponse({ type: GiteaPullRequestDto })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async get(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: PullParams,
  ): Promise<GiteaPullRequestDto | undefined> {
    return this.present(await this.pulls.require(context.repo, params.index), context, principal);
  }

  @Patch(':index')
  @HttpCode(201)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Edit a pull request: title, body, state, base (answers 201 as Gitea does)' })
  @ApiCreatedResponse({ type: GiteaPullRequestDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('read')
  async edit(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: PullParams,
    @Body() body: EditPullRequestOptionDto,
  ): Promise<GiteaPullRequestDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const found = await this.pulls.require(context.repo, params.index);
    const prepared = await this.meta.prepare(context.repo, context.mode, {
      labels: body.labels,
      milestone: body.milestone,
    });
    const edited = await this.pulls.edit(context.repo, found, principal.user, context.mode, body);
    await this.meta.apply(context.repo, edited.issue, prepared);
    return this.present(edited, context, principal);
  }

  @Get(':index/merge')
  @HttpCode(204)
  @Public()
  @ApiOperation({ summary: 'Check whether a pull request was merged (204 merged, 404 not)' })
  @ApiNoContentResponse({ description: 'merged' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async isMerged(@Repo() context: RepositoryContext, @Param() params: PullParams): Promise<void> {
    if (!(await this.pulls.isMerged(context.repo, params.index)))
      throw new NotFoundError('pull request has not been merged', { code: 'PULL_NOT_MERGED' });
  }

  @Post(':index/merge')
  @HttpCode(200)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Merge a pull request (Do: merge, rebase, rebase-merge, squash, fast-forward-only)',
  })
  @ApiOkResponse({ description: 'merged' })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 405, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('read')
  async merge(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: PullParams,
    @Body() body: MergePullRequestOptionDto,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const found = await this.pulls.require(context.repo, params.index);
    await this.pulls.merge(context.repo, found, principal.user, context.mode, {
      style: body.Do,
      title: body.MergeTitleField,
      message: body.MergeMessageField,
      headCommitId: body.head_commit_id,
      deleteBranchAfterMerge: body.delete_branch_after_merge,
    });
  }
}
