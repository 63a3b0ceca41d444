import { Delete, Get, HttpCode, Inject, Param, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { ForbiddenError, NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaPageQueryDto } from '../dto/gitea-organizations.dto';
import type { User } from '../entities/user.entity';
import { OrganizationsService } from '../organizations.service';
import { GiteaUserDto, presentGiteaUser } from '../presenters/gitea-user.presenter';
import { UsersService } from '../users.service';
import { UserBlocksService } from './user-blocks.service';

const ERROR = {
  schema: { type: 'object', properties: { message: { type: 'string' }, url: { type: 'string' } } },
};

/** Gitea's user blocking: `/user/blocks` for oneself, `/orgs/{org}/blocks` for an organization's owners. */
@GiteaController('')
export class GiteaBlocksController {
  constructor(
    private readonly blocks: UserBlocksService,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private async account(username: string): Promise<User> {
    const account = await this.users.findAccountByName(username);
    if (!account)
      throw new NotFoundError(`user does not exist [uid: 0, name: ${username}]`, { code: 'USER_NOT_FOUND' });
    return account;
  }

  /** `{org}` for its owners (and site administrators); others 403, unknown 404. */
  private async ownedOrganization(principal: Principal, name: string): Promise<User> {
    const organization = await this.organizations.findByName(name);
    if (!organization) throw new NotFoundError('GetOrgByName', { code: 'ORG_NOT_FOUND' });
    const owners = await this.organizations.ownerIdsOf(organization.id);
    if (!principal.user.isAdmin && !owners.includes(principal.user.id))
      throw new ForbiddenError('must be an organization owner', 'permission', { code: 'NOT_ORG_OWNER' });
    return organization;
  }

  private async page(
    blocker: User,
    principal: Principal,
    query: GiteaPageQueryDto,
  ): Promise<GiteaPage<GiteaUserDto>> {
    const paging = giteaPaging(query);
    const { items, total } = await this.blocks.list(blocker, paging);
    return new GiteaPage(
      items.map((user) => presentGiteaUser(user, principal.user, this.config.publicUrl)),
      total,
      paging,
    );
  }

  @Get('user/blocks')
  @GiteaPaged()
  @Authenticated({ scopes: ['user'] })
  @ApiOperation({ summary: 'Users the caller blocks' })
  @ApiOkResponse({ type: [GiteaUserDto] })
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: GiteaPageQueryDto,
  ): Promise<GiteaPage<GiteaUserDto>> {
    return this.page(principal.user, principal, query);
  }

  @Get('user/blocks/:username')
  @HttpCode(204)
  @Authenticated({ scopes: ['user'] })
  @ApiOperation({ summary: 'Whether the caller blocks a user (204 yes, 404 no)' })
  @ApiNoContentResponse({ description: 'blocked' })
  @ApiResponse({ status: 404, ...ERROR })
  async check(@CurrentPrincipal() principal: Principal, @Param('username') username: string): Promise<void> {
    if (!(await this.blocks.isBlocked(principal.user, await this.account(username))))
      throw new NotFoundError('user is not blocked', { code: 'NOT_BLOCKED' });
  }

  @Put('user/blocks/:username')
  @HttpCode(204)
  @Authenticated({ scopes: ['user'] })
  @ApiOperation({ summary: 'Block a user' })
  @ApiQuery({ name: 'note', required: false })
  @ApiNoContentResponse({ description: 'blocked' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async block(
    @CurrentPrincipal() principal: Principal,
    @Param('username') username: string,
    @Query('note') note?: string,
  ): Promise<void> {
    await this.blocks.block(
      principal.user,
      await this.account(username),
      typeof note === 'string' ? note : '',
    );
  }

  @Delete('user/blocks/:username')
  @HttpCode(204)
  @Authenticated({ scopes: ['user'] })
  @ApiOperation({ summary: 'Unblock a user' })
  @ApiNoContentResponse({ description: 'unblocked' })
  @ApiResponse({ status: 400, ...ERROR })
  async unblock(
    @CurrentPrincipal() principal: Principal,
    @Param('username') username: string,
  ): Promise<void> {
    await this.blocks.unblock(principal.user, await this.account(username));
  }

  @Get('orgs/:org/blocks')
  @GiteaPaged()
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Users an organization blocks (its owners)' })
  @ApiOkResponse({ type: [GiteaUserDto] })
  async orgList(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Query() query: GiteaPageQueryDto,
  ): Promise<GiteaPage<GiteaUserDto>> {
    return this.page(await this.ownedOrganization(principal, org), principal, query);
  }

  @Get('orgs/:org/blocks/:username')
  @HttpCode(204)
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Whether an organization blocks a user (204 yes, 404 no)' })
  @ApiNoContentResponse({ description: 'blocked' })
  @ApiResponse({ status: 404, ...ERROR })
  async orgCheck(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Param('username') username: string,
  ): Promise<void> {
    const organization = await this.ownedOrganization(principal, org);
    if (!(await this.blocks.isBlocked(organization, await this.account(username))))
      throw new NotFoundError('user is not blocked', { code: 'NOT_BLOCKED' });
  }

  @Put('orgs/:org/blocks/:username')
  @HttpCode(204)
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Block a user from an organization (its owners)' })
  @ApiQuery({ name: 'note', required: false })
  @ApiNoContentResponse({ description: 'blocked' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async orgBlock(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Param('username') username: string,
    @Query('note') note?: string,
  ): Promise<void> {
    const organization = await this.ownedOrganization(principal, org);
    await this.blocks.block(organization, await this.account(username), typeof note === 'string' ? note : '');
  }

  @Delete('orgs/:org/blocks/:username')
  @HttpCode(204)
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Unblock a user from an organization (its owners)' })
  @ApiNoContentResponse({ description: 'unblocked' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async orgUnblock(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Param('username') username: string,
  ): Promise<void> {
    const organization = await this.ownedOrganization(principal, org);
    await this.blocks.unblock(organization, await this.account(username));
  }
}
