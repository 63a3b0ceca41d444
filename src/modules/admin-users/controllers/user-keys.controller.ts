import { Body, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
} from '@nestjs/swagger';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { GiteaErrorDto } from '../../../api/gitea/gitea-error.dto';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import { GiteaPage, giteaPaging } from '../../../api/gitea/gitea-page';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import {
  Authenticated,
  type AuthenticatedOptions,
  CurrentPrincipal,
} from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { UserDirectory } from '../../identity/user-directory.service';
import { CreateKeyOptionDto } from '../dto/create-key-option.dto';
import { ListPublicKeysQueryDto } from '../dto/list-public-keys-query.dto';
import { GiteaPublicKeyDto, presentPublicKey } from '../public-key.presenter';
import { PublicKeysService } from '../public-keys.service';

const USER: AuthenticatedOptions = { scopes: ['user'] };

/** Gitea's own-key routes (`/user/keys`) and the public listing `/users/{username}/keys`. */
@GiteaController('')
@ApiResponse({ status: 401, type: GiteaErrorDto })
@ApiResponse({ status: 403, type: GiteaErrorDto })
export class UserKeysController {
  constructor(
    private readonly keys: PublicKeysService,
    private readonly directory: UserDirectory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('user/keys')
  @GiteaPaged()
  @Authenticated(USER)
  @ApiOperation({ summary: "List the authenticated user's public keys" })
  @ApiOkResponse({ type: [GiteaPublicKeyDto] })
  async listOwn(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListPublicKeysQueryDto,
  ): Promise<GiteaPage<GiteaPublicKeyDto>> {
    const paging = giteaPaging(query);
    const fingerprint = query.fingerprint !== '' ? query.fingerprint : undefined;
    const [rows, total] = await this.keys.list(principal.user, fingerprint, paging.offset, paging.limit);
    return new GiteaPage(
      rows.map((key) => presentPublicKey(key, principal.user, this.config.publicUrl)),
      total,
      paging,
    );
  }

  @Post('user/keys')
  @Authenticated(USER)
  @ApiOperation({ summary: 'Create a public key' })
  @ApiCreatedResponse({ type: GiteaPublicKeyDto })
  @ApiResponse({ status: 422, type: GiteaErrorDto })
  async addOwn(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateKeyOptionDto,
  ): Promise<GiteaPublicKeyDto> {
    const saved = await this.keys.add(principal.user, body.title, body.key);
    return presentPublicKey(saved, principal.user, this.config.publicUrl);
  }

  @Get('user/keys/:id')
  @Authenticated(USER)
  @ApiOperation({ summary: 'Get a public key' })
  @ApiOkResponse({ type: GiteaPublicKeyDto })
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  async getOwn(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
  ): Promise<GiteaPublicKeyDto> {
    const key = await this.keys.requireOwned(principal.user, id);
    return presentPublicKey(key, principal.user, this.config.publicUrl);
  }

  @Delete('user/keys/:id')
  @HttpCode(204)
  @Authenticated(USER)
  @ApiOperation({ summary: 'Delete a public key' })
  @ApiNoContentResponse()
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  async deleteOwn(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.keys.remove(principal.user, id);
  }

  @Get('users/:username/keys')
  @GiteaPaged()
  @Authenticated(USER)
  @ApiOperation({ summary: "List the given user's public keys" })
  @ApiOkResponse({ type: [GiteaPublicKeyDto] })
  @ApiResponse({ status: 404, type: GiteaErrorDto })
  async listOfUser(
    @CurrentPrincipal() principal: Principal,
    @Param('username') username: string,
    @Query() query: ListPublicKeysQueryDto,
  ): Promise<GiteaPage<GiteaPublicKeyDto>> {
    const owner = await this.directory.requireGiteaUser(username);
    const paging = giteaPaging(query);
    const fingerprint = query.fingerprint !== '' ? query.fingerprint : undefined;
    const [rows, total] = await this.keys.list(owner, fingerprint, paging.offset, paging.limit);
    return new GiteaPage(
      rows.map((key) => presentPublicKey(key, principal.user, this.config.publicUrl)),
      total,
      paging,
    );
  }
}
