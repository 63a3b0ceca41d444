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
import { CreateReleaseOptionDto, EditReleaseOptionDto, ReleaseListQueryDto } from '../dto/issues.dto';
import { IssueAssets } from '../issues/issue-assets';
import { GiteaReleaseDto, presentGiteaRelease } from '../releases/gitea-release.presenter';
import type { Release } from '../releases/release.entity';
import { ReleasesService } from '../releases/releases.service';
import { RepositoriesService } from '../repositories.service';
import { atLeast, RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type ReleaseParams = { owner: string; repo: string; id: string };
type TagParams = { owner: string; repo: string; tag: string };

function optionalBool(value: string | undefined): boolean | undefined {
  return value === undefined ? undefined : value === 'true';
}

/** Gitea's release routes (`/repos/{owner}/{repo}/releases...`), token scope `repository`. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo/releases')
export class GiteaReleasesController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly releases: ReleasesService,
    private readonly assets: IssueAssets,
  ) {}

  private async present(
    release: Release,
    context: RepositoryContext,
    principal: Principal | undefined,
  ): Promise<GiteaReleaseDto> {
    return presentGiteaRelease(
      release,
      {
        repo: context.repo,
        owner: context.owner,
        viewer: principal?.user,
        publicUrl: this.repositories.publicUrl,
      },
      await this.assets.ofRelease(release),
    );
  }

  @Get()
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "List a repository's releases (drafts only for writers)" })
  @ApiOkResponse({ type: [GiteaReleaseDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async list(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Query() query: ReleaseListQueryDto,
  ): Promise<GiteaPage<GiteaReleaseDto> | undefined> {
    const paging = giteaPaging(query);
    const { items, total } = await this.releases.list(context.repo, {
      includeDrafts: atLeast(context.mode, 'write'),
      draft: optionalBool(query.draft),
      prerelease: optionalBool(query['pre-release']),
      ...paging,
    });
    const presented = [];
    for (const release of items) presented.push(await this.present(release, context, principal));
    return new GiteaPage(presented, total, paging);
  }

  @Post()
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({
    summary: 'Create a release (a published one creates its tag at target_commitish when missing)',
  })
  @ApiCreatedResponse({ type: GiteaReleaseDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async create(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateReleaseOptionDto,
  ): Promise<GiteaReleaseDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const release = await this.releases.create(context.repo, principal.user, {
      tagName: body.tag_name,
      target: body.target_commitish,
      title: body.name,
      note: body.body,
      draft: body.draft,
      prerelease: body.prerelease,
    });
    return this.present(release, context, principal);
  }

  @Get('latest')
  @Public()
  @ApiOperation({ summary: 'The newest published release that is not a pre-release' })
  @ApiOkResponse({ type: GiteaReleaseDto })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async latest(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
  ): Promise<GiteaReleaseDto | undefined> {
    return this.present(await this.releases.latest(context.repo), context, principal);
  }

  @Get('tags/:tag')
  @Public()
  @ApiOperation({ summary: 'Get a release by its tag name' })
  @ApiOkResponse({ type: GiteaReleaseDto })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async getByTag(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: TagParams,
  ): Promise<GiteaReleaseDto | undefined> {
    return this.present(
      await this.releases.requireByTag(context.repo, params.tag, atLeast(context.mode, 'write')),
      context,
      principal,
    );
  }

  @Delete('tags/:tag')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Delete a release by its tag name (the tag stays)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async deleteByTag(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: TagParams,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    await this.releases.delete(
      context.repo,
      await this.releases.requireByTag(context.repo, params.tag, true),
      principal.user,
    );
  }

  @Get(':id')
  @Public()
  @ApiOperation({ summary: 'Get a release (a draft is 404 to those who may not write)' })
  @ApiOkResponse({ type: GiteaReleaseDto })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async get(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Param() params: ReleaseParams,
  ): Promise<GiteaReleaseDto | undefined> {
    return this.present(
      await this.releases.require(context.repo, params.id, atLeast(context.mode, 'write')),
      context,
      principal,
    );
  }

  @Patch(':id')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Edit a release (publishing a draft creates its tag)' })
  @ApiOkResponse({ type: GiteaReleaseDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async edit(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: ReleaseParams,
    @Body() body: EditReleaseOptionDto,
  ): Promise<GiteaReleaseDto | undefined> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const release = await this.releases.require(context.repo, params.id, true);
    const edited = await this.releases.edit(context.repo, release, principal.user, {
      tagName: body.tag_name,
      target: body.target_commitish,
      title: body.name,
      note: body.body,
      draft: body.draft,
      prerelease: body.prerelease,
    });
    return this.present(edited, context, principal);
  }

  @Delete(':id')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Delete a release (the tag stays, as in Gitea)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 423, ...ERROR })
  @RepoAccess('write')
  async delete(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Param() params: ReleaseParams,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    await this.releases.delete(
      context.repo,
      await this.releases.require(context.repo, params.id, true),
      principal.user,
    );
  }
}
