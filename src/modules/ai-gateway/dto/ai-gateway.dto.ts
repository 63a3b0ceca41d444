import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { GoStruct, GoType } from '../../../api/coder/coder-dto.decorators';

// ------------------------------------------------------------------------------------ queries

export class AiListQueryDto {
  @ApiPropertyOptional({ description: '1..1000, default 100' }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() offset?: string;
}

export class AiSessionsQueryDto extends AiListQueryDto {
  @ApiPropertyOptional({
    description:
      'initiator (me, username or uuid), provider, provider_name, model, client, session_id, started_after, started_before (RFC 3339)',
  })
  @IsOptional()
  @IsString()
  q?: string;
  @ApiPropertyOptional({ description: 'cursor; not with offset' })
  @IsOptional()
  @IsString()
  after_session_id?: string;
}

export class AiInterceptionsQueryDto extends AiListQueryDto {
  @ApiPropertyOptional({
    description:
      'initiator, provider, provider_name, model, client (several, comma-separated; `unknown` = none), started_after, started_before',
  })
  @IsOptional()
  @IsString()
  q?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'cursor; not with offset' })
  @IsOptional()
  @IsString()
  after_id?: string;
}

export class AiSessionQueryDto {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() after_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsString() before_id?: string;
  @ApiPropertyOptional({ description: '1..200, default 50' }) @IsOptional() @IsString() limit?: string;
}

@GoStruct('CreateAIProviderRequest')
export class CreateAiProviderRequestDto {
  @ApiProperty() @GoType('string') name?: string;
  @ApiProperty({ enum: ['openai', 'anthropic'] }) @GoType('string') type?: string;
  @ApiProperty({ description: "the provider's root URL, e.g. https://api.openai.com" })
  @GoType('string')
  base_url?: string;
  @ApiPropertyOptional({ description: 'the centralized key (stored sealed, never returned)' })
  @GoType('string')
  key?: string;
}

// ------------------------------------------------------------------------------------ responses

export class AiProviderDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['openai', 'anthropic'] }) type: string;
  @ApiProperty() base_url: string;
  @ApiProperty() has_key: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class AiInitiatorDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() username: string;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional() avatar_url?: string;
}

export class AiTokenUsageSummaryDto {
  @ApiProperty() input_tokens: number;
  @ApiProperty() output_tokens: number;
  @ApiProperty() cache_read_input_tokens: number;
  @ApiProperty() cache_write_input_tokens: number;
}

/** codersdk.AIBridgeSessionThreadsTokenUsage: the sums and the token usage metadata summed by key. */
export class AiThreadTokenUsageDto extends AiTokenUsageSummaryDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'numeric metadata of the usage records summed by key (nested keys joined with dots)',
  })
  metadata: Record<string, number>;
}

export class AiSessionDto {
  @ApiProperty() id: string;
  @ApiProperty({ type: AiInitiatorDto }) initiator: AiInitiatorDto;
  @ApiProperty({ type: [String] }) providers: string[];
  @ApiProperty({ type: [String] }) models: string[];
  @ApiProperty({ nullable: true, type: String }) client: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) started_at: string;
  @ApiPropertyOptional({ format: 'date-time' }) ended_at?: string;
  @ApiProperty() threads: number;
  @ApiProperty({ type: AiTokenUsageSummaryDto }) token_usage_summary: AiTokenUsageSummaryDto;
  @ApiPropertyOptional() last_prompt?: string;
  @ApiProperty({ format: 'date-time' }) last_active_at: string;
}

export class AiSessionsResponseDto {
  @ApiProperty() count: number;
  @ApiProperty({ type: [AiSessionDto] }) sessions: AiSessionDto[];
}

export class AiToolCallDto {
  @ApiProperty() id: string;
  @ApiProperty({ format: 'uuid' }) interception_id: string;
  @ApiProperty() provider_response_id: string;
  @ApiProperty() server_url: string;
  @ApiProperty() tool: string;
  @ApiProperty() injected: boolean;
  @ApiProperty() input: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class AiAgenticActionDto {
  @ApiProperty() model: string;
  @ApiProperty({ type: AiThreadTokenUsageDto }) token_usage: AiThreadTokenUsageDto;
  @ApiProperty({ type: 'array', items: { type: 'object', properties: { text: { type: 'string' } } } })
  thinking: { text: string }[];
  @ApiProperty({ type: [AiToolCallDto] }) tool_calls: AiToolCallDto[];
}

export class AiThreadDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional() prompt?: string;
  @ApiProperty() model: string;
  @ApiProperty() provider: string;
  @ApiProperty() provider_name: string;
  @ApiProperty({ enum: ['centralized', 'byok'] }) credential_kind: string;
  @ApiProperty() credential_hint: string;
  @ApiProperty({ format: 'date-time' }) started_at: string;
  @ApiPropertyOptional({ format: 'date-time' }) ended_at?: string;
  @ApiProperty({ type: AiThreadTokenUsageDto }) token_usage: AiThreadTokenUsageDto;
  @ApiProperty({ type: [AiAgenticActionDto] }) agentic_actions: AiAgenticActionDto[];
  @ApiPropertyOptional() error_type?: string;
  @ApiPropertyOptional() error_message?: string;
}

/** codersdk.AIBridgeSessionThreadsResponse: the session's fields, with its threads instead of their count. */
export class AiSessionDetailDto extends OmitType(AiSessionDto, ['threads', 'token_usage_summary'] as const) {
  @ApiProperty({ type: AiThreadTokenUsageDto }) token_usage_summary: AiThreadTokenUsageDto;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) page_started_at: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) page_ended_at: string | null;
  @ApiProperty({ type: [AiThreadDto] }) threads: AiThreadDto[];
}

export class AiTokenUsageDto extends AiTokenUsageSummaryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) interception_id: string;
  @ApiProperty() provider_response_id: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class AiUserPromptDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) interception_id: string;
  @ApiProperty() provider_response_id: string;
  @ApiProperty() prompt: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class AiToolUsageDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) interception_id: string;
  @ApiProperty() provider_response_id: string;
  @ApiProperty() server_url: string;
  @ApiProperty() tool: string;
  @ApiProperty() input: string;
  @ApiProperty() injected: boolean;
  @ApiProperty({ nullable: true, type: String }) invocation_error: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class AiInterceptionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ nullable: true, type: String }) api_key_id: string | null;
  @ApiProperty({ type: AiInitiatorDto }) initiator: AiInitiatorDto;
  @ApiProperty() provider: string;
  @ApiProperty() provider_name: string;
  @ApiProperty() model: string;
  @ApiProperty({ nullable: true, type: String }) client: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) started_at: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) ended_at: string | null;
  @ApiProperty({ enum: ['centralized', 'byok'] }) credential_kind: string;
  @ApiProperty() credential_hint: string;
  @ApiPropertyOptional() error_type?: string;
  @ApiPropertyOptional() error_message?: string;
  @ApiProperty({ type: [AiTokenUsageDto] }) token_usages: AiTokenUsageDto[];
  @ApiProperty({ type: [AiUserPromptDto] }) user_prompts: AiUserPromptDto[];
  @ApiProperty({ type: [AiToolUsageDto] }) tool_usages: AiToolUsageDto[];
}

export class AiInterceptionsResponseDto {
  @ApiProperty() count: number;
  @ApiProperty({ type: [AiInterceptionDto] }) results: AiInterceptionDto[];
}
