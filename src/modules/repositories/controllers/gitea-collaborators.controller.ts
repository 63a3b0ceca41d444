import { Body, Delete, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { NotAllowedError, NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaUserDto, presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import { CollaboratorsService } from '../collaborators.service';
import { AddCollaboratorOptionDto, GiteaListQueryDto } from '../dto/repositories.dto';
import { RepositoriesService } from '../repositories.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { Repo, RepoAccess, type RepositoryContext } from '../repo-access';

const ERROR = { description: 'Gitea error `{message, url}`' };
type CollaboratorParams = { owner: string; repo: string; collaborator: string };

/** Gitea's collaborator and team routes of a repository. */
@DocumentPathParams()
@GiteaController('repos/:owner/:repo')
export class GiteaCollaboratorsController {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly collaborators: CollaboratorsService,
  ) {}

  @Get('collaborators')
  @GiteaPaged()
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: "List a repository's collaborators" })
  @ApiOkResponse({ type: [GiteaUserDto] })
  @ApiResponse({ status: 404, ...ERROR })
  @RepoAccess('read')
  async list(
    @Repo() context: RepositoryContext,
    @CurrentPrincipal() principal: Principal,
    @Query() query: GiteaListQueryDto,
  ): Promise<GiteaPage<GiteaUserDto> | undefined> {
    const paging = giteaPaging(query);
    const { items, total } = await this.collaborators.list(context.repo, paging);
    return new GiteaPage(
      items.map((user) => presentGiteaUser(user, principal.user, this.repositories.publicUrl)),
      total,
      paging,
    );
  }

  @Get('collaborators/:collaborator')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Check if a user is a collaborator of a repository' })
  @ApiNoContentResponse({ description: 'a collaborator' })
  @ApiResponse({ status: 404, ...ERROR, description: 'not a collaborator' })
  @ApiResponse({ status: 422, ...ERROR, description: 'unknown user' })
  @RepoAccess('read')
  async check(@Repo() context: RepositoryContext, @Param() params: CollaboratorParams): Promise<void> {
    const user = await this.collaborators.requireUser(params.collaborator);
    if (!(await this.collaborators.isCollaborator(context.repo, user)))
      throw new NotFoundError('not found', { code: 'NOT_COLLABORATOR' });
  }

  @Put('collaborators/:collaborator')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Add or update a collaborator (permission read, write or admin; default write)' })
  @ApiNoContentResponse({ description: 'added or updated' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('admin')
  async put(
    @Repo() context: RepositoryContext,
    @Param() params: CollaboratorParams,
    @Body() body: AddCollaboratorOptionDto,
  ): Promise<void> {
    this.permissions.assertNotArchived(context.repo, context.owner.name);
    const user = await this.collaborators.requireUser(params.collaborator);
    await this.collaborators.put(context.repo, user, body.permission ?? 'write');
  }

  @Delete('collaborators/:collaborator')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: 'Remove a collaborator' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  @RepoAccess('admin')
  async remove(@Repo() context: RepositoryContext, @Param() params: CollaboratorParams): Promise<void> {
    const user = await this.collaborators.requireUser(params.collaborator);
    await this.collaborators.remove(context.repo, user);
  }

  @Put('teams/:team')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: "Give an organization team access to the repository (the team's permission)" })
  @ApiNoContentResponse({ description: 'added' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 405, description: 'the repository is not owned by an organization' })
  @ApiResponse({ status: 422, description: 'the team is already added' })
  @RepoAccess('admin')
  async addTeam(
    @Repo() context: RepositoryContext,
    @Param() params: { owner: string; repo: string; team: string },
  ): Promise<void> {
    if (context.owner.type !== 'organization')
      throw new NotAllowedError('repo is not owned by an organization', { code: 'REPOSITORY_NOT_IN_ORG' });
    const team = await this.collaborators.requireTeam(context.repo, context.owner, params.team);
    await this.collaborators.addTeamOnce(context.repo, team);
  }

  @Delete('teams/:team')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: "Remove an organization team's access to the repository" })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 405, description: 'the repository is not owned by an organization' })
  @ApiResponse({ status: 422, description: 'the team was not added' })
  @RepoAccess('admin')
  async removeTeam(
    @Repo() context: RepositoryContext,
    @Param() params: { owner: string; repo: string; team: string },
  ): Promise<void> {
    if (context.owner.type !== 'organization')
      throw new NotAllowedError('repo is not owned by an organization', { code: 'REPOSITORY_NOT_IN_ORG' });
    const team = await this.collaborators.requireTeam(context.repo, context.owner, params.team);
    await this.collaborators.removeTeamOnce(context.repo, team);
  }
}
