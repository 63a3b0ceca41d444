import {
  Body,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { BodyStream, StreamBody } from '../../../api/body/body.decorators';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { coderPage, SearchParser, searchTerms } from '../../../api/coder/coder-search-query';
import { ForbiddenError, InvalidError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import { AuthorizationService } from '../../auth/authorization.service';
import type { Principal } from '../../../api/access/principal';
import { UserDirectory } from '../../identity/user-directory.service';
import { SiteConfigService } from '../../../platform/site-config/site-config.service';
import { AgentsExperimentGuard } from '../agents-experiment.guard';
import { ChatFilesService, dispositionFilename } from '../chat-files.service';
import { ChatInsightsService } from '../chat-insights.service';
import { presentChat, presentFile, presentMessage, presentModelConfig } from '../chats.presenter';
import { ChatsService, type CostSums, type InputPart, type PriceKind, PR_STATUSES } from '../chats.service';
import {
  ChatFileUploadQueryDto,
  ChatListQueryDto,
  CostRangeQueryDto,
  CostUsersQueryDto,
  CreateChatMessageRequestDto,
  CreateChatModelConfigRequestDto,
  CreateChatRequestDto,
  ChatMessagesQueryDto,
  UpdateChatModelConfigRequestDto,
  UpdateChatRequestDto,
} from '../dto/chats.dto';
import {
  ChatDto,
  ChatMessagesResponseDto,
  ChatModelsResponseDto,
  CreateChatMessageResponseDto,
} from '../dto/chat-responses.dto';
import type { Chat } from '../entities/chat.entity';

const ERROR = { type: CoderResponseDto };
const DEFAULT_MODEL_CONFIG_KEY = 'chats.default_model_config';
const JSON_OBJECT = { schema: { type: 'object', additionalProperties: true } };
const JSON_LIST = { schema: { type: 'array', items: { type: 'object', additionalProperties: true } } };

/** RFC 3339 `start_date` / `end_date` (default: the last 30 days). */
function range(query: CostRangeQueryDto): { start: Date; end: Date } {
  const parse = (value: string | undefined, field: string, fallback: Date): Date => {
    if (value === undefined || value === '') return fallback;
    const date = new Date(value);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date.getTime()))
      throw new InvalidError('Query parameters have invalid values.', {
        fields: [
          {
            field,
            detail: `Query param "${field}" must be a valid date format (2006-01-02T15:04:05.999999999Z07:00)`,
          },
        ],
      });
    return date;
  };
  const end = parse(undefined === query.end_date ? undefined : query.end_date, 'end_date', new Date());
  const start = parse(query.start_date, 'start_date', new Date(end.getTime() - 30 * 86_400_000));
  if (start >= end)
    throw new InvalidError('Query parameters have invalid values.', {
      fields: [{ field: 'start_date', detail: 'must be before end_date' }],
    });
  return { start, end };
}

const sumsOf = (sums: CostSums) => ({
  total_cost_micros: sums.totalCostMicros,
  priced_message_count: sums.pricedMessageCount,
  unpriced_message_count: sums.unpricedMessageCount,
  total_input_tokens: sums.totalInputTokens,
  total_output_tokens: sums.totalOutputTokens,
  total_cache_read_tokens: sums.totalCacheReadTokens,
  total_cache_creation_tokens: sums.totalCacheCreationTokens,
  total_runtime_ms: sums.totalRuntimeMs,
});

/**
 * Chats under `/api/experimental/chats` (reference D.4, issue 19), only with the `agents` experiment
 * (else 404 like an unknown route), documented apart from the public OpenAPI document.
 */
@CoderController('chats', { experimental: true })
@UseGuards(AgentsExperimentGuard)
export class ChatsController {
  constructor(
    private readonly chats: ChatsService,
    private readonly files: ChatFilesService,
    private readonly insights: ChatInsightsService,
    private readonly users: UserDirectory,
    private readonly authz: AuthorizationService,
    private readonly siteConfig: SiteConfigService,
  ) {}

  // ---------------------------------------------------------------- model configurations

