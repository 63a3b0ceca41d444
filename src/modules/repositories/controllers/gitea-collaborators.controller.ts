import { Body, Delete, Get, HttpCode, Param, Put, Query, Res } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../auth/access.decorators';
import type { Principal } from '../../auth/principal';
import { GiteaUserDto, presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import { CollaboratorsService } from '../collaborators.service';
import { AddCollaboratorOptionDto, GiteaListQueryDto } from '../dto/repositories.dto';
import { RepositoriesService } from '../repositories.service';
import { RepositoryPermissions } from '../repository-permissions.service';
import { repositoryContext } from './repository-context';

const ERROR = { description: 'Gitea error `{message, url}`' };
type CollaboratorParams = { owner: string; repo: string; collaborator: string };

/** Gitea's collaborator and team routes of a repository. */
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
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param() params: { owner: string; repo: string },
    @Query() query: GiteaListQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GiteaPage<GiteaUserDto> | undefined> {
    const context = await repositoryContext(
      this.repositories,
      this.permissions,
      params,
      principal.user,
      'read',
      res,
    );
    if (!context) return undefined;
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
  async check(
    @CurrentPrincipal() principal: Principal,
    @Param() params: CollaboratorParams,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const context = await repositoryContext(
      this.repositories,
      this.permissions,
      params,
      principal.user,
      'read',
      res,
    );
    if (!context) return;
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
  async put(
    @CurrentPrincipal() principal: Principal,
    @Param() params: CollaboratorParams,
    @Body() body: AddCollaboratorOptionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const context = await repositoryContext(
      this.repositories,
      this.permissions,
      params,
      principal.user,
      'admin',
      res,
    );
    if (!context) return;
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
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param() params: CollaboratorParams,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const context = await repositoryContext(
      this.repositories,
      this.permissions,
      params,
      principal.user,
      'admin',
      res,
    );
    if (!context) return;
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
  async addTeam(
    @CurrentPrincipal() principal: Principal,
    @Param() params: { owner: string; repo: string; team: string },
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const context = await repositoryContext(
      this.repositories,
      this.permissions,
      params,
      principal.user,
      'admin',
      res,
    );
    if (!context) return;
    const team = await this.collaborators.requireTeam(context.repo, context.owner, params.team);
    await this.collaborators.addTeam(context.repo, team.id);
  }

  @Delete('teams/:team')
  @HttpCode(204)
  @Authenticated({ scopes: ['repository'] })
  @ApiOperation({ summary: "Remove an organization team's access to the repository" })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async removeTeam(
    @CurrentPrincipal() principal: Principal,
    @Param() params: { owner: string; repo: string; team: string },
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    const context = await repositoryContext(
      this.repositories,
      this.permissions,
      params,
      principal.user,
      'admin',
      res,
    );
    if (!context) return;
    const team = await this.collaborators.requireTeam(context.repo, context.owner, params.team);
    await this.collaborators.removeTeam(context.repo, team.id);
  }
}
