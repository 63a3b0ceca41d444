import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
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
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import {
  CreateIssueCommentOptionDto,
  CreateIssueOptionDto,
  EditIssueCommentOptionDto,
  EditIssueOptionDto,
  IssueListQueryDto,
} from '../dto/issues.dto';
import { GiteaListQueryDto } from '../dto/repositories.dto';
import { IssueAssets } from '../issues/issue-assets';
import { IssueMetaLoader } from '../milestones/issue-meta';
import {
  GiteaCommentDto,
  GiteaIssueDto,
  presentGiteaComment,
  presentGiteaIssue,
  type PresentContext,
} from '../issues/gitea-issue.presenter';
import type { Issue } from '../issues/issue.entity';
import { IssuesService } from '../issues/issues.service';
import { PullsService } from '../issues/pulls.service';
import { RepositoriesService } from '../repositories.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type IssueParams = { owner: string; repo: string; index: string };
type CommentParams = { owner: string; repo: string; id: string };

function issueState(value: string | undefined): 'open' | 'closed' | 'all' {
  return value === 'closed' || value === 'all' ? value : 'open';
}

/** Gitea's issue and comment routes (`/repos/{owner}/{repo}/issues...`), token scope `issue`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/issues')
export class GiteaIssuesController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly issues: IssuesService,
    private readonly pulls: PullsService,
    private readonly assets: IssueAssets,
    private readonly meta: IssueMetaLoader,
  ) {}

  private presentContext(context: RepositoryContext, principal: Principal | undefined): PresentContext {
    return {
      repo: context.repo,
      owner: context.owner,
      viewer: principal?.user,
      publicUrl: this.repositories.publicUrl,
    };
  }

  private async presentIssue(
    issue: Issue,
    context: RepositoryContext,
    principal: Principal | undefined,
  ): Promise<GiteaIssueDto> {
    const pull = issue.isPull ? (await this.pulls.find(context.repo, issue.index))?.pull : null;
    return presentGiteaIssue(
      issue,
      this.presentContext(context, principal),
      await this.assets.ofIssue(issue),
      pull,
      await this.meta.ofIssue(context.repo, context.owner, this.repositories.publicUrl, issue),
    );
  }

  @Get()
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "List a repository's issues (and pull requests unless `type=issues`)" })
  @ApiOkResponse({ type: [GiteaIssueDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async list(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Query() query: IssueListQueryDto,
  ): Promise<GiteaPage<GiteaIssueDto> | undefined> {
    const paging = giteaPaging(query);
    const type = query.type === 'issues' || query.type === 'pulls' ? query.type : undefined;
    const filter = await this.meta.listFilter(context.repo, query.labels, query.milestones);
    if (!filter) return new GiteaPage<GiteaIssueDto>([], 0, paging);
    const { items, total } = await this.issues.list(context.repo, {
      state: issueState(query.state),
      type,
      keyword: query.q?.trim() || undefined,
      ...filter,
      ...paging,
    });
    // Per page, not per issue: the pull rows (stored state, no git) and the assets in one query each.
    const pulls = new Map(
      (await this.pulls.ofIssues(context.repo, items)).map((found) => [found.issue.id, found.pull]),
    );
    const assets = await this.assets.ofIssues(items);
    const metas = await this.meta.ofIssues(context.repo, context.owner, this.repositories.publicUrl, items);
    const present = this.presentContext(context, principal);
    const presented = items.map((issue) =>
      presentGiteaIssue(
        issue,
        present,
        assets.get(issue.id) ?? [],
        pulls.get(issue.id) ?? null,
        metas.get(issue.id),
      ),
    );
    return new GiteaPage(presented, total, paging);
  }

  @Post()
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Create an issue' })
  @ApiCreatedResponse({ type: GiteaIssueDto })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async create(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateIssueOptionDto,
  ): Promise<GiteaIssueDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const prepared = await this.meta.prepare(context.repo, context.mode, {
      labels: body.labels,
      milestone: body.milestone,
    });
    const issue = await this.issues.create(context.repo, principal.user, {
      title: body.title,
      body: body.body,
      closed: body.closed,
    });
    await this.meta.apply(context.repo, issue, prepared);
    return this.presentIssue(issue, context, principal);
  }

  @Get('comments')
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "List all comments of a repository's issues" })
  @ApiOkResponse({ type: [GiteaCommentDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async listRepositoryComments(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Query() query: GiteaListQueryDto,
  ): Promise<GiteaPage<GiteaCommentDto> | undefined> {
    const paging = giteaPaging(query);
    const { items, total } = await this.issues.listRepositoryComments(context.repo, paging);
    const presented = [];
    for (const { comment, issue } of items)
      presented.push(
        presentGiteaComment(
          comment,
          issue,
          this.presentContext(context, principal),
          await this.assets.ofComment(comment),
        ),
      );
    return new GiteaPage(presented, total, paging);
  }

  @Get('comments/:id')
  @Public()
  @ApiOperation({ summary: 'Get a comment' })
  @ApiOkResponse({ type: GiteaCommentDto })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async getComment(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: CommentParams,
  ): Promise<GiteaCommentDto | undefined> {
    const { comment, issue } = await this.issues.requireComment(context.repo, params.id);
    return presentGiteaComment(
      comment,
      issue,
      this.presentContext(context, principal),
      await this.assets.ofComment(comment),
    );
  }

  @Patch('comments/:id')
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Edit a comment (its poster or a repository administrator)' })
  @ApiOkResponse({ type: GiteaCommentDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async editComment(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: CommentParams,
    @Body() body: EditIssueCommentOptionDto,
  ): Promise<GiteaCommentDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const { comment, issue } = await this.issues.requireComment(context.repo, params.id);
    const edited = await this.issues.editComment(comment, principal.user, context.mode, body.body);
    return presentGiteaComment(
      edited,
      issue,
      this.presentContext(context, principal),
      await this.assets.ofComment(edited),
    );
  }

  @Delete('comments/:id')
  @HttpCode(204)
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Delete a comment (its poster or a repository administrator)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async deleteComment(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: CommentParams,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const { comment } = await this.issues.requireComment(context.repo, params.id);
    await this.issues.deleteComment(context.repo, comment, principal.user, context.mode);
  }

  @Get(':index')
  @Public()
  @ApiOperation({ summary: 'Get an issue (or a pull request as an issue)' })
  @ApiOkResponse({ type: GiteaIssueDto })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async get(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: IssueParams,
  ): Promise<GiteaIssueDto | undefined> {
    return this.presentIssue(await this.issues.require(context.repo, params.index), context, principal);
  }

  @Patch(':index')
  @HttpCode(201)
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({
    summary: 'Edit an issue: title, body, state (its poster or a writer); answers 201 as Gitea does',
  })
  @ApiCreatedResponse({ type: GiteaIssueDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async edit(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: IssueParams,
    @Body() body: EditIssueOptionDto,
  ): Promise<GiteaIssueDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const issue = await this.issues.require(context.repo, params.index);
    const prepared = await this.meta.prepare(context.repo, context.mode, { milestone: body.milestone });
    const edited = await this.issues.edit(context.repo, issue, principal.user, context.mode, {
      title: body.title,
      body: body.body,
      state: body.state,
    });
    await this.meta.apply(context.repo, edited, prepared);
    return this.presentIssue(edited, context, principal);
  }

  @Get(':index/comments')
  @Public()
  @ApiOperation({ summary: 'List the comments of an issue' })
  @ApiOkResponse({ type: [GiteaCommentDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async listComments(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: IssueParams,
  ): Promise<GiteaCommentDto[] | undefined> {
    const issue = await this.issues.require(context.repo, params.index);
    const presented = [];
    for (const comment of await this.issues.listComments(issue)) {
      presented.push(
        presentGiteaComment(
          comment,
          issue,
          this.presentContext(context, principal),
          await this.assets.ofComment(comment),
        ),
      );
    }
    return presented;
  }

  @Post(':index/comments')
  @Authenticated({ scopes: ['issue'] })
  @ApiOperation({ summary: 'Comment on an issue' })
  @ApiCreatedResponse({ type: GiteaCommentDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('read', { scope: 'issue' })
  async comment(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: IssueParams,
    @Body() body: CreateIssueCommentOptionDto,
  ): Promise<GiteaCommentDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const issue = await this.issues.require(context.repo, params.index);
    const comment = await this.issues.comment(context.repo, issue, principal.user, context.mode, body.body);
    return presentGiteaComment(comment, issue, this.presentContext(context, principal), []);
  }
}
