import { Body, Delete, Get, HttpCode, Optional, Param, Post, Put, Query } from '@nestjs/common';
import { AiSeats } from '../../../platform/ports/ai-seats';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { parsePagination } from '../../../api/coder/coder-search-query';
import { InvalidError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import { AccessPolicy, userObject } from '../../../api/access/access-policy';
import type { Principal } from '../../../api/access/principal';
import type { User } from '../entities/user.entity';
import {
  CoderSearchPageQueryDto,
  CreateUserRequestDto,
  GetUsersResponseDto,
  OidcClaimsResponseDto,
  UpdateRolesRequestDto,
  UpdateUserProfileRequestDto,
  UserRolesDto,
} from '../management/coder-management.dto';
import { CoderAssignableRoleDto, CoderOrganizationDto } from '../management/coder-management.dto';
import { CoderOrganizationsService } from '../management/coder-organizations.service';
import { presentOrganization } from '../management/coder-presenters';
import { CoderUsersService, parseUserSearch } from '../management/coder-users.service';
import { OidcClaimsService } from '../management/oidc-claims.service';
import { OrganizationsService } from '../organizations.service';
import { CoderUserDto, presentCoderUser } from '../presenters/coder-user.presenter';
import { UserDirectory } from '../user-directory.service';

const ERROR = { type: CoderResponseDto };
const USER_PARAM = { name: 'user', description: 'user id (uuid), username, or `me`' };

/** Coder's users (`/api/v2/users`): the user list and search, creation (service accounts too), status, profile, roles. */
@CoderController('users')
export class CoderUsersController {
  constructor(
    private readonly directory: UserDirectory,
    private readonly organizations: OrganizationsService,
    private readonly authz: AccessPolicy,
    private readonly management: CoderUsersService,
    private readonly claims: OidcClaimsService,
    private readonly coderOrganizations: CoderOrganizationsService,
    @Optional() private readonly seats?: AiSeats,
  ) {}

  // Before `:user`: `roles` is not a user name here (Coder's route order).
  @Get('roles')
  @Authenticated({ tokenScope: { type: 'assign_role', action: 'read' } })
  @ApiOperation({
    summary: "The site roles an administrator can assign (Coder's getRoles / AssignableSiteRoles)",
  })
  @ApiOkResponse({ type: [CoderAssignableRoleDto] })
  @ApiResponse({ status: 403, type: CoderResponseDto })
  assignableRoles(@CurrentPrincipal() principal: Principal): Promise<CoderAssignableRoleDto[]> {
    return this.management.assignableSiteRoles(principal);
  }

  @Get(':user/organizations')
  @Authenticated({ tokenScope: { type: 'organization', action: 'read' } })
  @ApiOperation({ summary: "The organizations a user is a member of (Coder's getMyOrganizations)" })
  @ApiOkResponse({ type: [CoderOrganizationDto] })
  @ApiResponse({ status: 404, type: CoderResponseDto })
  async organizationsOf(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
  ): Promise<CoderOrganizationDto[]> {
    const user = await this.readable(principal, ref);
    const member = new Set(
      (await this.organizations.membershipsOf(user.id)).map((membership) => membership.organizationUuid),
    );
    return (await this.coderOrganizations.list(principal))
      .filter((view) => member.has(view.account.uuid))
      .map(presentOrganization);
  }

  /** Users in Coder's JSON; `has_ai_seat` is computed for exactly these users (the AI seat rule). */
  private async presentAll(users: User[]): Promise<CoderUserDto[]> {
    const holders = (await this.seats?.seatHolders(users.map((user) => user.id))) ?? null;
    return Promise.all(
      users.map(async (user) =>
        presentCoderUser(
          user,
          await this.organizations.membershipsOf(user.id),
          holders?.has(user.id) ?? false,
        ),
      ),
    );
  }

  private async present(user: User): Promise<CoderUserDto> {
    return (await this.presentAll([user]))[0]!;
  }

  /** `{user}` for reads: unknown users and users the caller may not read are both 404. */
  private async readable(principal: Principal, ref: string): Promise<User> {
    const user = await this.directory.requireCoderUser(ref, principal);
    await this.authz.require(principal, 'read', userObject(user), { notFound: true });
    return user;
  }

  @Get()
  @Authenticated({ tokenScope: { type: 'user', action: 'read' } })
  @ApiOperation({
    summary:
      'List users (`q`: status:, role:, login_type:, service_account:, created_/last_seen_ before/after, text)',
  })
  @ApiOkResponse({ type: GetUsersResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: CoderSearchPageQueryDto,
  ): Promise<GetUsersResponseDto> {
    const filters = parseUserSearch(query.q ?? '');
    const paging = parsePagination(query);
    if ('errors' in paging)
      throw new InvalidError('Query parameters have invalid values.', {
        code: 'INVALID_QUERY',
        fields: paging.errors,
      });
    const { users, count } = await this.management.search(principal, filters, paging.page);
    return { users: await this.presentAll(users), count };
  }

  @Post()
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'user', action: 'create' } })
  @ApiOperation({ summary: 'Create a user or a service account (`service_account: true`)' })
  @ApiCreatedResponse({ type: CoderUserDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateUserRequestDto,
  ): Promise<CoderUserDto> {
    const user = await this.management.create(principal, {
      username: body.username,
      email: body.email ?? '',
      name: body.name ?? '',
      password: body.password ?? '',
      loginType: body.login_type ?? '',
      userStatus: body.user_status,
      organizationIds: body.organization_ids?.map((id) => id.toLowerCase()),
      serviceAccount: body.service_account ?? false,
    });
    return this.present(user);
  }

  @Get('oidc-claims')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({
    summary: "The caller's merged OIDC claims (userinfo over ID token); `{}` when none stored",
  })
  @ApiOkResponse({ type: OidcClaimsResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  async oidcClaims(@CurrentPrincipal() principal: Principal): Promise<OidcClaimsResponseDto> {
    return { claims: (await this.claims.of(principal.user)).merged_claims };
  }

  @Get(':user')
  @Authenticated({ tokenScope: { type: 'user', action: 'read' } })
  @ApiOperation({ summary: 'Get a user by id, username or "me"' })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderUserDto })
  async get(@CurrentPrincipal() principal: Principal, @Param('user') ref: string): Promise<CoderUserDto> {
    // Users the caller may not read are reported as missing (Coder answers 404 for both).
    return this.present(await this.readable(principal, ref));
  }

  @Delete(':user')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'delete' } })
  @ApiOperation({
    summary: 'Delete a user (not yourself, not one who still owns workspaces or repositories)',
  })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderResponseDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 417, ...ERROR })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
  ): Promise<CoderResponseDto> {
    await this.management.delete(principal, await this.readable(principal, ref));
    return { message: 'User has been deleted!' };
  }

  @Put(':user/status/suspend')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'update' } })
  @ApiOperation({ summary: 'Suspend a user account' })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderUserDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async suspend(@CurrentPrincipal() principal: Principal, @Param('user') ref: string): Promise<CoderUserDto> {
    return this.present(
      await this.management.setStatus(principal, await this.readable(principal, ref), 'suspended'),
    );
  }

  @Put(':user/status/activate')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'update' } })
  @ApiOperation({ summary: 'Activate a user account' })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderUserDto })
  @ApiResponse({ status: 403, ...ERROR })
  async activate(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
  ): Promise<CoderUserDto> {
    return this.present(
      await this.management.setStatus(principal, await this.readable(principal, ref), 'active'),
    );
  }

  @Put(':user/profile')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'update_personal' } })
  @ApiOperation({ summary: 'Update a user profile (username, name)' })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderUserDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async profile(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: UpdateUserProfileRequestDto,
  ): Promise<CoderUserDto> {
    const user = await this.readable(principal, ref);
    return this.present(
      await this.management.updateProfile(principal, user, { username: body.username, name: body.name }),
    );
  }

  @Get(':user/roles')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({ summary: "A user's site roles and organization roles" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: UserRolesDto })
  async roles(@CurrentPrincipal() principal: Principal, @Param('user') ref: string): Promise<UserRolesDto> {
    return this.management.roles(principal, await this.readable(principal, ref));
  }

  @Put(':user/roles')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'assign_role', action: 'assign' } })
  @ApiOperation({ summary: "Set a user's site roles (owner, auditor, template-admin, user-admin)" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: CoderUserDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async setRoles(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: UpdateRolesRequestDto,
  ): Promise<CoderUserDto> {
    const user = await this.readable(principal, ref);
    return this.present(await this.management.setRoles(principal, user, body.roles ?? []));
  }
}
