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
