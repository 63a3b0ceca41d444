import { Body, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { requestSnapshot } from '../../../platform/events/subject-events';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { BranchesService, type BranchView } from '../branches/branches.service';
import {
  GiteaBranchDto,
  MergeUpstreamResponseDto,
  presentGiteaBranch,
  repoHtmlUrl,
} from '../branches/gitea-branch.presenter';
import {
  CreateBranchRepoOptionDto,
  MergeUpstreamRequestDto,
  RenameBranchRepoOptionDto,
  UpdateBranchRepoOptionDto,
} from '../dto/branches.dto';
import { GiteaListQueryDto } from '../../../api/gitea/gitea-list-query.dto';
import { RepositoriesService } from '../repositories.service';
import { atLeast, RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type RepoParams = { owner: string; repo: string };
/** `{branch...}`: names with slashes arrive as path segments. */
type BranchParams = RepoParams & { branch: string | string[] };
const BRANCH_PARAM = { name: 'branch', description: 'branch name (slashes allowed unescaped)' };

function branchName(params: BranchParams): string {
  return Array.isArray(params.branch) ? params.branch.join('/') : params.branch;
}

/** Gitea's branch routes (`/repos/{owner}/{repo}/branches...`, `merge-upstream`), token scope `repository`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo')
export class GiteaBranchesController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly branches: BranchesService,
  ) {}

  private async present(views: BranchView[], context: RepositoryContext): Promise<GiteaBranchDto[]> {
    const emails = views.flatMap((view) =>
      view.commit ? [view.commit.authorEmail, view.commit.committerEmail] : [],
    );
    const usernamesByEmail = await this.repositories.usernamesByEmail(emails);
    const htmlUrl = repoHtmlUrl(this.repositories.publicUrl, context.owner.name, context.repo);
    return views.map((view) =>
      presentGiteaBranch(view, {
        repoHtmlUrl: htmlUrl,
        isRepoAdmin: atLeast(context.mode, 'admin'),
        usernamesByEmail,
      }),
    );
  }

  @Get('branches')
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "List a repository's branches (newest commit first, then by name)" })
  @ApiOkResponse({ type: [GiteaBranchDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async list(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Query() query: GiteaListQueryDto,
  ): Promise<GiteaPage<GiteaBranchDto> | undefined> {
    const paging = giteaPaging(query);
    const { items, total } = await this.branches.list(context.repo, principal?.user ?? null, paging);
    return new GiteaPage(await this.present(items, context), total, paging);
  }

  @Post('branches')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Create a branch (from old_ref_name, else old_branch_name, else the default branch)',
  })
  @ApiCreatedResponse({ type: GiteaBranchDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async create(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateBranchRepoOptionDto,
    @Req() req: Request,
  ): Promise<GiteaBranchDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const created = await this.branches.create(
      context.repo,
      principal.user,
      { name: body.new_branch_name, oldRefName: body.old_ref_name, oldBranchName: body.old_branch_name },
      requestSnapshot(req),
    );
    return (await this.present([created], context))[0];
  }

  @Get('branches/*branch')
  @Public()
  @ApiOperation({ summary: 'Get a branch with its effective protection' })
  @ApiParam(BRANCH_PARAM)
  @ApiOkResponse({ type: GiteaBranchDto })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async get(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: BranchParams,
  ): Promise<GiteaBranchDto | undefined> {
    return (
      await this.present(
        [await this.branches.get(context.repo, principal?.user ?? null, branchName(params))],
        context,
      )
    )[0];
  }

  @Put('branches/*branch')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Move a branch to a commit (compare-and-swap with old_commit_id; force for a non-fast-forward)',
  })
  @ApiParam(BRANCH_PARAM)
  @ApiNoContentResponse({ description: 'moved, or already there' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async update(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: BranchParams,
    @Body() body: UpdateBranchRepoOptionDto,
    @Req() req: Request,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    await this.branches.update(
      context.repo,
      principal.user,
      branchName(params),
      { newCommitId: body.new_commit_id, oldCommitId: body.old_commit_id, force: body.force },
      requestSnapshot(req),
    );
  }

  @Patch('branches/*branch')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Rename a branch (its exact-name rule, the default branch and open pull requests follow)',
  })
  @ApiParam(BRANCH_PARAM)
  @ApiNoContentResponse({ description: 'renamed' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async rename(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: BranchParams,
    @Body() body: RenameBranchRepoOptionDto,
    @Req() req: Request,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    await this.branches.rename(
      context.repo,
      principal.user,
      context.mode,
      branchName(params),
      body.name,
      requestSnapshot(req),
    );
  }

  @Delete('branches/*branch')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Delete a branch (not the default branch, a pull request target or a protected branch)',
  })
  @ApiParam(BRANCH_PARAM)
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async delete(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: BranchParams,
    @Req() req: Request,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    await this.branches.delete(context.repo, principal.user, branchName(params), requestSnapshot(req));
  }

  @Post('merge-upstream')
  @HttpCode(200)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: "Bring a fork's branch up to date with its base repository" })
  @ApiOkResponse({ type: MergeUpstreamResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async mergeUpstream(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: MergeUpstreamRequestDto,
    @Req() req: Request,
  ): Promise<MergeUpstreamResponseDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const result = await this.branches.mergeUpstream(
      context.repo,
      principal.user,
      { branch: body.branch, ffOnly: body.ff_only },
      requestSnapshot(req),
    );
    return { merge_type: result };
  }
}
