import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
} from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { GiteaController } from '../../../api/gitea/gitea-controller.decorator';
import { GiteaPage, giteaPaging } from '../../../api/gitea/gitea-page';
import { GiteaPaged } from '../../../api/gitea/gitea-paging.interceptor';
import type { ApiToken } from '../../identity/entities/api-token.entity';
import {
  CreateGiteaAccessTokenDto,
  GiteaAccessTokenDto,
  GiteaTokensPageQueryDto,
} from '../dto/gitea-tokens.dto';
import { GiteaTokensService } from '../gitea-tokens.service';

const ERROR = {
  schema: { type: 'object', properties: { message: { type: 'string' }, url: { type: 'string' } } },
};
const USERNAME = { name: 'username', description: 'username of the token owner' };

function presentToken(token: ApiToken, key = ''): GiteaAccessTokenDto {
  return {
    id: Number(token.numericId),
    name: token.name,
    sha1: key,
    token_last_eight: token.id.slice(-8),
    scopes: token.scopes,
    created_at: token.createdAt.toISOString(),
    last_used_at: (token.lastUsedAt ?? token.createdAt).toISOString(),
  };
}

/**
 * Gitea's personal access tokens, the way `tea login` and gitea-js get a first token: Basic
 * authentication with the password (`curl -u name:password`), never a token header (401 `auth required`).
 */
@GiteaController('users/:username/tokens')
export class GiteaTokensController {
  constructor(private readonly tokens: GiteaTokensService) {}

  @Get()
  @GiteaPaged()
  @Authenticated({ scopes: ['user'] })
  @ApiOperation({ summary: "List the user's access tokens (Basic authentication)" })
  @ApiParam(USERNAME)
  @ApiOkResponse({ type: [GiteaAccessTokenDto] })
  @ApiResponse({ status: 401, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('username') username: string,
    @Query() query: GiteaTokensPageQueryDto,
  ): Promise<GiteaPage<GiteaAccessTokenDto>> {
    const user = await this.tokens.contextUser(principal, username);
    const paging = giteaPaging(query);
    const all = await this.tokens.list(user);
    return new GiteaPage(
      all.slice(paging.offset, paging.offset + paging.limit).map((token) => presentToken(token)),
      all.length,
      paging,
    );
  }

  @Post()
  @Authenticated({ scopes: ['user'] })
  @ApiOperation({
    summary: 'Create an access token (Basic authentication); the key is in `sha1`, shown once',
  })
  @ApiParam(USERNAME)
  @ApiBody({ type: CreateGiteaAccessTokenDto })
  @ApiCreatedResponse({ type: GiteaAccessTokenDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 401, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('username') username: string,
    @Body() body: CreateGiteaAccessTokenDto,
  ): Promise<GiteaAccessTokenDto> {
    const user = await this.tokens.contextUser(principal, username);
    const { token, key } = await this.tokens.create(user, body.name, body.scopes);
    return presentToken(token, key);
  }

  @Delete(':token')
  @HttpCode(204)
  @Authenticated({ scopes: ['user'] })
  @ApiOperation({ summary: 'Delete an access token by id, or else by name (Basic authentication)' })
  @ApiParam(USERNAME)
  @ApiParam({ name: 'token', description: 'the numeric id, or the name' })
  @ApiNoContentResponse()
  @ApiResponse({ status: 401, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 422, ...ERROR })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('username') username: string,
    @Param('token') ref: string,
  ): Promise<void> {
    const user = await this.tokens.contextUser(principal, username);
    await this.tokens.delete(user, ref);
  }
}
