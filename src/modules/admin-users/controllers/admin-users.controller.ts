import { Body, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { goTime } from '../../../api/gitea/gitea-binding-rules';
import { GiteaErrorDto } from '../../../api/gitea/gitea-error.dto';
import { GiteaPage } from '../../../api/gitea/gitea-page';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import {
  Authenticated,
  type AuthenticatedOptions,
  CurrentPrincipal,
} from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaUserDto, presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import type { User } from '../../identity/entities/user.entity';
import { AdminTarget, ResolvesAdminTarget } from '../admin-target.interceptor';
import { AdminUsersService } from '../admin-users.service';
import { CreateKeyOptionDto } from '../dto/create-key-option.dto';
import { CreateUserOptionDto } from '../dto/create-user-option.dto';
import { DeleteUserQueryDto } from '../dto/delete-user-query.dto';
import { EditUserOptionDto } from '../dto/edit-user-option.dto';
import { RenameUserOptionDto } from '../dto/rename-user-option.dto';
import { SearchUsersQueryDto } from '../dto/search-users-query.dto';
import { GiteaPublicKeyDto, presentPublicKey } from '../public-key.presenter';
import { PublicKeysService } from '../public-keys.service';

/** Site administrators; tokens need `read:admin` (GET) or `write:admin` (everything else). */
const ADMIN: AuthenticatedOptions = { admin: true, scopes: ['admin'] };

/** Gitea `/api/v1/admin/users`: administrator user management. */
@GiteaController('admin/users')
@ApiResponse({ status: 401, type: GiteaErrorDto, description: 'no or bad credentials' })
@ApiResponse({
  status: 403,
  type: GiteaErrorDto,
  description: 'not a site administrator, token scope, or policy refusal',
})
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
  @ApiOkResponse({ type: [GiteaUserDto] })
  @ApiResponse({ status: 422, type: GiteaErrorDto, description: 'invalid sort, order or visibility' })
  async search(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SearchUsersQueryDto,
  ): Promise<GiteaPage<GiteaUserDto>> {
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
  @ApiCreatedResponse({
    type: GiteaUserDto,
    description: 'X-Service-Warning when the email domain is not allowed',
  })
  @ApiResponse({ status: 400, type: GiteaErrorDto, description: 'password policy' })
  @ApiResponse({ status: 422, type: GiteaErrorDto, description: 'validation, name, email or duplicate' })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateUserOptionDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GiteaUserDto> {
    const createdAt = body.created_at === undefined ? undefined : goTime(body.created_at);
    const { user, warning } = await this.service.create(principal.user, { ...body, createdAt });
    if (warning) res.setHeader('X-Service-Warning', warning);
    return presentGiteaUser(user, principal.user, this.config.publicUrl);
  }

  @Patch(':username')
  @Authenticated(ADMIN)
  @ResolvesAdminTarget()
  @ApiOperation({ summary: 'Edit an existing user' })
  @ApiOkResponse({ type: GiteaUserDto })
  @ApiResponse({ status: 400, type: GiteaErrorDto, description: 'password, email or last administrator' })
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  @ApiResponse({ status: 422, type: GiteaErrorDto })
  async edit(
    @CurrentPrincipal() principal: Principal,
    @AdminTarget() target: User,
    @Body() body: EditUserOptionDto,
  ): Promise<GiteaUserDto> {
    const user = await this.service.edit(principal.user, target, body);
    return presentGiteaUser(user, principal.user, this.config.publicUrl);
  }

  @Delete(':username')
  @HttpCode(204)
  @Authenticated(ADMIN)
  @ResolvesAdminTarget()
  @ApiOperation({ summary: 'Delete a user' })
  @ApiNoContentResponse()
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  @ApiResponse({
    status: 422,
    type: GiteaErrorDto,
    description: 'organization, still owns resources, last administrator',
  })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @AdminTarget() target: User,
    @Query() query: DeleteUserQueryDto,
  ): Promise<void> {
    await this.service.delete(principal.user, target, query.purge ?? false);
  }

  @Post(':username/rename')
  @HttpCode(204)
  @Authenticated(ADMIN)
  @ResolvesAdminTarget()
  @ApiOperation({ summary: 'Rename a user' })
  @ApiNoContentResponse()
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  @ApiResponse({ status: 422, type: GiteaErrorDto })
  async rename(@AdminTarget() target: User, @Body() body: RenameUserOptionDto): Promise<void> {
    await this.service.rename(target, body.new_username);
  }

  @Post(':username/keys')
  @Authenticated(ADMIN)
  @ResolvesAdminTarget()
  @ApiOperation({ summary: 'Add a public key on behalf of a user' })
  @ApiCreatedResponse({ type: GiteaPublicKeyDto })
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  @ApiResponse({ status: 422, type: GiteaErrorDto })
  async addKey(
    @CurrentPrincipal() principal: Principal,
    @AdminTarget() target: User,
    @Body() body: CreateKeyOptionDto,
  ): Promise<GiteaPublicKeyDto> {
    this.service.assertIndividual(target);
    const saved = await this.keys.add(target, body.title, body.key);
    return presentPublicKey(saved, principal.user, this.config.publicUrl);
  }

  @Delete(':username/keys/:id')
  @HttpCode(204)
  @Authenticated(ADMIN)
  @ResolvesAdminTarget()
  @ApiOperation({ summary: "Delete a user's public key" })
  @ApiNoContentResponse()
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  async deleteKey(@AdminTarget() target: User, @Param('id') id: string): Promise<void> {
    await this.keys.remove(target, id);
  }
}
