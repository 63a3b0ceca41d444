import { Delete, HttpCode, Param, Put } from '@nestjs/common';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { ApiNoContentResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { ForbiddenError, NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { OrganizationsService } from '../../identity/organizations.service';
import { CollaboratorsService } from '../collaborators.service';
import { RepositoriesService } from '../repositories.service';
import { repositoryNotFound } from '../repository-permissions.service';

const ERROR = { description: 'Gitea error `{message, url}`' };
type Params = { id: string; org: string; repo: string };

/** Gitea's `PUT/DELETE /teams/{id}/repos/{org}/{repo}`: organization owners link a team to one of its repositories. */
@DocumentPathParams()
@GiteaController('teams/:id/repos/:org/:repo')
export class GiteaTeamRepositoriesController {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly repositories: RepositoriesService,
    private readonly collaborators: CollaboratorsService,
  ) {}

  private async resolve(principal: Principal, params: Params) {
    const team = await this.organizations.findTeamById(params.id);
    if (!team) throw new NotFoundError('not found', { code: 'TEAM_NOT_FOUND' });
    const isOwner =
      principal.user.isAdmin ||
      (await this.organizations.membershipsOf(principal.user.id)).some(
        (m) => m.organizationId === team.organizationId && m.isOwner,
      );
    if (!isOwner)
      throw new ForbiddenError('Must be an organization owner', 'permission', { code: 'ORG_OWNER_REQUIRED' });
    const resolved = await this.repositories.resolve(params.org, params.repo);
    if (!('repo' in resolved) || resolved.repo.ownerId !== team.organizationId) throw repositoryNotFound();
    return { team, repo: resolved.repo };
  }

  @Put()
  @HttpCode(204)
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Add a repository to a team' })
  @ApiNoContentResponse({ description: 'added' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async add(@CurrentPrincipal() principal: Principal, @Param() params: Params): Promise<void> {
    const { team, repo } = await this.resolve(principal, params);
    await this.collaborators.addTeam(repo, team.id);
  }

  @Delete()
  @HttpCode(204)
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Remove a repository from a team' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async remove(@CurrentPrincipal() principal: Principal, @Param() params: Params): Promise<void> {
    const { team, repo } = await this.resolve(principal, params);
    await this.collaborators.removeTeam(repo, team.id);
  }
}
