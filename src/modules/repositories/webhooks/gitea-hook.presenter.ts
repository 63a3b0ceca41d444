import { ApiProperty } from '@nestjs/swagger';
import type { Webhook } from './webhook.entity';
import type { CreateHookOptionDto, EditHookOptionDto } from './webhooks.dto';
import type { CreateHookInput, EditHookInput } from './webhooks.service';

/** Gitea's `Hook` (modules/structs/hook.go): the secret is never returned. */
export class GiteaHookDto {
  @ApiProperty() id: number;
  @ApiProperty({ example: 'gitea' }) type: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: '`url`, `content_type` (`json`|`form`), `http_method`',
  })
  config: Record<string, string>;
  @ApiProperty({ type: [String] }) events: string[];
  @ApiProperty() authorization_header: string;
  @ApiProperty() active: boolean;
  @ApiProperty() branch_filter: string;
  @ApiProperty() is_system_webhook: boolean;
  @ApiProperty() updated_at: string;
  @ApiProperty() created_at: string;
}

export function presentGiteaHook(hook: Webhook, authorizationHeader: string): GiteaHookDto {
  return {
    id: Number(hook.id),
    type: hook.type,
    config: { url: hook.url, content_type: hook.contentType, http_method: 'POST' },
    events: hook.events,
    authorization_header: authorizationHeader,
    active: hook.active,
    branch_filter: hook.branchFilter,
    is_system_webhook: false,
    updated_at: hook.updatedAt.toISOString(),
    created_at: hook.createdAt.toISOString(),
  };
}

/** Gitea's `EditHookOption` as the service's input (repository and organization hooks alike). */
export function editHookInput(body: EditHookOptionDto): EditHookInput {
  return {
    config: body.config,
    events: body.events,
    branchFilter: body.branch_filter,
    authorizationHeader: body.authorization_header,
    active: body.active,
  };
}

/** Gitea's `CreateHookOption` as the service's input. */
export function createHookInput(body: CreateHookOptionDto): CreateHookInput {
  return { ...editHookInput(body), type: body.type, config: body.config };
}
