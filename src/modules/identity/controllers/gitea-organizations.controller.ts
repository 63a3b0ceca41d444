import { Body, Delete, Get, HttpCode, Inject, Param, Patch, Post, Put, Query } from '@nestjs/common';
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
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { ForbiddenError, InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal, Public } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import {
  CreateOrgOptionDto,
  EditOrgOptionDto,
  GiteaPageQueryDto,
  TeamOptionDto,
} from '../dto/gitea-organizations.dto';
import type { Team } from '../entities/team.entity';
import type { User } from '../entities/user.entity';
import { usernameProblem } from '../gitea-rules';
import { OrganizationsService } from '../organizations.service';
import {
  GiteaOrganizationDto,
  GiteaTeamDto,
  presentGiteaOrganization,
  presentGiteaTeam,
} from '../presenters/gitea-organization.presenter';
import { GiteaUserDto, presentGiteaUser } from '../presenters/gitea-user.presenter';
import { UsersService } from '../users.service';

const ERROR = { description: 'Gitea error `{message, url}`' };
const ORG = { scopes: ['organization'] };

/** Gitea's organization and team routes (`/api/v1/orgs`, `/api/v1/teams`, `/api/v1/user/orgs`): one organization concept with Coder's. */
@GiteaController('')
export class GiteaOrganizationsController {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly users: UsersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The organization of a path, hidden (404) when the viewer may not see it (private: members; limited: signed in). */
  private async visibleOrganization(name: string, viewer: User | undefined): Promise<User> {
    const organization = await this.users.findAccountByName(name);
    const hidden = () =>
      new NotFoundError('GetOrgByName', {
        code: 'ORG_NOT_FOUND',
        detail: `org does not exist [id: 0, name: ${name}]`,
      });
    if (!organization || organization.type !== 'organization') throw hidden();
    if (organization.visibility === 'public' || viewer?.isAdmin) return organization;
    if (organization.visibility === 'limited' && viewer) return organization;
    if (viewer && (await this.organizations.isMember(organization.id, viewer.id))) return organization;
    throw hidden();
  }

  private async isOwner(organization: User, user: User): Promise<boolean> {
    if (user.isAdmin) return true;
    return (await this.organizations.membershipsOf(user.id)).some(
      (m) => m.organizationId === organization.id && m.isOwner,
    );
  }

  private async requireOwner(organization: User, user: User): Promise<void> {
    if (!(await this.isOwner(organization, user)))
      throw new ForbiddenError('Must be an organization owner', 'permission', { code: 'ORG_OWNER_REQUIRED' });
  }

  private async requireMember(organization: User, user: User): Promise<void> {
    if (user.isAdmin || (await this.organizations.isMember(organization.id, user.id))) return;
    throw new ForbiddenError('Must be an organization member', 'permission', { code: 'ORG_MEMBER_REQUIRED' });
  }

  private async team(id: string, user: User, owner: boolean): Promise<{ team: Team; organization: User }> {
    const team = await this.organizations.findTeamById(id);
    if (!team) throw new NotFoundError('not found', { code: 'TEAM_NOT_FOUND' });
    if (owner) await this.requireOwner(team.organization, user);
    else await this.requireMember(team.organization, user);
    return { team, organization: team.organization };
  }

  private org(organization: User): GiteaOrganizationDto {
    return presentGiteaOrganization(organization, this.config.publicUrl);
  }

