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
import { InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import type { User } from '../../identity/entities/user.entity';
import { UsersService } from '../../identity/users.service';
import {
  CreateForkOptionDto,
  CreateRepoOptionDto,
  EditRepoOptionDto,
  GiteaListQueryDto,
  SearchRepositoriesQueryDto,
  SearchResultsDto,
} from '../dto/repositories.dto';
import type { Repository } from '../entities/repository.entity';
import { GiteaRepositoryDto, presentGiteaRepository } from '../presenters/gitea-repository.presenter';
import { RepositoriesService } from '../repositories.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
const SORTS = ['alpha', 'created', 'updated', 'size', 'id'] as const;

/** Gitea's repository routes (`/api/v1`): create, get, edit, delete, lists and search. */
@DocumentPathParams()
@GiteaController('')
export class GiteaRepositoriesController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly users: UsersService,
  ) {}

  private async present(
    repo: Repository,
    viewer: User | undefined,
    withParent = true,
  ): Promise<GiteaRepositoryDto> {
    const mode = await this.permissions.modeOf(viewer ?? null, repo);
    let parent: GiteaRepositoryDto | undefined;
    if (withParent && repo.forkId) {
      const source = await this.repositories.findById(repo.forkId);
      // Gitea shows the parent only to those who may read it.
      if (source && (await this.permissions.modeOf(viewer ?? null, source)) !== 'none')
        parent = await this.present(source, viewer, false);
    }
    return presentGiteaRepository(repo, repo.owner, viewer, mode, this.repositories.publicUrl, parent);
  }

  private async presentAll(repos: Repository[], viewer: User | undefined): Promise<GiteaRepositoryDto[]> {
    return Promise.all(repos.map((repo) => this.present(repo, viewer)));
  }

  @Post('user/repos')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Create a repository' })
  @ApiCreatedResponse({ type: GiteaRepositoryDto })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async createForUser(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateRepoOptionDto,
  ): Promise<GiteaRepositoryDto> {
    const repo = await this.repositories.create(principal.user, principal.user, {
      name: body.name,
      description: body.description,
      private: body.private,
      autoInit: body.auto_init,
      defaultBranch: body.default_branch,
    });
    return this.present(repo, principal.user);
  }

  @Post('orgs/:org/repos')
  @Authenticated({ scopes: ['organization', 'repository'] })
  @ApiOperation({ summary: 'Create a repository in an organization' })
  @ApiCreatedResponse({ type: GiteaRepositoryDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async createForOrganization(
    @CurrentPrincipal() principal: Principal,
    @Param('org') orgName: string,
    @Body() body: CreateRepoOptionDto,
  ): Promise<GiteaRepositoryDto> {
    const organization = await this.users.findAccountByName(orgName);
    if (!organization || organization.type !== 'organization') {
      throw new NotFoundError('GetOrgByName', {
        code: 'ORG_NOT_FOUND',
        detail: `org does not exist [id: 0, name: ${orgName}]`,
      });
    }
    const repo = await this.repositories.create(principal.user, organization, {
      name: body.name,
      description: body.description,
      private: body.private,
      autoInit: body.auto_init,
      defaultBranch: body.default_branch,
    });
    return this.present(repo, principal.user);
  }

  @Get('repos/search')
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: 'Search for repositories' })
  @ApiOkResponse({ type: SearchResultsDto })
  @ApiResponse({ status: 422, ...ERROR })
  async search(
    @CurrentPrincipal() principal: Principal | undefined,
    @Query() query: SearchRepositoriesQueryDto,
  ): Promise<GiteaPage<GiteaRepositoryDto>> {
    const paging = giteaPaging(query);
    const sort = (query.sort ?? 'alpha').toLowerCase();
    if (!(SORTS as readonly string[]).includes(sort))
      throw new InvalidError(`[Sort]: invalid sort "${query.sort}"`, { code: 'INVALID_SORT' });
    const order = (query.order ?? 'asc').toLowerCase();
    if (order !== 'asc' && order !== 'desc')
      throw new InvalidError(`[Order]: invalid order "${query.order}"`, { code: 'INVALID_ORDER' });
    const { items, total } = await this.repositories.search(principal?.user ?? null, {
      ...paging,
      q: query.q,
      ownerId: query.uid && /^\d+$/.test(query.uid) && query.uid !== '0' ? query.uid : undefined,
      isPrivate: query.is_private === undefined ? undefined : query.is_private === 'true',
      sort: sort as (typeof SORTS)[number],
      order,
    });
    return new GiteaPage(await this.presentAll(items, principal?.user), total, paging, (data) => ({
      ok: true,
      data,
    }));
  }

  @Get('user/repos')
  @GiteaPaged()
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'List the repositories the signed-in user owns or may access' })
  @ApiOkResponse({ type: [GiteaRepositoryDto] })
  async mine(
    @CurrentPrincipal() principal: Principal,
    @Query() query: GiteaListQueryDto,
  ): Promise<GiteaPage<GiteaRepositoryDto>> {
    const paging = giteaPaging(query);
    const { items, total } = await this.repositories.listAccessibleBy(principal.user, paging);
    return new GiteaPage(await this.presentAll(items, principal.user), total, paging);
  }

  @Get('users/:username/repos')
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "List a user's repositories" })
  @ApiOkResponse({ type: [GiteaRepositoryDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async ofUser(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('username') username: string,
    @Query() query: GiteaListQueryDto,
  ): Promise<GiteaPage<GiteaRepositoryDto>> {
    const owner = await this.users.findAccountByName(username);
    if (!owner)
      throw new NotFoundError('GetUserByName', {
        code: 'USER_NOT_FOUND',
        detail: `user does not exist [uid: 0, name: ${username}]`,
      });
    const paging = giteaPaging(query);
    const { items, total } = await this.repositories.listOwnedBy(owner, principal?.user ?? null, paging);
    return new GiteaPage(await this.presentAll(items, principal?.user), total, paging);
  }

  @Get('orgs/:org/repos')
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "List an organization's repositories" })
  @ApiOkResponse({ type: [GiteaRepositoryDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async ofOrganization(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('org') orgName: string,
    @Query() query: GiteaListQueryDto,
  ): Promise<GiteaPage<GiteaRepositoryDto>> {
    const organization = await this.users.findAccountByName(orgName);
    if (!organization || organization.type !== 'organization') {
      throw new NotFoundError('GetOrgByName', {
        code: 'ORG_NOT_FOUND',
        detail: `org does not exist [id: 0, name: ${orgName}]`,
      });
    }
    const paging = giteaPaging(query);
    const { items, total } = await this.repositories.listOwnedBy(
      organization,
      principal?.user ?? null,
      paging,
    );
    return new GiteaPage(await this.presentAll(items, principal?.user), total, paging);
  }

  @Get('repos/:owner/:repo')
  @Public()
  @ApiOperation({ summary: 'Get a repository' })
  @ApiOkResponse({ type: GiteaRepositoryDto })
  @ApiResponse({ status: 307, description: 'the repository was renamed: Location is its new path' })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async get(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
  ): Promise<GiteaRepositoryDto | undefined> {
    return this.present(context.repo, principal?.user);
  }

  @Post('repos/:owner/:repo/forks')
  @HttpCode(202)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Fork a repository (into the caller or an organization)' })
  @ApiResponse({ status: 202, type: GiteaRepositoryDto, description: 'the fork' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('read')
  async fork(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateForkOptionDto,
  ): Promise<GiteaRepositoryDto | undefined> {
    let target: User = principal.user;
    if (body.organization) {
      const organization = await this.users.findAccountByName(body.organization);
      if (!organization || organization.type !== 'organization') {
        throw new NotFoundError('GetOrgByName', {
          code: 'ORG_NOT_FOUND',
          detail: `org does not exist [id: 0, name: ${body.organization}]`,
        });
      }
      target = organization;
    }
    const fork = await this.repositories.fork(principal.user, context.repo, target, body.name);
    return this.present(fork, principal.user);
  }

  @Get('repos/:owner/:repo/forks')
  @GiteaPaged()
  @Public()
  @ApiOperation({ summary: "List a repository's forks" })
  @ApiOkResponse({ type: [GiteaRepositoryDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async forks(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal | undefined,
    @Query() query: GiteaListQueryDto,
  ): Promise<GiteaPage<GiteaRepositoryDto> | undefined> {
    const paging = giteaPaging(query);
    const { items, total } = await this.repositories.listForks(context.repo, principal?.user ?? null, paging);
    return new GiteaPage(await this.presentAll(items, principal?.user), total, paging);
  }

  @Patch('repos/:owner/:repo')
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: "Edit a repository's properties (name: the old name redirects)" })
  @ApiOkResponse({ type: GiteaRepositoryDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('admin')
  async edit(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Body() body: EditRepoOptionDto,
  ): Promise<GiteaRepositoryDto | undefined> {
    const repo = await this.repositories.edit(principal.user, context.owner, context.repo, {
      name: body.name,
      description: body.description,
      website: body.website,
      private: body.private,
      archived: body.archived,
      defaultBranch: body.default_branch,
    });
    return presentGiteaRepository(
      repo,
      repo.owner,
      principal.user,
      context.mode,
      this.repositories.publicUrl,
    );
  }

  @Delete('repos/:owner/:repo')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Delete a repository' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('owner')
  async delete(@Repo() context: RepositoryContext, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.repositories.delete(principal.user, context.owner, context.repo);
  }
}
