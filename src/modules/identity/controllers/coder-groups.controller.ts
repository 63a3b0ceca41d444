import { Body, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { parsePagination } from '../../../api/coder/coder-search-query';
import { InvalidError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import {
  CoderGroupDto,
  CoderSearchPageQueryDto,
  GroupMembersResponseDto,
  PatchGroupRequestDto,
} from '../management/coder-management.dto';
import { CoderOrganizationsService, parseMemberSearch } from '../management/coder-organizations.service';
import { presentGroup, presentGroupMember } from '../management/coder-presenters';

const ERROR = { type: CoderResponseDto };
const GROUP_PARAM = {
  name: 'group',
  description: 'group id (uuid); the Everyone group has its organization id',
};

/** Coder's groups by id (`/api/v2/groups/{group}`): devplane teams, plus each organization's Everyone group. */
@CoderController('groups')
export class CoderGroupsController {
  constructor(private readonly service: CoderOrganizationsService) {}

  @Get()
  @Authenticated({ tokenScope: { type: 'group', action: 'read' } })
  @ApiOperation({
    summary:
      "Groups of every organization the caller may read (Coder's getGroups; `organization`: id or name)",
  })
  @ApiOkResponse({ type: [CoderGroupDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query('organization') organization?: string,
  ): Promise<CoderGroupDto[]> {
    const views = organization
      ? [await this.service.resolve(principal, organization)]
      : await this.service.list(principal);
    const out: CoderGroupDto[] = [];
    for (const view of views) out.push(...(await this.service.groups(principal, view)).map(presentGroup));
    return out;
  }

  @Get(':group')
  @Authenticated({ tokenScope: { type: 'group', action: 'read' } })
  @ApiOperation({ summary: 'Get a group with its members' })
  @ApiParam(GROUP_PARAM)
  @ApiOkResponse({ type: CoderGroupDto })
  @ApiResponse({ status: 404, ...ERROR })
  async get(@CurrentPrincipal() principal: Principal, @Param('group') id: string): Promise<CoderGroupDto> {
    const { view, team } = await this.service.resolveGroup(principal, id);
    return presentGroup(await this.service.group(view, team));
  }

  @Patch(':group')
  @Authenticated({ tokenScope: { type: 'group', action: 'update' } })
  @ApiOperation({
    summary: 'Update a group: name, display name, avatar, quota, `add_users` / `remove_users`',
  })
  @ApiParam(GROUP_PARAM)
  @ApiOkResponse({ type: CoderGroupDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async patch(
    @CurrentPrincipal() principal: Principal,
    @Param('group') id: string,
    @Body() body: PatchGroupRequestDto,
  ): Promise<CoderGroupDto> {
    const { view, team } = await this.service.resolveGroup(principal, id);
    return presentGroup(
      // Coder's PatchGroupRequest: `name` is `omitempty` ("" = unchanged) and the others are Go pointers
      // (null = unchanged); the Group page's addMember/removeMember send exactly those.
      await this.service.patchGroup(principal, view, team, {
        name: body.name || undefined,
        displayName: body.display_name ?? undefined,
        avatarUrl: body.avatar_url ?? undefined,
        quotaAllowance: body.quota_allowance ?? undefined,
        addUsers: body.add_users ?? [],
        removeUsers: body.remove_users ?? [],
      }),
    );
  }

  @Delete(':group')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'group', action: 'delete' } })
  @ApiOperation({ summary: 'Delete a group (not Everyone, not the Owners team)' })
  @ApiParam(GROUP_PARAM)
  @ApiOkResponse({ type: CoderResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('group') id: string,
  ): Promise<CoderResponseDto> {
    const { view, team } = await this.service.resolveGroup(principal, id);
    await this.service.deleteGroup(principal, view, team);
    return { message: 'Successfully deleted group!' };
  }

  @Get(':group/members')
  @Authenticated({ tokenScope: { type: 'group_member', action: 'read' } })
  @ApiOperation({
    summary:
      'Members of a group, paged, with a total (`q`: text, status:, login_type:, role:, service_account:)',
  })
  @ApiParam(GROUP_PARAM)
  @ApiOkResponse({ type: GroupMembersResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  async members(
    @CurrentPrincipal() principal: Principal,
    @Param('group') id: string,
    @Query() query: CoderSearchPageQueryDto,
  ): Promise<GroupMembersResponseDto> {
    const { view, team } = await this.service.resolveGroup(principal, id);
    const filters = parseMemberSearch(query.q ?? '');
    const page = parsePagination(query);
    if ('errors' in page)
      throw new InvalidError('Query parameters have invalid values.', {
        code: 'INVALID_QUERY',
        fields: page.errors,
      });
    const result = await this.service.groupMembers(principal, view, team, filters, page.page);
    return { users: result.users.map(presentGroupMember), count: result.count };
  }
}