  @Post('orgs')
  @Authenticated(ORG)
  @ApiOperation({ summary: 'Create an organization (the caller becomes its owner)' })
  @ApiCreatedResponse({ type: GiteaOrganizationDto })
  @ApiResponse({ status: 422, ...ERROR })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateOrgOptionDto,
  ): Promise<GiteaOrganizationDto> {
    if (body.username === '') throw new InvalidError('[UserName]: Required', { code: 'ORG_NAME' });
    const problem = usernameProblem(body.username);
    if (problem) throw new InvalidError(problem, { code: 'ORG_NAME' });
    if (await this.users.findAccountByName(body.username))
      throw new InvalidError(`user already exists [name: ${body.username}]`, { code: 'ORG_NAME_TAKEN' });
    const created = await this.organizations
      .create({
        name: body.username,
        displayName: body.full_name,
        description: body.description,
        visibility: body.visibility,
        ownerId: principal.user.id,
      })
      .catch((error: unknown) => {
        if ((error as { code?: string }).code === 'ORG_NAME_TAKEN')
          throw new InvalidError(`user already exists [name: ${body.username}]`, { code: 'ORG_NAME_TAKEN' });
        throw error;
      });
    return this.org(
      await this.organizations.edit(created, {
        website: body.website,
        location: body.location,
        fullName: body.full_name,
      }),
    );
  }

  @Get('orgs/:org')
  @Public()
  @ApiOperation({ summary: 'Get an organization' })
  @ApiOkResponse({ type: GiteaOrganizationDto })
  @ApiResponse({ status: 404, ...ERROR })
  async get(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('org') name: string,
  ): Promise<GiteaOrganizationDto> {
    return this.org(await this.visibleOrganization(name, principal?.user));
  }

  @Patch('orgs/:org')
  @Authenticated(ORG)
  @ApiOperation({ summary: 'Edit an organization (owners)' })
  @ApiOkResponse({ type: GiteaOrganizationDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async edit(
    @CurrentPrincipal() principal: Principal,
    @Param('org') name: string,
    @Body() body: EditOrgOptionDto,
  ): Promise<GiteaOrganizationDto> {
    const organization = await this.visibleOrganization(name, principal.user);
    await this.requireOwner(organization, principal.user);
    return this.org(
      await this.organizations.edit(organization, {
        fullName: body.full_name,
        description: body.description,
        website: body.website,
        location: body.location,
        visibility: body.visibility,
      }),
    );
  }

  @Delete('orgs/:org')
  @HttpCode(204)
  @Authenticated(ORG)
  @ApiOperation({
    summary: 'Delete an organization (owners; refused while it owns repositories or packages)',
  })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async delete(@CurrentPrincipal() principal: Principal, @Param('org') name: string): Promise<void> {
    const organization = await this.visibleOrganization(name, principal.user);
    await this.requireOwner(organization, principal.user);
    await this.organizations.delete(organization);
  }

  @Get('orgs/:org/members')
  @GiteaPaged()
  @Authenticated(ORG)
  @ApiOperation({
    summary: "List an organization's members (members see them; others see none: memberships are private)",
  })
  @ApiOkResponse({ type: [GiteaUserDto] })
  async members(
    @CurrentPrincipal() principal: Principal,
    @Param('org') name: string,
    @Query() query: GiteaPageQueryDto,
  ): Promise<GiteaPage<GiteaUserDto>> {
    const organization = await this.visibleOrganization(name, principal.user);
    const paging = giteaPaging(query);
    if (!principal.user.isAdmin && !(await this.organizations.isMember(organization.id, principal.user.id)))
      return new GiteaPage<GiteaUserDto>([], 0, paging);
    const { items, total } = await this.organizations.members(organization.id, paging);
    return new GiteaPage(
      items.map((user) => presentGiteaUser(user, principal.user, this.config.publicUrl)),
      total,
      paging,
    );
  }

  @Delete('orgs/:org/members/:username')
  @HttpCode(204)
  @Authenticated(ORG)
  @ApiOperation({ summary: 'Remove a member from an organization (owners)' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async removeMember(
    @CurrentPrincipal() principal: Principal,
    @Param('org') name: string,
    @Param('username') username: string,
  ): Promise<void> {
    const organization = await this.visibleOrganization(name, principal.user);
    await this.requireOwner(organization, principal.user);
    const user = await this.users.findByName(username);
    if (!user)
      throw new InvalidError(`user does not exist [uid: 0, name: ${username}]`, { code: 'USER_NOT_FOUND' });
    await this.organizations.removeMember(organization.id, user.id);
  }

  @Get('user/orgs')
  @GiteaPaged()
  @Authenticated(ORG)
  @ApiOperation({ summary: "List the signed-in user's organizations" })
  @ApiOkResponse({ type: [GiteaOrganizationDto] })
  async mine(
    @CurrentPrincipal() principal: Principal,
    @Query() query: GiteaPageQueryDto,
  ): Promise<GiteaPage<GiteaOrganizationDto>> {
    const paging = giteaPaging(query);
    const { items, total } = await this.organizations.organizationsOf(principal.user.id, paging);
    return new GiteaPage(
      items.map((organization) => this.org(organization)),
      total,
      paging,
    );
  }

  @Post('orgs/:org/teams')
  @Authenticated(ORG)
  @ApiOperation({ summary: 'Create a team (owners)' })
  @ApiCreatedResponse({ type: GiteaTeamDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async createTeam(
    @CurrentPrincipal() principal: Principal,
    @Param('org') name: string,
    @Body() body: TeamOptionDto,
  ): Promise<GiteaTeamDto> {
    const organization = await this.visibleOrganization(name, principal.user);
    await this.requireOwner(organization, principal.user);
    if (!body.name) throw new InvalidError('[Name]: Required', { code: 'TEAM_NAME' });
    if (!/^[A-Za-z0-9_.-]+$/.test(body.name))
      throw new InvalidError('[Name]: AlphaDashDot', { code: 'TEAM_NAME' });
    const team = await this.organizations.saveTeam(organization.id, {
      name: body.name,
      description: body.description,
      permission: body.permission ?? 'read',
      units: body.units ?? Object.keys(body.units_map ?? {}),
      includesAllRepositories: body.includes_all_repositories,
      canCreateOrgRepo: body.can_create_org_repo,
    });
    return presentGiteaTeam(team, organization, this.config.publicUrl);
  }

  @Get('orgs/:org/teams')
  @GiteaPaged()
  @Authenticated(ORG)
  @ApiOperation({ summary: "List an organization's teams (members)" })
  @ApiOkResponse({ type: [GiteaTeamDto] })
  async teams(
    @CurrentPrincipal() principal: Principal,
    @Param('org') name: string,
    @Query() query: GiteaPageQueryDto,
  ): Promise<GiteaPage<GiteaTeamDto>> {
    const organization = await this.visibleOrganization(name, principal.user);
    await this.requireMember(organization, principal.user);
    const paging = giteaPaging(query);
    const { items, total } = await this.organizations.teamsOfOrganization(organization.id, paging);
    return new GiteaPage(
      items.map((team) => presentGiteaTeam(team, organization, this.config.publicUrl)),
      total,
      paging,
    );
  }

  @Get('teams/:id')
  @Authenticated(ORG)
  @ApiOperation({ summary: 'Get a team (members of its organization)' })
  @ApiOkResponse({ type: GiteaTeamDto })
  @ApiResponse({ status: 404, ...ERROR })
  async getTeam(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<GiteaTeamDto> {
    const { team, organization } = await this.team(id, principal.user, false);
    return presentGiteaTeam(team, organization, this.config.publicUrl);
  }

  @Patch('teams/:id')
  @Authenticated(ORG)
  @ApiOperation({ summary: 'Edit a team (owners)' })
  @ApiOkResponse({ type: GiteaTeamDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async editTeam(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: TeamOptionDto,
  ): Promise<GiteaTeamDto> {
    const { team, organization } = await this.team(id, principal.user, true);
    if (body.name !== undefined && !/^[A-Za-z0-9_.-]+$/.test(body.name))
      throw new InvalidError('[Name]: AlphaDashDot', { code: 'TEAM_NAME' });
    const saved = await this.organizations.saveTeam(
      organization.id,
      {
        name: body.name,
        description: body.description,
        permission: body.permission,
        units: body.units ?? (body.units_map ? Object.keys(body.units_map) : undefined),
        includesAllRepositories: body.includes_all_repositories,
        canCreateOrgRepo: body.can_create_org_repo,
      },
      team,
    );
    return presentGiteaTeam(saved, organization, this.config.publicUrl);
  }

  @Delete('teams/:id')
  @HttpCode(204)
  @Authenticated(ORG)
  @ApiOperation({ summary: 'Delete a team (owners; not the Owners team)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async deleteTeam(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    const { team } = await this.team(id, principal.user, true);
    await this.organizations.deleteTeam(team);
  }

  @Get('teams/:id/members')
  @Authenticated(ORG)
  @ApiOperation({ summary: "List a team's members" })
  @ApiOkResponse({ type: [GiteaUserDto] })
  async teamMembers(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<GiteaUserDto[]> {
    const { team } = await this.team(id, principal.user, false);
    return (await this.organizations.teamMembers(team.id)).map((user) =>
      presentGiteaUser(user, principal.user, this.config.publicUrl),
    );
  }

  @Put('teams/:id/members/:username')
  @HttpCode(204)
  @Authenticated(ORG)
  @ApiOperation({ summary: 'Add a user to a team (and to the organization)' })
  @ApiNoContentResponse({ description: 'added' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async addTeamMember(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('username') username: string,
  ): Promise<void> {
    const { team } = await this.team(id, principal.user, true);
    const user = await this.users.findByName(username);
    if (!user)
      throw new NotFoundError('GetUserByName', {
        code: 'USER_NOT_FOUND',
        detail: `user does not exist [uid: 0, name: ${username}]`,
      });
    await this.organizations.joinTeam(team, user.id);
  }

  @Delete('teams/:id/members/:username')
  @HttpCode(204)
  @Authenticated(ORG)
  @ApiOperation({ summary: 'Remove a user from a team' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async removeTeamMember(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('username') username: string,
  ): Promise<void> {
    const { team } = await this.team(id, principal.user, true);
    const user = await this.users.findByName(username);
    if (!user)
      throw new NotFoundError('GetUserByName', {
        code: 'USER_NOT_FOUND',
        detail: `user does not exist [uid: 0, name: ${username}]`,
      });
    await this.organizations.removeTeamMember(team, user.id);
  }
}
