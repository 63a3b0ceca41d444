import { Body, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { giteaPaging, GiteaPage } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { DocumentPathParams } from '../../../api/path-params.decorator';
import { ForbiddenError, NotFoundError } from '../../../platform/errors/domain-error';
import type { User } from '../../identity/entities/user.entity';
import { OrganizationsService } from '../../identity/organizations.service';
import { UsersService } from '../../identity/users.service';
import { GiteaHookDto, presentGiteaHook, createHookInput, editHookInput } from './gitea-hook.presenter';
import type { Webhook } from './webhook.entity';
import { CreateHookOptionDto, EditHookOptionDto, HookListQueryDto } from './webhooks.dto';
import { WebhooksService } from './webhooks.service';

const ERROR = { description: 'Gitea error `{message, url}`' };

/**
 * Gitea's organization webhooks (routers/api/v1/org/hook.go): they fire for every repository the
 * organization owns. `reqToken`, then the organization (404 when unknown or hidden from the caller),
 * then `reqOrgOwnership` (403 `Must be an organization owner`; site administrators pass); keys need
 * the `organization` scope (read for GET, write otherwise).
 */
@DocumentPathParams()
@GiteaController('orgs/:org/hooks')
export class GiteaOrgHooksController {
  constructor(
    private readonly hooks: WebhooksService,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
  ) {}

  private async owned(name: string, user: User): Promise<{ ownerId: string }> {
    const org = await this.users.findAccountByName(name);
    const hidden = () =>
      new NotFoundError('GetOrgByName', {
        code: 'ORG_NOT_FOUND',
        detail: `org does not exist [id: 0, name: ${name}]`,
      });
    if (!org || org.type !== 'organization') throw hidden();
    if (user.isAdmin) return { ownerId: org.id };
    const membership = (await this.organizations.membershipsOf(user.id)).find(
      (m) => m.organizationId === org.id,
    );
    if (!membership && org.visibility === 'private') throw hidden();
    if (!membership?.isOwner)
      throw new ForbiddenError('Must be an organization owner', 'permission', { code: 'ORG_OWNER_REQUIRED' });
    return { ownerId: org.id };
  }

  private present(hook: Webhook): GiteaHookDto {
    return presentGiteaHook(hook, this.hooks.secretsOf(hook).authorization);
  }

  @Get()
  @GiteaPaged()
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: "List an organization's webhooks" })
  @ApiOkResponse({ type: [GiteaHookDto] })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Query() query: HookListQueryDto,
  ): Promise<GiteaPage<GiteaHookDto>> {
    const scope = await this.owned(org, principal.user);
    const paging = giteaPaging(query);
    const { items, total } = await this.hooks.page(scope, paging.offset, paging.limit);
    return new GiteaPage(
      items.map((hook) => this.present(hook)),
      total,
      paging,
    );
  }

  @Post()
  @HttpCode(201)
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Create an organization hook (type `gitea` or `gogs`)' })
  @ApiCreatedResponse({ type: GiteaHookDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Body() body: CreateHookOptionDto,
  ): Promise<GiteaHookDto> {
    const scope = await this.owned(org, principal.user);
    return this.present(await this.hooks.create(scope, createHookInput(body)));
  }

  @Get(':id')
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Get an organization hook' })
  @ApiOkResponse({ type: GiteaHookDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Param('id') id: string,
  ): Promise<GiteaHookDto> {
    return this.present(await this.hooks.require(await this.owned(org, principal.user), id));
  }

  @Patch(':id')
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Edit an organization hook' })
  @ApiOkResponse({ type: GiteaHookDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async edit(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Param('id') id: string,
    @Body() body: EditHookOptionDto,
  ): Promise<GiteaHookDto> {
    const scope = await this.owned(org, principal.user);
    return this.present(await this.hooks.edit(scope, id, editHookInput(body)));
  }

  @Delete(':id')
  @HttpCode(204)
  @Authenticated({ scopes: ['organization'] })
  @ApiOperation({ summary: 'Delete an organization hook' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('org') org: string,
    @Param('id') id: string,
  ): Promise<void> {
    await this.hooks.delete(await this.owned(org, principal.user), id);
  }
}
