import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import { CoderTokensService, type TokenView } from '../coder-tokens.service';
import {
  ApiKeyDto,
  ApiKeyWithOwnerDto,
  CreateTokenRequestDto,
  GenerateApiKeyResponseDto,
  ListTokensQueryDto,
  TokenConfigDto,
} from '../dto/coder-auth.dto';
import type { Principal } from '../../../api/access/principal';
import type { AllowListEntry } from '../rbac/rbac-scopes';
import { TargetUserResolver } from '../target-user.service';

const EPOCH = new Date(0).toISOString();

export function presentApiKey(view: TokenView): ApiKeyDto {
  const { token } = view;
  const scopes = token.scopes.map((scope) =>
    scope === 'all' ? 'coder:all' : scope === 'application_connect' ? 'coder:application_connect' : scope,
  );
  return {
    id: token.id,
    user_id: view.owner.uuid,
    last_used: token.lastUsedAt ? token.lastUsedAt.toISOString() : EPOCH,
    expires_at: token.expiresAt.toISOString(),
    created_at: token.createdAt.toISOString(),
    updated_at: token.updatedAt.toISOString(),
    login_type: token.loginType,
    scope: scopes.includes('coder:application_connect')
      ? 'application_connect'
      : scopes.includes('coder:all')
        ? 'all'
        : '',
    scopes,
    token_name: token.name,
    lifetime_seconds: Number(token.lifetimeSeconds),
    allow_list: view.allowList.map((entry) => ({ type: entry.type, id: entry.id })),
  };
}

const USER_PARAM = { name: 'user', description: 'user id (uuid), username, or `me`' };

/** Coder's API key routes (`/api/v2/users/{user}/keys...`). */
@CoderController('users')
export class CoderTokensController {
  constructor(
    private readonly tokens: CoderTokensService,
    private readonly targets: TargetUserResolver,
  ) {}

  @Post(':user/keys/tokens')
  @Authenticated({ tokenScope: { type: 'api_key', action: 'create' } })
  @ApiOperation({ summary: 'Create a token API key' })
  @ApiParam(USER_PARAM)
  @ApiBody({ type: CreateTokenRequestDto })
  @ApiCreatedResponse({ type: GenerateApiKeyResponseDto })
  @ApiBadRequestResponse({ type: CoderResponseDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  @ApiForbiddenResponse({ type: CoderResponseDto })
  @ApiNotFoundResponse({ type: CoderResponseDto })
  @ApiConflictResponse({ type: CoderResponseDto })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Body() body: CreateTokenRequestDto,
  ): Promise<GenerateApiKeyResponseDto> {
    const target = await this.targets.resolve(ref, principal);
    const allowList: AllowListEntry[] = (body.allow_list ?? []).map((entry) => ({
      type: entry.type ?? '',
      id: entry.id ?? '',
    }));
    const key = await this.tokens.create(principal, target, {
      tokenName: body.token_name ?? '',
      scopes: body.scopes ?? [],
      scope: body.scope ?? '',
      lifetimeNs: body.lifetime ?? 0,
      allowList,
    });
    return { key };
  }

  @Get(':user/keys/tokens')
  @Authenticated({ tokenScope: { type: 'api_key', action: 'read' } })
  @ApiOperation({ summary: "List a user's token API keys" })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: [ApiKeyWithOwnerDto] })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  @ApiNotFoundResponse({ type: CoderResponseDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Query() query: ListTokensQueryDto,
  ): Promise<ApiKeyWithOwnerDto[]> {
    const target = await this.targets.resolve(ref, principal);
    const views = await this.tokens.list(principal, target, {
      includeExpired: query.include_expired ?? false,
      includeAll: query.include_all ?? false,
    });
    return views.map((view) => ({ ...presentApiKey(view), username: view.owner.name }));
  }

  @Get(':user/keys/tokens/tokenconfig')
  @Authenticated({ tokenScope: { type: 'api_key', action: 'read' } })
  @ApiOperation({ summary: 'Token configuration (maximum lifetime) for a user' })
  @ApiParam(USER_PARAM)
  @ApiOkResponse({ type: TokenConfigDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  async tokenConfig(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
  ): Promise<TokenConfigDto> {
    const target = await this.targets.resolve(ref, principal);
    return { max_token_lifetime: this.tokens.maxLifetimeSeconds(target) * 1e9 };
  }

  @Get(':user/keys/tokens/:keyname')
  @Authenticated({ tokenScope: { type: 'api_key', action: 'read' } })
  @ApiOperation({ summary: 'Get a token API key by name' })
  @ApiParam(USER_PARAM)
  @ApiParam({ name: 'keyname', description: 'token name' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  @ApiNotFoundResponse({ type: CoderResponseDto })
  async getByName(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Param('keyname') name: string,
  ): Promise<ApiKeyDto> {
    const target = await this.targets.resolve(ref, principal);
    return presentApiKey(await this.tokens.getByName(principal, target, name));
  }

  @Get(':user/keys/:keyid')
  @Authenticated({ tokenScope: { type: 'api_key', action: 'read' } })
  @ApiOperation({ summary: 'Get an API key by id' })
  @ApiParam(USER_PARAM)
  @ApiParam({ name: 'keyid', description: 'key id (the part before "-")' })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  @ApiNotFoundResponse({ type: CoderResponseDto })
  async getById(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Param('keyid') id: string,
  ): Promise<ApiKeyDto> {
    const target = await this.targets.resolve(ref, principal);
    return presentApiKey(await this.tokens.getById(principal, target, id));
  }

  @Delete(':user/keys/:keyid')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'api_key', action: 'delete' } })
  @ApiOperation({ summary: 'Delete an API key' })
  @ApiParam(USER_PARAM)
  @ApiParam({ name: 'keyid', description: 'key id (the part before "-")' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiUnauthorizedResponse({ type: CoderResponseDto })
  @ApiNotFoundResponse({ type: CoderResponseDto })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('user') ref: string,
    @Param('keyid') id: string,
  ): Promise<void> {
    const target = await this.targets.resolve(ref, principal);
    await this.tokens.delete(principal, target, id);
  }
}
