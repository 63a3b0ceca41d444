import { Body, Delete, Get, HttpCode, Optional, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { AiSeats } from '../../../platform/ports/ai-seats';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { type CoderPage, parsePagination } from '../../../api/coder/coder-search-query';
import { InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import { AccessPolicy, userObject } from '../../../api/access/access-policy';
import type { Principal } from '../../../api/access/principal';
import type { User } from '../entities/user.entity';
import {
  CoderGroupDto,
  CoderAssignableRoleDto,
  CoderOrganizationDto,
  CoderOrganizationMemberDto,
  CoderOrganizationMemberWithUserDto,
  CoderSearchPageQueryDto,
  CreateGroupRequestDto,
  CreateOrganizationRequestDto,
  GroupMembersResponseDto,
  PaginatedMembersResponseDto,
  UpdateOrganizationRequestDto,
  UpdateRolesRequestDto,
  UpdateWorkspaceSharingSettingsRequestDto,
  WorkspaceSharingSettingsDto,
} from '../management/coder-management.dto';
import { CoderOrganizationsService, parseMemberSearch } from '../management/coder-organizations.service';
import {
  type MemberView,
  presentGroup,
  presentGroupMember,
  presentMember,
  presentMemberWithUser,
  presentOrganization,
} from '../management/coder-presenters';
import { UserDirectory } from '../user-directory.service';

const ERROR = { type: CoderResponseDto };
const ORG_PARAM = { name: 'organization', description: 'organization id (uuid) or name' };
const USER_PARAM = { name: 'user', description: 'user id (uuid), username, or `me`' };

function paging(query: CoderSearchPageQueryDto): CoderPage {
  const parsed = parsePagination(query);
  if ('errors' in parsed)
    throw new InvalidError('Query parameters have invalid values.', {
      code: 'INVALID_QUERY',
      fields: parsed.errors,
    });
  return parsed.page;
}

function sharingSettings(mode: string): WorkspaceSharingSettingsDto {
  return {
    sharing_globally_disabled: false,
    sharing_disabled: mode === 'none',
    shareable_workspace_owners: mode,
  };
}

/** Coder's organizations, their members, groups and workspace sharing settings (`/api/v2/organizations`). */
@CoderController('organizations')
export class CoderOrganizationsController {
  constructor(
    private readonly service: CoderOrganizationsService,
    private readonly directory: UserDirectory,
    private readonly authz: AccessPolicy,
    @Optional() private readonly seats?: AiSeats,
  ) {}

  /** Members in Coder's JSON; `has_ai_seat` for exactly the members of this page. */
  private async presentMembers(members: MemberView[]): Promise<CoderOrganizationMemberWithUserDto[]> {
    const holders = (await this.seats?.seatHolders(members.map((member) => member.user.id))) ?? null;
    return members.map((member) => ({
      ...presentMemberWithUser(member),
      has_ai_seat: holders?.has(member.user.id) ?? false,
    }));
  }

  private async user(principal: Principal, ref: string): Promise<User> {
    const user = await this.directory.requireCoderUser(ref, principal);
    await this.authz.require(principal, 'read', userObject(user), { notFound: true });
    return user;
  }

  @Get()
  @Authenticated({ tokenScope: { type: 'organization', action: 'read' } })
  @ApiOperation({ summary: 'Organizations the caller may read' })
  @ApiOkResponse({ type: [CoderOrganizationDto] })
  async list(@CurrentPrincipal() principal: Principal): Promise<CoderOrganizationDto[]> {
    return (await this.service.list(principal)).map(presentOrganization);
  }

  @Post()
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'organization', action: 'create' } })
  @ApiOperation({ summary: 'Create an organization (the caller becomes its administrator)' })
  @ApiCreatedResponse({ type: CoderOrganizationDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateOrganizationRequestDto,
  ): Promise<CoderOrganizationDto> {
    return presentOrganization(
      await this.service.create(principal, {
        name: body.name,
        displayName: body.display_name,
        description: body.description,
        icon: body.icon,
      }),
    );
  }

  @Get(':organization')
  @Authenticated({ tokenScope: { type: 'organization', action: 'read' } })
  @ApiOperation({ summary: 'Get an organization' })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: CoderOrganizationDto })
  @ApiResponse({ status: 404, ...ERROR })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<CoderOrganizationDto> {
    return presentOrganization(await this.service.resolve(principal, ref));
  }

  @Patch(':organization')
  @Authenticated({ tokenScope: { type: 'organization', action: 'update' } })
  @ApiOperation({ summary: 'Update an organization' })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: CoderOrganizationDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Body() body: UpdateOrganizationRequestDto,
  ): Promise<CoderOrganizationDto> {
    const view = await this.service.resolve(principal, ref);
    return presentOrganization(
      await this.service.update(principal, view, {
        name: body.name,
        displayName: body.display_name,
        description: body.description,
        icon: body.icon,
      }),
    );
  }

  @Delete(':organization')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'organization', action: 'delete' } })
  @ApiOperation({ summary: 'Delete an organization (not the default one)' })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: CoderResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<CoderResponseDto> {
    await this.service.delete(principal, await this.service.resolve(principal, ref));
    return { message: 'Organization has been deleted.' };
  }

  // ------------------------------------------------------------------------------- members

  @Get(':organization/members/roles')
  @Authenticated({ tokenScope: { type: 'assign_org_role', action: 'read' } })
  @ApiOperation({
    summary:
      "The organization roles with their permissions here (Coder's getOrganizationRoles / assignableOrgRoles)",
  })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: [CoderAssignableRoleDto] })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async assignableRoles(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<CoderAssignableRoleDto[]> {
    return this.service.assignableRoles(principal, await this.service.resolve(principal, ref));
  }

  @Get(':organization/members')
  @Authenticated({ tokenScope: { type: 'organization_member', action: 'read' } })
  @ApiOperation({
    summary: 'Members of an organization, with their users (`q` filters as paginated-members)',
  })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: [CoderOrganizationMemberWithUserDto] })
  async members(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Query() query: CoderSearchPageQueryDto,
  ): Promise<CoderOrganizationMemberWithUserDto[]> {
    const view = await this.service.resolve(principal, ref);
    const result = await this.service.members(
      principal,
      view,
      parseMemberSearch(query.q ?? ''),
      paging(query),
    );
    return this.presentMembers(result.members);
  }

  @Get(':organization/paginated-members')
  @Authenticated({ tokenScope: { type: 'organization_member', action: 'read' } })
  @ApiOperation({
    summary:
      'Members of an organization, paged, with a total (`q`: text, status:, login_type:, role:, service_account:, user_id:)',
  })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: PaginatedMembersResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  async paginatedMembers(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Query() query: CoderSearchPageQueryDto,
  ): Promise<PaginatedMembersResponseDto> {
    const view = await this.service.resolve(principal, ref);
    const result = await this.service.members(
      principal,
      view,
      parseMemberSearch(query.q ?? ''),
      paging(query),
    );
    return { members: await this.presentMembers(result.members), count: result.count };
  }

  @Post(':organization/members/:user')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'organization_member', action: 'create' } })
  @ApiOperation({ summary: 'Add a user to an organization' })
  @ApiParam(ORG_PARAM)
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderOrganizationMemberDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async addMember(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Param('user') userRef: string,
  ): Promise<CoderOrganizationMemberDto> {
    const view = await this.service.resolve(principal, ref);
    return presentMember(await this.service.addMember(principal, view, await this.user(principal, userRef)));
  }

  @Delete(':organization/members/:user')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'organization_member', action: 'delete' } })
  @ApiOperation({ summary: 'Remove a user from an organization' })
  @ApiParam(ORG_PARAM)
  @ApiParam(USER_PARAM)
  @ApiResponse({ status: 204, description: 'removed' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async removeMember(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Param('user') userRef: string,
  ): Promise<void> {
    const view = await this.service.resolve(principal, ref);
    await this.service.removeMember(principal, view, await this.user(principal, userRef));
  }

  @Put(':organization/members/:user/roles')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'assign_org_role', action: 'assign' } })
  @ApiOperation({ summary: "Set a member's organization roles" })
  @ApiParam(ORG_PARAM)
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderOrganizationMemberDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async setMemberRoles(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Param('user') userRef: string,
    @Body() body: UpdateRolesRequestDto,
  ): Promise<CoderOrganizationMemberDto> {
    const view = await this.service.resolve(principal, ref);
    const user = await this.user(principal, userRef);
    return presentMember(await this.service.setMemberRoles(principal, view, user, body.roles ?? []));
  }

  // ------------------------------------------------------------------------------- groups

  @Get(':organization/groups')
  @Authenticated({ tokenScope: { type: 'group', action: 'read' } })
  @ApiOperation({ summary: 'Groups of an organization (its teams, and the Everyone group)' })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: [CoderGroupDto] })
  async groups(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<CoderGroupDto[]> {
    const view = await this.service.resolve(principal, ref);
    return (await this.service.groups(principal, view)).map(presentGroup);
  }

  @Get(':organization/groups/:groupName')
  @Authenticated({ tokenScope: { type: 'group', action: 'read' } })
  @ApiOperation({ summary: "A group of an organization by name (Coder's getGroup by name)" })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: CoderGroupDto })
  @ApiResponse({ status: 404, ...ERROR })
  async groupByName(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Param('groupName') name: string,
  ): Promise<CoderGroupDto> {
    return presentGroup(await this.namedGroup(principal, ref, name));
  }

  @Get(':organization/groups/:groupName/members')
  @Authenticated({ tokenScope: { type: 'group_member', action: 'read' } })
  @ApiOperation({ summary: 'Members of a group of an organization by name, paged, with a total' })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: GroupMembersResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async groupMembersByName(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Param('groupName') name: string,
    @Query() query: CoderSearchPageQueryDto,
  ): Promise<GroupMembersResponseDto> {
    const group = await this.namedGroup(principal, ref, name);
    const { view, team } = await this.service.resolveGroup(principal, group.id);
    const page = parsePagination(query);
    if ('errors' in page)
      throw new InvalidError('Query parameters have invalid values.', {
        code: 'INVALID_QUERY',
        fields: page.errors,
      });
    const result = await this.service.groupMembers(
      principal,
      view,
      team,
      parseMemberSearch(query.q ?? ''),
      page.page,
    );
    return { users: result.users.map(presentGroupMember), count: result.count };
  }

  private async namedGroup(principal: Principal, ref: string, name: string) {
    const view = await this.service.resolve(principal, ref);
    const group = (await this.service.groups(principal, view)).find(
      (candidate) => candidate.name.toLowerCase() === name.toLowerCase(),
    );
    if (!group) throw new NotFoundError('Resource not found or you do not have access to this resource');
    return group;
  }

  @Post(':organization/groups')
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'group', action: 'create' } })
  @ApiOperation({ summary: 'Create a group (a team of the organization)' })
  @ApiParam(ORG_PARAM)
  @ApiCreatedResponse({ type: CoderGroupDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async createGroup(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Body() body: CreateGroupRequestDto,
  ): Promise<CoderGroupDto> {
    const view = await this.service.resolve(principal, ref);
    return presentGroup(
      await this.service.createGroup(principal, view, {
        name: body.name,
        displayName: body.display_name,
        avatarUrl: body.avatar_url,
        quotaAllowance: body.quota_allowance,
      }),
    );
  }

  // ------------------------------------------------------------------------------- workspace sharing

  @Get(':organization/settings/workspace-sharing')
  @Authenticated({ tokenScope: { type: 'organization', action: 'read' } })
  @ApiOperation({ summary: "The organization's workspace sharing mode" })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: WorkspaceSharingSettingsDto })
  async sharing(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<WorkspaceSharingSettingsDto> {
    const view = await this.service.resolve(principal, ref);
    return sharingSettings(await this.service.sharing(principal, view));
  }

  @Patch(':organization/settings/workspace-sharing')
  @Authenticated({ tokenScope: { type: 'organization', action: 'update' } })
  @ApiOperation({
    summary:
      'Set the workspace sharing mode (`none`, `everyone`, `service_accounts`; deprecated `sharing_disabled`)',
  })
  @ApiParam(ORG_PARAM)
  @ApiOkResponse({ type: WorkspaceSharingSettingsDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async setSharing(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Body() body: UpdateWorkspaceSharingSettingsRequestDto,
  ): Promise<WorkspaceSharingSettingsDto> {
    const view = await this.service.resolve(principal, ref);
    return sharingSettings(
      await this.service.setSharing(principal, view, {
        mode: body.shareable_workspace_owners,
        sharingDisabled: body.sharing_disabled,
      }),
    );
  }
}
