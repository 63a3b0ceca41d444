import { Body, Get, HttpCode, Param, Put, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { GoStruct, GoType } from '../../../api/coder/coder-dto.decorators';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { InvalidError } from '../../../platform/errors/domain-error';
import { UserSettingsService } from '../../identity/settings/user-settings.service';
import { AgentsExperimentGuard } from '../agents-experiment.guard';
import { ChatsService } from '../chats.service';

const ERROR = { type: CoderResponseDto };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_WORKSPACE_IDS = 25;

/** codersdk.UserChatCustomPrompt */
@GoStruct('UserChatCustomPrompt')
export class UserChatCustomPromptDto {
  @ApiProperty() @GoType('string') @IsOptional() custom_prompt: string;
}

export class UserChatCompactionThresholdsDto {
  @ApiProperty({ type: [Object] }) thresholds: { model_config_id: string; threshold_percent: number }[];
}

export class ChatDesktopEnabledDto {
  @ApiProperty() enable_desktop: boolean;
}

export class UserChatDebugLoggingDto {
  @ApiProperty() debug_logging_enabled: boolean;
  @ApiProperty() user_toggle_allowed: boolean;
  @ApiProperty() forced_by_deployment: boolean;
}

class PersonalModelOverrideDto {
  @ApiProperty() context: string;
  @ApiProperty() mode: string;
  @ApiProperty() is_set: boolean;
  @ApiProperty() is_malformed: boolean;
}

class DeploymentModelOverrideDto {
  @ApiProperty() context: string;
  @ApiProperty() is_malformed: boolean;
}

export class UserChatPersonalModelOverridesDto {
  @ApiProperty() enabled: boolean;
  @ApiProperty({ type: PersonalModelOverrideDto }) root: PersonalModelOverrideDto;
  @ApiProperty({ type: PersonalModelOverrideDto }) general: PersonalModelOverrideDto;
  @ApiProperty({ type: PersonalModelOverrideDto }) explore: PersonalModelOverrideDto;
  @ApiProperty({ type: Object }) deployment_defaults: {
    general: DeploymentModelOverrideDto;
    explore: DeploymentModelOverrideDto;
  };
}

export class ChatUsageLimitStatusDto {
  @ApiProperty() is_limited: boolean;
  @ApiProperty() current_spend: number;
  @ApiProperty({ format: 'date-time' }) period_start: string;
  @ApiProperty({ format: 'date-time' }) period_end: string;
}

export class ChatPromptDto {
  @ApiProperty() id: number;
  @ApiProperty() text: string;
}

export class ChatPromptsResponseDto {
  @ApiProperty({ type: [ChatPromptDto] }) prompts: ChatPromptDto[];
}

export class ChatsByWorkspaceQueryDto {
  @ApiPropertyOptional({ description: 'comma-separated workspace ids (at most 25)' })
  @IsOptional()
  @IsString()
  workspace_ids?: string;
}

export class ChatPromptsQueryDto {
  @ApiPropertyOptional({ description: '0 to 2000; 0 (default) means 500' })
  @IsOptional()
  @IsString()
  limit?: string;
}

/** Go's zero time, which Coder writes for an unset `time.Time` field. */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

const override = (context: string): PersonalModelOverrideDto => ({
  context,
  mode: 'deployment_default',
  is_set: false,
  is_malformed: false,
});

/**
 * What Coder's agents pages read besides the chats themselves (issue 48 items 7 and 8), routed before
 * `chats/{chat}`. devplane has no usage limits, no per-user compaction thresholds, no personal model
 * overrides and no chat debug logging: those answer Coder's values for a deployment without them.
 * The custom prompt is stored per user (the runner does not add it to the model's instructions yet).
 */
@CoderController('chats', { experimental: true })
@UseGuards(AgentsExperimentGuard)
export class ChatUserConfigController {
  constructor(
    private readonly chats: ChatsService,
    private readonly settings: UserSettingsService,
  ) {}

  @Get('by-workspace')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: "The caller's latest non-archived chat per workspace ({workspace id: chat id})" })
  @ApiOkResponse({ schema: { type: 'object', additionalProperties: { type: 'string', format: 'uuid' } } })
  @ApiResponse({ status: 400, ...ERROR })
  async byWorkspace(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ChatsByWorkspaceQueryDto,
  ): Promise<Record<string, string>> {
    if (!query.workspace_ids) return {};
    const ids = query.workspace_ids.split(',');
    if (ids.length > MAX_WORKSPACE_IDS)
      throw new InvalidError(`Too many workspace IDs, maximum is ${MAX_WORKSPACE_IDS}.`);
    for (const id of ids) if (!UUID.test(id.trim())) throw new InvalidError(`Invalid workspace ID "${id}".`);
    return this.chats.latestByWorkspace(
      principal,
      ids.map((id) => id.trim()),
    );
  }

  @Get('usage-limits/status')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: 'Your chat spend limit: none (devplane has no chat usage limits)' })
  @ApiOkResponse({ type: ChatUsageLimitStatusDto })
  usageLimitStatus(): ChatUsageLimitStatusDto {
    return { is_limited: false, current_spend: 0, period_start: GO_ZERO_TIME, period_end: GO_ZERO_TIME };
  }

  @Get('config/user-prompt')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({ summary: 'Your custom chat prompt' })
  @ApiOkResponse({ type: UserChatCustomPromptDto })
  userPrompt(@CurrentPrincipal() principal: Principal): Promise<UserChatCustomPromptDto> {
    return this.settings.read(principal.user.uuid, 'chat_custom_prompt', { custom_prompt: '' });
  }

  @Put('config/user-prompt')
  @HttpCode(200)
  @Authenticated({ tokenScope: { type: 'user', action: 'update_personal' } })
  @ApiOperation({ summary: 'Set your custom chat prompt' })
  @ApiOkResponse({ type: UserChatCustomPromptDto })
  @ApiResponse({ status: 400, ...ERROR })
  async setUserPrompt(
    @CurrentPrincipal() principal: Principal,
    @Body() body: UserChatCustomPromptDto,
  ): Promise<UserChatCustomPromptDto> {
    const prompt = (body.custom_prompt ?? '').trim();
    if (prompt.length > 10_000)
      throw new InvalidError('Custom prompt exceeds maximum length.', {
        fields: [{ field: 'custom_prompt', detail: 'at most 10000 characters' }],
      });
    return this.settings.write(principal.user.uuid, 'chat_custom_prompt', { custom_prompt: prompt });
  }

  @Get('config/user-compaction-thresholds')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({ summary: 'Your per-model compaction thresholds: none' })
  @ApiOkResponse({ type: UserChatCompactionThresholdsDto })
  compactionThresholds(): UserChatCompactionThresholdsDto {
    return { thresholds: [] };
  }

  @Get('config/desktop-enabled')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: 'Whether chats may open the workspace desktop (always, in devplane)' })
  @ApiOkResponse({ type: ChatDesktopEnabledDto })
  desktopEnabled(): ChatDesktopEnabledDto {
    return { enable_desktop: true };
  }

  @Get('config/user-debug-logging')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({ summary: 'Chat debug logging: off and not available' })
  @ApiOkResponse({ type: UserChatDebugLoggingDto })
  debugLogging(): UserChatDebugLoggingDto {
    return { debug_logging_enabled: false, user_toggle_allowed: false, forced_by_deployment: false };
  }

  @Get('config/user-personal-model-overrides')
  @Authenticated({ tokenScope: { type: 'user', action: 'read_personal' } })
  @ApiOperation({
    summary: 'Personal model overrides: not enabled (every context uses the deployment default)',
  })
  @ApiOkResponse({ type: UserChatPersonalModelOverridesDto })
  personalModelOverrides(): UserChatPersonalModelOverridesDto {
    return {
      enabled: false,
      root: override('root'),
      general: override('general'),
      explore: override('explore'),
      deployment_defaults: {
        general: { context: 'general', is_malformed: false },
        explore: { context: 'explore', is_malformed: false },
      },
    };
  }

  @Get(':chat/prompts')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: "A chat's user prompts, newest first (the composer's history)" })
  @ApiOkResponse({ type: ChatPromptsResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async prompts(
    @CurrentPrincipal() principal: Principal,
    @Param('chat') id: string,
    @Query() query: ChatPromptsQueryDto,
  ): Promise<ChatPromptsResponseDto> {
    const limit = query.limit === undefined || query.limit === '' ? 0 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 0 || limit > 2000)
      throw new InvalidError('Query parameters have invalid values.', {
        fields: [{ field: 'limit', detail: 'must be an integer from 0 to 2000' }],
      });
    const chat = await this.chats.requireChat(principal, id);
    return { prompts: await this.chats.userPrompts(chat, limit || 500) };
  }
}

/** Coder's MCP server configurations (`/api/experimental/mcp/servers`): devplane has none. */
@CoderController('mcp', { experimental: true })
@UseGuards(AgentsExperimentGuard)
export class ChatMcpServersController {
  @Get('servers')
  @Authenticated({ tokenScope: { type: 'chat', action: 'read' } })
  @ApiOperation({ summary: 'MCP server configurations: none (devplane has no MCP servers)' })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'object' } } })
  servers(): unknown[] {
    return [];
  }
}
