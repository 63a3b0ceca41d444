import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiResponse } from '@nestjs/swagger';
import { Authenticated } from '../../../api/access/access.decorators';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { AiProvidersService } from '../ai-providers.service';

/** codersdk.AIProviderKey: never the key itself. */
export class CoderAiProviderKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() masked: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

/** codersdk.AIProvider */
export class CoderAiProviderDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['openai', 'anthropic'] }) type: string;
  @ApiProperty() name: string;
  @ApiProperty() display_name: string;
  @ApiProperty() enabled: boolean;
  @ApiProperty() base_url: string;
  @ApiProperty({ type: [CoderAiProviderKeyDto] }) api_keys: CoderAiProviderKeyDto[];
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true }) settings: null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

/**
 * Coder's `GET /api/v2/ai/providers` (issue 48 item 8): devplane's AI gateway provider instances
 * (`/api/v2/ai-gateway/providers`) in Coder's AIProvider shape. A provider has at most one centralized
 * key, listed masked (`...`) under the provider's id; every instance is enabled; `settings` is null.
 */
@CoderController('ai')
export class CoderAiProvidersController {
  constructor(private readonly providers: AiProvidersService) {}

  @Get('providers')
  @Authenticated({ admin: true, tokenScope: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: "AI gateway provider instances in Coder's AIProvider shape (administrators)" })
  @ApiOkResponse({ type: [CoderAiProviderDto] })
  @ApiResponse({ status: 403, type: CoderResponseDto })
  async list(): Promise<CoderAiProviderDto[]> {
    return (await this.providers.list()).map((provider) => ({
      id: provider.id,
      type: provider.type,
      name: provider.name,
      display_name: provider.name,
      enabled: true,
      base_url: provider.baseUrl,
      api_keys:
        provider.sealedKey !== null
          ? [{ id: provider.id, masked: '...', created_at: provider.createdAt.toISOString() }]
          : [],
      settings: null,
      created_at: provider.createdAt.toISOString(),
      updated_at: provider.updatedAt.toISOString(),
    }));
  }
}
