import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { BadRequestError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { AiGatewayQueries } from '../ai-gateway-queries.service';
import { AiProvidersService } from '../ai-providers.service';
import type { AiProvider } from '../entities/ai-provider.entity';
import {
  AiInterceptionsQueryDto,
  AiInterceptionsResponseDto,
  AiListQueryDto,
  AiProviderDto,
  AiSessionDetailDto,
  AiSessionQueryDto,
  AiSessionsQueryDto,
  AiSessionsResponseDto,
  CreateAiProviderRequestDto,
} from '../dto/ai-gateway.dto';

const ERROR = { type: CoderResponseDto };

function presentProvider(provider: AiProvider): AiProviderDto {
  return {
    id: provider.id,
    name: provider.name,
    type: provider.type,
    base_url: provider.baseUrl,
    has_key: provider.sealedKey !== null,
    created_at: provider.createdAt.toISOString(),
    updated_at: provider.updatedAt.toISOString(),
  };
}

/**
 * The AI gateway's API (reference D.2) under `/api/v2/aigateway` (alias `/api/v2/ai-gateway`, and
 * Coder's older `/api/v2/aibridge`): sessions, one session's threads, interceptions, models, clients,
 * and the administrators' provider instances. Registered before the data plane so these paths win.
 */
@CoderController('aigateway')
export class AiGatewayController {
  constructor(
    private readonly queries: AiGatewayQueries,
    private readonly providers: AiProvidersService,
  ) {}

  @Get('sessions')
  @Authenticated({ tokenScope: { type: 'aibridge_interception', action: 'read' } })
  @ApiOperation({
    summary: 'AI gateway sessions (client session key, else thread root, else the interception)',
  })
  @ApiOkResponse({ type: AiSessionsResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  async sessions(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AiSessionsQueryDto,
  ): Promise<AiSessionsResponseDto> {
    const page = AiGatewayQueries.page(query);
    if (query.after_session_id && query.offset && query.offset !== '0')
      throw new BadRequestError('Query parameters after_session_id and offset cannot be used together.', {
        code: 'AI_CURSOR_OFFSET',
      });
    const filters = await this.queries.filters(
      principal,
      query.q ?? '',
      'Invalid session search query.',
      true,
    );
    return this.queries.sessions(filters, page, query.after_session_id || undefined);
  }

  @Get('sessions/:session')
  @Authenticated({ tokenScope: { type: 'aibridge_interception', action: 'read' } })
  @ApiOperation({ summary: "One session's threads (credential kind and hint from each thread's root)" })
  @ApiParam({ name: 'session', description: 'session id' })
  @ApiOkResponse({ type: AiSessionDetailDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async session(
    @CurrentPrincipal() principal: Principal,
    @Param('session') sessionId: string,
    @Query() query: AiSessionQueryDto,
  ): Promise<AiSessionDetailDto> {
    if (query.after_id && query.before_id)
      throw new BadRequestError('Query parameters after_id and before_id cannot be used together.', {
        code: 'AI_CURSOR_BOTH',
      });
    const { limit } = AiGatewayQueries.page({ limit: query.limit }, 200, 50);
    return (await this.queries.session(principal, sessionId, {
      afterId: query.after_id || undefined,
      beforeId: query.before_id || undefined,
      limit,
    })) as AiSessionDetailDto;
  }

  @Get('interceptions')
  @Authenticated({ tokenScope: { type: 'aibridge_interception', action: 'read' } })
  @ApiOperation({ summary: 'AI gateway interceptions (request logs), newest first' })
  @ApiOkResponse({ type: AiInterceptionsResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  async interceptions(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AiInterceptionsQueryDto,
  ): Promise<AiInterceptionsResponseDto> {
    const page = AiGatewayQueries.page(query);
    if (query.after_id && query.offset && query.offset !== '0')
      throw new BadRequestError('Query parameters after_id and offset cannot be used together.', {
        code: 'AI_CURSOR_OFFSET',
      });
    const filters = await this.queries.filters(
      principal,
      query.q ?? '',
      'Invalid interception search query.',
      false,
    );
    return this.queries.interceptions(filters, page, query.after_id || undefined);
  }

  @Get('models')
  @Authenticated({ tokenScope: { type: 'aibridge_interception', action: 'read' } })
  @ApiOperation({ summary: 'Models seen in interceptions' })
  @ApiOkResponse({ type: [String] })
  async models(@CurrentPrincipal() principal: Principal, @Query() query: AiListQueryDto): Promise<string[]> {
    return this.queries.distinct(principal, 'model', AiGatewayQueries.page(query).limit);
  }

  @Get('clients')
  @Authenticated({ tokenScope: { type: 'aibridge_interception', action: 'read' } })
  @ApiOperation({ summary: 'Clients seen in interceptions (`Unknown` for none)' })
  @ApiOkResponse({ type: [String] })
  async clients(@CurrentPrincipal() principal: Principal, @Query() query: AiListQueryDto): Promise<string[]> {
    return this.queries.distinct(principal, 'client', AiGatewayQueries.page(query).limit);
  }

  @Get('providers')
  @Authenticated({ admin: true, tokenScope: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: 'Provider instances (administrators; keys are never returned)' })
  @ApiOkResponse({ type: [AiProviderDto] })
  async listProviders(): Promise<AiProviderDto[]> {
    return (await this.providers.list()).map(presentProvider);
  }

  @Post('providers')
  @HttpCode(201)
  @Authenticated({ admin: true, tokenScope: { type: 'deployment_config', action: 'update' } })
  @ApiOperation({
    summary: 'Add a provider instance (name, type openai|anthropic, base URL, centralized key)',
  })
  @ApiCreatedResponse({ type: AiProviderDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async createProvider(@Body() body: CreateAiProviderRequestDto): Promise<AiProviderDto> {
    return presentProvider(
      await this.providers.create({
        name: body.name ?? '',
        type: body.type ?? '',
        baseUrl: body.base_url ?? '',
        key: body.key ?? '',
      }),
    );
  }

  @Delete('providers/:name')
  @HttpCode(204)
  @Authenticated({ admin: true, tokenScope: { type: 'deployment_config', action: 'update' } })
  @ApiOperation({ summary: 'Remove a provider instance (its interceptions stay)' })
  @ApiResponse({ status: 204, description: 'removed' })
  @ApiResponse({ status: 404, ...ERROR })
  async deleteProvider(@Param('name') name: string): Promise<void> {
    await this.providers.remove(name);
  }
}

/** The same API under `/api/v2/ai-gateway` (alias). */
@CoderController('ai-gateway')
export class AiGatewayAliasController extends AiGatewayController {}

/** The same API under Coder's older `/api/v2/aibridge`. */
@CoderController('aibridge')
export class AiBridgeLegacyController extends AiGatewayController {}
