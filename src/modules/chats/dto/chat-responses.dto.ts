import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/**
 * Response shapes of the chat routes as Coder's client types them (codersdk chats): required fields,
 * nullability and enums are what the e2e schema check validates live responses against.
 */
export class ChatMessageUsageDto {
  @ApiProperty() input_tokens: number;
  @ApiProperty() output_tokens: number;
  @ApiProperty() reasoning_tokens: number;
  @ApiProperty() cache_read_tokens: number;
  @ApiProperty() cache_creation_tokens: number;
}

export class ChatMessageDto {
  @ApiProperty() id: number;
  @ApiProperty({ format: 'uuid' }) chat_id: string;
  @ApiProperty({ enum: ['system', 'user', 'assistant', 'tool'] }) role: string;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  content: Record<string, unknown>[];
  @ApiPropertyOptional({ format: 'uuid' }) model_config_id?: string;
  @ApiPropertyOptional({ type: ChatMessageUsageDto }) usage?: ChatMessageUsageDto;
  @ApiPropertyOptional({ type: Number, nullable: true, description: 'null when unpriced, 0 when free' })
  total_cost_micros?: number | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class ChatQueuedMessageDto {
  @ApiProperty() id: number;
  @ApiProperty({ format: 'uuid' }) chat_id: string;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  content: Record<string, unknown>[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class ChatMessagesResponseDto {
  @ApiProperty({ type: [ChatMessageDto], description: 'newest first' }) messages: ChatMessageDto[];
  @ApiProperty({ type: [ChatQueuedMessageDto] }) queued_messages: ChatQueuedMessageDto[];
  @ApiProperty() has_more: boolean;
}

export class CreateChatMessageResponseDto {
  @ApiPropertyOptional({ type: ChatMessageDto }) message?: ChatMessageDto;
  @ApiPropertyOptional({ type: ChatQueuedMessageDto }) queued_message?: ChatQueuedMessageDto;
  @ApiProperty() queued: boolean;
}

export class ChatModelDto {
  @ApiProperty({ format: 'uuid', description: 'the model configuration' }) id: string;
  @ApiProperty() provider: string;
  @ApiProperty() model: string;
  @ApiProperty() display_name: string;
}

export class ChatModelProviderDto {
  @ApiProperty() provider: string;
  @ApiProperty() available: boolean;
  @ApiPropertyOptional() unavailable_reason?: string;
  @ApiProperty({ type: [ChatModelDto] }) models: ChatModelDto[];
}

export class ChatModelsResponseDto {
  @ApiProperty({ type: [ChatModelProviderDto] }) providers: ChatModelProviderDto[];
}

const CHAT_ERROR_KINDS = [
  'generic',
  'overloaded',
  'rate_limit',
  'timeout',
  'stream_silence_timeout',
  'auth',
  'config',
  'usage_limit',
  'missing_key',
  'provider_disabled',
  'content_filter',
  'hook_dispatch_failed',
  'hook_denied',
];

export class ChatErrorDto {
  @ApiProperty({ enum: CHAT_ERROR_KINDS }) kind: string;
  @ApiProperty() message: string;
}

/** codersdk.Chat as devplane serves it. */
export class ChatDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty({ format: 'uuid' }) owner_id: string;
  @ApiProperty() owner_username: string;
  @ApiProperty() owner_name: string;
  @ApiPropertyOptional({ format: 'uuid' }) workspace_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) parent_chat_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) root_chat_id?: string;
  @ApiProperty({ format: 'uuid' }) last_model_config_id: string;
  @ApiProperty() title: string;
  @ApiProperty({
    enum: [
      'waiting',
      'pending',
      'running',
      'paused',
      'completed',
      'error',
      'requires_action',
      'interrupting',
    ],
  })
  status: string;
  @ApiProperty() archived: boolean;
  @ApiProperty() shared: boolean;
  @ApiProperty() pin_order: number;
  @ApiProperty({ type: [String] }) mcp_server_ids: string[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels: Record<string, string>;
  @ApiProperty() has_unread: boolean;
  @ApiProperty({ enum: ['ui', 'api'] }) client_type: string;
  @ApiProperty({ type: [String] }) warnings: string[];
  @ApiPropertyOptional({
    type: ChatErrorDto,
    description: 'present only when the chat failed (Go omitempty)',
  })
  last_error?: ChatErrorDto;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  children: Record<string, unknown>[];
  @ApiProperty({ type: String, nullable: true }) last_turn_summary: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}
