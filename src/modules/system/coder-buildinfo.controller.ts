import { Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { CoderController } from '../../api/coder/coder-controller.decorator';
import { DEVPLANE_VERSION } from '../../platform/build-info';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { SiteConfigService } from '../../platform/site-config/site-config.service';
import { Public } from '../../api/access/access.decorators';

/** codersdk.BuildInfoResponse */
export class BuildInfoDto {
  @ApiProperty() external_url: string;
  @ApiProperty() version: string;
  @ApiProperty() dashboard_url: string;
  @ApiProperty() workspace_proxy: boolean;
  @ApiProperty() agent_api_version: string;
  @ApiProperty() provisioner_api_version: string;
  @ApiProperty() upgrade_message: string;
  @ApiProperty({ format: 'uuid' }) deployment_id: string;
  @ApiProperty() telemetry: boolean;
}

@CoderController('buildinfo')
export class CoderBuildInfoController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly siteConfig: SiteConfigService,
  ) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Build information' })
  @ApiOkResponse({ type: BuildInfoDto })
  async get(): Promise<BuildInfoDto> {
    return {
      external_url: 'https://github.com/devplane/devplane',
      version: `v${DEVPLANE_VERSION}`,
      dashboard_url: this.config.publicUrl,
      workspace_proxy: false,
      agent_api_version: '2.0',
      provisioner_api_version: '1.0',
      upgrade_message: '',
      deployment_id: (await this.siteConfig.get('deployment_id')) ?? '',
      telemetry: false,
    };
  }
}