  @Get('model-configs')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({
    summary: 'Model configurations chats may use (AI gateway provider, model, prices per million tokens)',
  })
  @ApiOkResponse(JSON_LIST)
  async modelConfigs() {
    const defaultId = await this.defaultModelConfigId();
    return (await this.chats.modelConfigs()).map((config) => presentModelConfig(config, defaultId));
  }

  @Get('models')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: "The models chats may use, by AI gateway provider (Coder's getChatModels)" })
  @ApiOkResponse({ type: ChatModelsResponseDto })
  async models(): Promise<ChatModelsResponseDto> {
    const byProvider = new Map<string, ChatModelsResponseDto['providers'][number]>();
    for (const config of await this.chats.modelConfigs()) {
      const entry = byProvider.get(config.provider) ?? {
        provider: config.provider,
        available: true,
        models: [],
      };
      entry.models.push({
        id: config.id,
        provider: config.provider,
        model: config.model,
        display_name: config.displayName,
      });
      byProvider.set(config.provider, entry);
    }
    return { providers: [...byProvider.values()] };
  }

  @Post('model-configs')
  @HttpCode(201)
  @Authenticated({ admin: true })
  @ApiOperation({ summary: 'Add a model configuration (owners)' })
  @ApiCreatedResponse(JSON_OBJECT)
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async createModelConfig(@Body() body: CreateChatModelConfigRequestDto) {
    const config = await this.chats.createModelConfig({
      provider: body.provider,
      model: body.model,
      displayName: body.display_name,
      prices: pricesOf(body),
    });
    return presentModelConfig(config, await this.applyDefault(config.id, body.is_default));
  }

  /** The default model configuration's id (Coder's is_default: one at most). */
  private async defaultModelConfigId(): Promise<string | undefined> {
    return (await this.siteConfig.get(DEFAULT_MODEL_CONFIG_KEY)) || undefined;
  }

  /** is_default true makes `id` the default, false unsets it when it was; absent changes nothing. */
  private async applyDefault(id: string, isDefault: boolean | undefined): Promise<string | undefined> {
    const current = await this.defaultModelConfigId();
    if (isDefault === true && current !== id) await this.siteConfig.set(DEFAULT_MODEL_CONFIG_KEY, id);
    if (isDefault === false && current === id) await this.siteConfig.set(DEFAULT_MODEL_CONFIG_KEY, '');
    return this.defaultModelConfigId();
  }

  @Patch('model-configs/:config')
  @Authenticated({ admin: true })
  @ApiOperation({ summary: 'Change a model configuration (owners); recorded costs stay as they were' })
  @ApiOkResponse(JSON_OBJECT)
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async updateModelConfig(@Param('config') id: string, @Body() body: UpdateChatModelConfigRequestDto) {
    const config = await this.chats.updateModelConfig(id, {
      provider: body.provider,
      model: body.model,
      displayName: body.display_name,
      prices: pricesOf(body),
    });
    return presentModelConfig(config, await this.applyDefault(config.id, body.is_default));
  }

  @Delete('model-configs/:config')
  @HttpCode(204)
  @Authenticated({ admin: true })
  @ApiOperation({ summary: 'Delete a model configuration no chat runs with (owners; 409 when in use)' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async deleteModelConfig(@Param('config') id: string): Promise<void> {
    await this.chats.deleteModelConfig(id);
  }

  // ---------------------------------------------------------------- files

  @Post('files')
  @HttpCode(201)
  @StreamBody()
  @Authenticated({ tokenScope: { type: 'chat', action: 'create' } })
  @ApiOperation({
    summary: 'Upload an image for chats: raw body, Content-Type, filename from Content-Disposition (10 MiB)',
  })
  @ApiCreatedResponse({ schema: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } } })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 413, ...ERROR })
  async upload(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ChatFileUploadQueryDto,
    @Req() req: Request,
    @BodyStream() body: Readable,
  ): Promise<{ id: string }> {
    const file = await this.files.upload(principal, {
      organizationId: query.organization,
      contentType: req.headers['content-type'],
      filename: dispositionFilename(req.headers['content-disposition']),
      body,
    });
    return { id: file.id };
  }

  @Get('files/:file')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: "A chat file's bytes (immutable)" })
  @ApiOkResponse({ description: 'the file' })
  @ApiResponse({ status: 404, ...ERROR })
  async file(
    @CurrentPrincipal() principal: Principal,
    @Param('file') id: string,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.files.require(principal, id);
    const blob = await this.files.open(file);
    res.status(200);
    res.setHeader('Content-Type', file.mimeType);
    res.setHeader('Content-Length', String(blob.totalSize));
    res.setHeader('Cache-Control', 'private, max-age=31536000, immutable');
    res.setHeader('Content-Disposition', `inline; filename="${file.name.replace(/["\\]/g, '_')}"`);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    blob.stream.pipe(res);
  }

  @Get('files/:file/metadata')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: "A chat file's metadata" })
  @ApiOkResponse(JSON_OBJECT)
  @ApiResponse({ status: 404, ...ERROR })
  async fileMetadata(@CurrentPrincipal() principal: Principal, @Param('file') id: string) {
    return presentFile(await this.files.require(principal, id));
  }

  // ---------------------------------------------------------------- cost

  // ---------------------------------------------------------------- insights

  @Get('insights/pull-requests')
  @Header('Cache-Control', 'no-store')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({
    summary:
      'Pull requests opened by chats over a period: summary, previous period, daily series, by model, recent (administrators: deployment_config read)',
  })
  @ApiOkResponse(JSON_OBJECT)
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async pullRequestInsights(@CurrentPrincipal() principal: Principal, @Query() query: CostRangeQueryDto) {
    if (!(await this.authz.authorize(principal, 'read', { type: 'deployment_config' })))
      throw new ForbiddenError();
    const { start, end } = range(query);
    return this.insights.pullRequestInsights(start, end);
  }

  @Get('cost/users')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: 'Chat cost per user over a period (site-wide chat read: owners)' })
  @ApiOkResponse(JSON_OBJECT)
  @ApiResponse({ status: 403, ...ERROR })
  async costUsers(@CurrentPrincipal() principal: Principal, @Query() query: CostUsersQueryDto) {
    if (!(await this.authz.authorize(principal, 'read', { type: 'chat' }))) throw new ForbiddenError();
    const { start, end } = range(query);
    const paging = coderPage({ limit: query.limit, offset: query.offset });
    const { users, count } = await this.chats.costByUser(start, end, query.username, paging);
    return {
      start_date: start.toISOString(),
      end_date: end.toISOString(),
      count,
      users: users.map((user) => ({
        user_id: user.ownerId,
        username: user.username,
        name: user.name,
        avatar_url: user.avatarUrl,
        message_count: user.messageCount,
        chat_count: user.chatCount,
        ...sumsOf(user),
      })),
    };
  }

  @Get('cost/:user/summary')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({
    summary:
      "A user's chat cost over a period, by model and by chat (self, or who may read the user's chats)",
  })
  @ApiOkResponse(JSON_OBJECT)
  @ApiResponse({ status: 403, ...ERROR })
  async costSummary(
    @CurrentPrincipal() principal: Principal,
    @Param('user') userRef: string,
    @Query() query: CostRangeQueryDto,
  ) {
    const user = await this.users.requireCoderUser(userRef, principal);
    if (
      user.id !== principal.user.id &&
      !(await this.authz.authorize(principal, 'read', { type: 'chat', ownerId: user.uuid, anyOrg: true }))
    )
      throw new ForbiddenError();
    const { start, end } = range(query);
    const summary = await this.chats.costSummary(user.uuid, start, end);
    return {
      start_date: start.toISOString(),
      end_date: end.toISOString(),
      ...sumsOf(summary.total),
      by_model: summary.byModel.map((cost) => ({
        model_config_id: cost.modelConfigId,
        display_name: cost.displayName ?? '',
        provider: cost.provider ?? '',
        model: cost.model ?? '',
        message_count: cost.messageCount,
        ...sumsOf(cost),
      })),
      by_chat: summary.byChat.map((cost) => ({
        root_chat_id: cost.rootChatId,
        chat_title: cost.chatTitle ?? '',
        message_count: cost.messageCount,
        ...sumsOf(cost),
      })),
    };
  }

  // ---------------------------------------------------------------- chats

  @Get()
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({
    summary:
      'Your chats (archived ones only with archived:true; source:shared_with_me is empty: chats are not shared)',
  })
  @ApiOkResponse({ type: [ChatDto] })
  @ApiResponse({ status: 400, ...ERROR })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ChatListQueryDto) {
    const terms = searchTerms(query.q ?? '', () => ({ key: 'search' }));
    if ('errors' in terms) throw new InvalidError('Invalid chat search query.', { fields: terms.errors });
    const parser = new SearchParser(terms.values);
    const labels: Record<string, string> = {};
    // Coder's `source:`: devplane chats are never shared, so every readable chat is the caller's own.
    const source = parser.enumValue('source', ['created_by_me', 'shared_with_me'] as const);
    const filters = {
      archived: parser.nullableBool('archived'),
      title: parser.string('title') || undefined,
      search: parser.string('search') || undefined,
      pullRequest: {
        status: parser.enumList('pr_status', PR_STATUSES),
        title: parser.string('pr_title') || undefined,
        repository: parser.string('repo') || undefined,
        pull: parser.string('pr') || undefined,
      },
      labels,
    };
    const errors = parser.finish();
    if (errors.length) throw new InvalidError('Invalid chat search query.', { fields: errors });
    if (source === 'shared_with_me') return [];
    const chats = await this.chats.list(principal, filters, coderPage(query));
    return chats.map((chat) =>
      presentChat(chat, { name: principal.user.name, full_name: principal.user.fullName }),
    );
  }

  @Post()
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'chat', action: 'create' } })
  @ApiOperation({
    summary:
      'Create a chat with its first message (optionally in a workspace, or as a subagent chat of another)',
  })
  @ApiCreatedResponse({ type: ChatDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateChatRequestDto) {
    const chat = await this.chats.createChat(principal, {
      organizationId: body.organization_id,
      workspaceId: body.workspace_id,
      modelConfigId: body.model_config_id,
      content: (body.content ?? []) as InputPart[],
      parentChatId: body.parent_chat_id,
      labels: body.labels,
      clientType: body.client_type,
    });
    return this.present(chat);
  }

  @Get(':chat')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: 'Get a chat' })
  @ApiOkResponse({ type: ChatDto })
  @ApiResponse({ status: 404, ...ERROR })
  async get(@CurrentPrincipal() principal: Principal, @Param('chat') id: string) {
    return this.present(await this.chats.requireChat(principal, id));
  }

  @Get(':chat/messages')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({
    summary:
      "A page of a chat's messages, newest first (`before_id`, `limit`), with `has_more`; assistant messages carry usage and total_cost_micros",
  })
  @ApiOkResponse({ type: ChatMessagesResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async messages(
    @CurrentPrincipal() principal: Principal,
    @Param('chat') id: string,
    @Query() query: ChatMessagesQueryDto,
  ): Promise<ChatMessagesResponseDto> {
    const integer = (name: string, text: string | undefined, min: number, max: number) => {
      if (text === undefined || text === '') return undefined;
      const value = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
      if (!Number.isInteger(value) || value < min || value > max)
        throw new InvalidError('Query parameters have invalid values.', {
          fields: [{ field: name, detail: `must be an integer between ${min} and ${max}` }],
        });
      return value;
    };
    const beforeId = integer('before_id', query.before_id, 1, Number.MAX_SAFE_INTEGER);
    const limit = integer('limit', query.limit, 1, 200) ?? 50;
    const chat = await this.chats.requireChat(principal, id);
    const page = await this.chats.messagesPage(chat, { beforeId, limit });
    return {
      messages: page.messages.map(presentMessage) as unknown as ChatMessagesResponseDto['messages'],
      // devplane runs a chat's messages in order and queues none behind a running turn.
      queued_messages: [],
      has_more: page.hasMore,
    };
  }

  @Post(':chat/messages')
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'chat', action: 'update' } })
  @ApiOperation({ summary: 'Post a user message (the chat is queued for the runner)' })
  @ApiCreatedResponse({ type: CreateChatMessageResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async postMessage(
    @CurrentPrincipal() principal: Principal,
    @Param('chat') id: string,
    @Body() body: CreateChatMessageRequestDto,
  ): Promise<CreateChatMessageResponseDto> {
    const chat = await this.chats.requireChat(principal, id);
    const message = await this.chats.postMessage(principal, chat, (body.content ?? []) as InputPart[]);
    return {
      message: presentMessage(message) as unknown as CreateChatMessageResponseDto['message'],
      queued: false,
    };
  }

  @Patch(':chat')
  @Authenticated({ tokenScope: { type: 'chat', action: 'update' } })
  @ApiOperation({
    summary: 'Update a chat: `archived` true archives it and its descendants, false unarchives it (Coder UI)',
  })
  @ApiOkResponse({ type: ChatDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('chat') id: string,
    @Body() body: UpdateChatRequestDto,
  ) {
    let chat = await this.chats.requireChat(principal, id);
    if (body.archived === true && !chat.archived) await this.chats.archive(principal, chat);
    else if (body.archived === false && chat.archived) await this.chats.unarchive(principal, chat);
    else await this.chats.requireUpdate(principal, chat);
    chat = await this.chats.requireChat(principal, id);
    return this.present(chat);
  }

  @Post(':chat/archive')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'chat', action: 'update' } })
  @ApiOperation({ summary: 'Archive a chat and every descendant (one transaction; no event)' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async archive(@CurrentPrincipal() principal: Principal, @Param('chat') id: string): Promise<void> {
    await this.chats.archive(principal, await this.chats.requireChat(principal, id));
  }

  @Post(':chat/unarchive')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'chat', action: 'update' } })
  @ApiOperation({ summary: 'Unarchive that chat only' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async unarchive(@CurrentPrincipal() principal: Principal, @Param('chat') id: string): Promise<void> {
    await this.chats.unarchive(principal, await this.chats.requireChat(principal, id));
  }

  @Get(':chat/cost')
  @Header('Cache-Control', 'no-store')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: "The cost of a chat's whole tree (root and subagents)" })
  @ApiOkResponse(JSON_OBJECT)
  @ApiResponse({ status: 404, ...ERROR })
  async cost(@CurrentPrincipal() principal: Principal, @Param('chat') id: string) {
    const chat = await this.chats.requireChat(principal, id);
    const cost = await this.chats.chatCost(chat);
    return {
      chat_id: chat.id,
      total_cost_micros: Number(cost.total),
      request_count: cost.requests,
      unpriced_request_count: cost.unpriced,
    };
  }

  private async present(chat: Chat) {
    return presentChat(chat, await this.chats.ownerNames(chat));
  }
}

