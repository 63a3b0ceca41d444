import { Body, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { GiteaPage } from '../../../api/gitea/gitea-page';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { Authenticated, type AuthenticatedOptions, CurrentPrincipal } from '../../auth/access.decorators';
import type { Principal } from '../../auth/principal';
import { GiteaUserDto, presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import { AdminUsersService } from '../admin-users.service';
import { bindCreateKey } from '../binding';
import { CreateKeyOptionDto, CreateUserOptionDto, EditUserOptionDto, GiteaErrorDto, RenameUserOptionDto } from '../dto/admin-users.dto';
import { GiteaPublicKeyDto, presentPublicKey } from '../public-key.presenter';
import { PublicKeysService } from '../public-keys.service';

const ADMIN: AuthenticatedOptions = { admin: true, scopes: ['admin'] };

/** Gitea `/api/v1/admin/users`: administrator user management. */
@GiteaController('admin/users')
@ApiResponse({ status: 401, type: GiteaErrorDto, description: 'no or bad credentials' })
@ApiResponse({ status: 403, type: GiteaErrorDto, description: 'not a site administrator, token scope, or policy refusal' })
export class AdminUsersController {
  constructor(
    private readonly service: AdminUsersService,
    private readonly keys: PublicKeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @GiteaPaged()
  @Authenticated(ADMIN)
  @ApiOperation({ summary: 'Search users according to filter conditions' })
  @ApiQuery({ name: 'source_id', required: false, type: 'integer' })
  @ApiQuery({ name: 'login_name', required: false })
  @ApiQuery({ name: 'q', required: false, description: 'username, full name or email' })
  @ApiQuery({ name: 'sort', required: false, enum: ['name', 'created', 'updated', 'id'] })
  @ApiQuery({ name: 'order', required: false, enum: ['asc', 'desc'] })
  @ApiQuery({ name: 'visibility', required: false, enum: ['public', 'limited', 'private'] })
  @ApiQuery({ name: 'is_active', required: false, type: 'boolean' })
  @ApiQuery({ name: 'is_admin', required: false, type: 'boolean' })
  @ApiQuery({ name: 'is_restricted', required: false, type: 'boolean' })
  @ApiQuery({ name: 'is_2fa_enabled', required: false, type: 'boolean' })
  @ApiQuery({ name: 'is_prohibit_login', required: false, type: 'boolean' })
  @ApiQuery({ name: 'page', required: false, type: 'integer' })
  @ApiQuery({ name: 'limit', required: false, type: 'integer' })
  @ApiOkResponse({ type: [GiteaUserDto] })
  @ApiResponse({ status: 422, type: GiteaErrorDto, description: 'invalid sort, order or visibility' })
  async search(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>): Promise<GiteaPage<GiteaUserDto>> {
    const { users, total, paging } = await this.service.search(query);
    return new GiteaPage(
      users.map((user) => presentGiteaUser(user, principal.user, this.config.publicUrl)),
      total,
      paging,
    );
  }

  @Post()
  @Authenticated(ADMIN)
  @ApiOperation({ summary: 'Create a user' })
  @ApiBody({ type: CreateUserOptionDto })
  @ApiCreatedResponse({ type: GiteaUserDto, description: 'X-Service-Warning when the email domain is not allowed' })
  @ApiResponse({ status: 400, type: GiteaErrorDto, description: 'password policy' })
  @ApiResponse({ status: 422, type: GiteaErrorDto, description: 'validation, name, email or duplicate' })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GiteaUserDto> {
    const { user, warning } = await this.service.create(principal.user, body);
    if (warning) res.setHeader('X-Service-Warning', warning);
    return presentGiteaUser(user, principal.user, this.config.publicUrl);
  }

  @Patch(':username')
  @Authenticated(ADMIN)
  @ApiOperation({ summary: 'Edit an existing user' })
  @ApiBody({ type: EditUserOptionDto })
  @ApiOkResponse({ type: GiteaUserDto })
  @ApiResponse({ status: 400, type: GiteaErrorDto, description: 'password, email or last administrator' })
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  @ApiResponse({ status: 422, type: GiteaErrorDto })
  async edit(@CurrentPrincipal() principal: Principal, @Param('username') username: string, @Body() body: unknown): Promise<GiteaUserDto> {
    const target = await this.service.requireAccount(username);
    const user = await this.service.edit(principal.user, target, body);
    return presentGiteaUser(user, principal.user, this.config.publicUrl);
  }

  @Delete(':username')
  @HttpCode(204)
  @Authenticated(ADMIN)
  @ApiOperation({ summary: 'Delete a user' })
  @ApiQuery({ name: 'purge', required: false, type: 'boolean', description: 'remove the user completely' })
  @ApiNoContentResponse()
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  @ApiResponse({ status: 422, type: GiteaErrorDto, description: 'organization, still owns resources, last administrator' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('username') username: string,
    @Query('purge') purge: unknown,
  ): Promise<void> {
    const target = await this.service.requireAccount(username);
    await this.service.delete(principal.user, target, purge);
  }

  @Post(':username/rename')
  @HttpCode(204)
  @Authenticated(ADMIN)
  @ApiOperation({ summary: 'Rename a user' })
  @ApiBody({ type: RenameUserOptionDto })
  @ApiNoContentResponse()
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  @ApiResponse({ status: 422, type: GiteaErrorDto })
  async rename(@Param('username') username: string, @Body() body: unknown): Promise<void> {
    const target = await this.service.requireAccount(username);
    await this.service.rename(target, body);
  }

  @Post(':username/keys')
  @Authenticated(ADMIN)
  @ApiOperation({ summary: 'Add a public key on behalf of a user' })
  @ApiBody({ type: CreateKeyOptionDto })
  @ApiCreatedResponse({ type: GiteaPublicKeyDto })
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  @ApiResponse({ status: 422, type: GiteaErrorDto })
  async addKey(
    @CurrentPrincipal() principal: Principal,
    @Param('username') username: string,
    @Body() body: unknown,
  ): Promise<GiteaPublicKeyDto> {
    const target = await this.service.requireAccount(username);
    const { title, key } = bindCreateKey(body);
    this.service.assertIndividual(target);
    const saved = await this.keys.add(target, title, key);
    return presentPublicKey(saved, principal.user, this.config.publicUrl);
  }

  @Delete(':username/keys/:id')
  @HttpCode(204)
  @Authenticated(ADMIN)
  @ApiOperation({ summary: "Delete a user's public key" })
  @ApiNoContentResponse()
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  async deleteKey(@Param('username') username: string, @Param('id') id: string): Promise<void> {
    const target = await this.service.requireAccount(username);
    await this.keys.remove(target, id);
  }
}
