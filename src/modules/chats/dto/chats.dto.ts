import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { GoStruct, GoType, GoValidate } from '../../../api/coder/coder-dto.decorators';

export class ChatInputPartDto {
  @ApiProperty({ enum: ['text', 'file', 'file-reference'] }) type: 'text' | 'file' | 'file-reference';
  @ApiPropertyOptional() text?: string;
  @ApiPropertyOptional({ format: 'uuid' }) file_id?: string;
}

@GoStruct('CreateChatRequest', { absentBody: 'eof' })
export class CreateChatRequestDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'default: your default organization' })
  @GoType('uuid.UUID')
  organization_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('uuid.UUID') workspace_id?: string;
  @ApiProperty({ format: 'uuid' }) @GoType('uuid.UUID') @GoValidate('required') model_config_id: string;
  @ApiProperty({ type: [ChatInputPartDto] }) @GoType('[]ChatInputPart') content: ChatInputPartDto[];
  @ApiPropertyOptional({ format: 'uuid', description: 'devplane: a subagent chat of this chat' })
  @GoType('uuid.UUID')
  parent_chat_id?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @GoType('object')
  labels?: Record<string, string>;
  @ApiPropertyOptional({ enum: ['ui', 'api'] }) @GoType('string') client_type?: string;
}

@GoStruct('CreateChatMessageRequest', { absentBody: 'eof' })
export class CreateChatMessageRequestDto {
  @ApiProperty({ type: [ChatInputPartDto] }) @GoType('[]ChatInputPart') content: ChatInputPartDto[];
}

/** Coder's ChatModelCallConfig cost block: decimal strings, dollars per million tokens. */
export class ChatModelCostDto {
  @ApiPropertyOptional({ type: String, nullable: true }) input_price_per_million_tokens?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) output_price_per_million_tokens?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) cache_read_price_per_million_tokens?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) cache_write_price_per_million_tokens?: string | null;
}

/** Coder's ChatModelCallConfig (devplane reads its `cost`). */
export class ChatModelCallConfigDto {
  @ApiPropertyOptional({ type: ChatModelCostDto }) cost?: ChatModelCostDto;
}

@GoStruct('CreateChatModelConfigRequest', { absentBody: 'eof' })
export class CreateChatModelConfigRequestDto {
  @ApiProperty({ description: 'an AI gateway provider name' })
  @GoType('string')
  @GoValidate('required')
  provider: string;
  @ApiProperty() @GoType('string') @GoValidate('required') model: string;
  @ApiPropertyOptional() @GoType('string') display_name?: string;
  @ApiPropertyOptional({
    description: 'dollars per million tokens, e.g. "3" or "0.075"; absent = not priced',
  })
  @GoType('string')
  input_price_per_million_tokens?: string;
  @ApiPropertyOptional() @GoType('string') output_price_per_million_tokens?: string;
  @ApiPropertyOptional() @GoType('string') cache_read_price_per_million_tokens?: string;
  @ApiPropertyOptional() @GoType('string') cache_write_price_per_million_tokens?: string;
  @ApiPropertyOptional({
    type: ChatModelCallConfigDto,
    description: "Coder's shape: prices in model_config.cost (they win over the flat fields)",
  })
  @GoType('object')
  model_config?: ChatModelCallConfigDto;
  @ApiPropertyOptional({ description: 'make this the default model configuration (one at most)' })
  @GoType('bool')
  is_default?: boolean;
}

export class UpdateChatModelConfigRequestDto {
  @ApiPropertyOptional({ description: 'an AI gateway provider name' }) @GoType('string') provider?: string;
  @ApiPropertyOptional() @GoType('string') model?: string;
  @ApiPropertyOptional() @GoType('string') display_name?: string;
  @ApiPropertyOptional({
    description: 'dollars per million tokens; "" = no longer priced; absent = unchanged',
  })
  @GoType('string')
  input_price_per_million_tokens?: string;
  @ApiPropertyOptional() @GoType('string') output_price_per_million_tokens?: string;
  @ApiPropertyOptional() @GoType('string') cache_read_price_per_million_tokens?: string;
  @ApiPropertyOptional() @GoType('string') cache_write_price_per_million_tokens?: string;
  @ApiPropertyOptional({
    type: ChatModelCallConfigDto,
    description: "Coder's shape: prices in model_config.cost (they win over the flat fields)",
  })
  @GoType('object')
  model_config?: ChatModelCallConfigDto;
  @ApiPropertyOptional({ description: 'make this the default model configuration (one at most)' })
  @GoType('bool')
  is_default?: boolean;
}

export class ChatListQueryDto {
  @ApiPropertyOptional({
    description:
      'title:, archived:bool (default false), search:, pr_status:draft|open|merged|closed, pr_title:, repo:owner/name, pr:number-or-url',
  })
  @IsOptional()
  @IsString()
  q?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() offset?: string;
}

/** Coder's getChatMessages paging: the page of messages older than `before_id`, newest first. */
export class ChatMessagesQueryDto {
  @ApiPropertyOptional({ description: 'only messages with a smaller id' })
  @IsOptional()
  @IsString()
  before_id?: string;
  @ApiPropertyOptional({ description: '1-200, default 50' }) @IsOptional() @IsString() limit?: string;
}

/** Coder's UpdateChatRequest (the chat UI archives with `{archived: true|false}`). */
@GoStruct('UpdateChatRequest', { absentBody: 'eof' })
export class UpdateChatRequestDto {
  @ApiPropertyOptional() @GoType('bool') archived?: boolean | null;
}

export class ChatFileUploadQueryDto {
  @ApiProperty({ format: 'uuid' }) @IsOptional() @IsString() organization?: string;
}

export class CostRangeQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'default: 30 days ago' })
  @IsOptional()
  @IsString()
  start_date?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'default: now' })
  @IsOptional()
  @IsString()
  end_date?: string;
}

export class CostUsersQueryDto extends CostRangeQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() username?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() offset?: string;
}