/**
 * The four prices of a model configuration body, by kind (absent stays absent): Coder's nested
 * `model_config.cost` (decimal strings; null = not priced) wins over devplane's flat fields.
 */
function pricesOf(body: UpdateChatModelConfigRequestDto): Record<PriceKind, string | undefined> {
  const cost = body.model_config?.cost;
  if (cost !== undefined && (typeof cost !== 'object' || cost === null || Array.isArray(cost)))
    throw new InvalidError('Validation failed.', {
      fields: [{ field: 'model_config.cost', detail: 'must be an object' }],
    });
  const nested = (kind: PriceKind): string | undefined => {
    const field = `${kind}_price_per_million_tokens` as const;
    const value = (cost as Record<string, unknown> | undefined)?.[field];
    if (value === undefined) return undefined;
    if (value === null) return '';
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value !== 'string')
      throw new InvalidError('Validation failed.', {
        fields: [{ field: `model_config.cost.${field}`, detail: 'must be a decimal string' }],
      });
    return value;
  };
  return {
    input: nested('input') ?? body.input_price_per_million_tokens,
    output: nested('output') ?? body.output_price_per_million_tokens,
    cache_read: nested('cache_read') ?? body.cache_read_price_per_million_tokens,
    cache_write: nested('cache_write') ?? body.cache_write_price_per_million_tokens,
  };
}
