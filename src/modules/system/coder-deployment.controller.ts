import { Body, Get, HttpCode, Inject, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Authenticated, Public } from '../../api/access/access.decorators';
import { CoderController } from '../../api/coder/coder-controller.decorator';
import { GoStruct, GoType } from '../../api/coder/coder-dto.decorators';
import { DEVPLANE_VERSION } from '../../platform/build-info';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { BadRequestError } from '../../platform/errors/domain-error';
import { DeploymentReports } from '../../platform/site-config/deployment-reports';
import { SiteConfigService } from '../../platform/site-config/site-config.service';
import { BlobStore } from '../../platform/storage/blob-store';
import {
  coderDeploymentOptions,
  coderDeploymentValues,
  coderEntitlements,
  wildcardHostname,
} from './coder-deployment.presenter';
import { SystemHealthRepository } from './system-health.repository';

class BannerConfigDto {
  @ApiProperty() @GoType('bool') @IsOptional() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional() @GoType('string') @IsOptional() @IsString() message?: string;
  @ApiPropertyOptional() @GoType('string') @IsOptional() @IsString() background_color?: string;
}

@GoStruct('UpdateAppearanceConfig')
export class UpdateAppearanceConfigDto {
  @ApiPropertyOptional() @GoType('string') @IsOptional() @IsString() application_name?: string;
  @ApiPropertyOptional() @GoType('string') @IsOptional() @IsString() logo_url?: string;
  @ApiPropertyOptional({ type: BannerConfigDto })
  @GoType('codersdk.BannerConfig')
  @IsOptional()
  @ValidateNested()
  @Type(() => BannerConfigDto)
  service_banner?: BannerConfigDto;
  @ApiPropertyOptional({ type: [BannerConfigDto] })
  @GoType('[]codersdk.BannerConfig')
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => BannerConfigDto)
  announcement_banners?: BannerConfigDto[];
}

class HealthSettingsDto {
  @ApiProperty({ type: [String] }) dismissed_healthchecks: string[];
}

@GoStruct('UpdateHealthSettings')
export class UpdateHealthSettingsDto {
  @ApiProperty({ type: [String] })
  @GoType('[]string')
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  dismissed_healthchecks?: string[];
}

class HealthQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() force?: string;
}

const APPEARANCE_KEY = 'coder_appearance';
const HEALTH_SETTINGS_KEY = 'coder_health_settings';
const HEALTH_SECTIONS = [
  'AccessURL',
  'DERP',
  'Database',
  'ProvisionerDaemons',
  'Websocket',
  'WorkspaceProxy',
];
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

type Severity = 'ok' | 'warning' | 'error';
interface Banner {
  enabled: boolean;
  message?: string;
  background_color?: string;
}

/**
 * The deployment reads of Coder's web UI (issue 48 item 3): licence state, experiments, appearance,
 * regions, deployment settings and statistics, the health report, update check. devplane has no
 * licences, workspace proxies or update server: the answers are Coder's for a deployment without them
 * (listed in src/modules/workspaces/README.md, "Coder's web UI").
 */
@CoderController('')
export class CoderDeploymentController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly siteConfig: SiteConfigService,
    private readonly reports: DeploymentReports,
    private readonly health: SystemHealthRepository,
    private readonly blobs: BlobStore,
  ) {}

  @Get('entitlements')
  @Authenticated({ tokenScope: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: "Every feature of Coder's UI: entitled and enabled where devplane has it" })
  @ApiOkResponse({ description: 'codersdk.Entitlements' })
  entitlements(): ReturnType<typeof coderEntitlements> {
    return coderEntitlements(new Date());
  }

  @Get('experiments')
  @Authenticated({ tokenScope: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: 'The enabled experiments (EXPERIMENTS)' })
  @ApiOkResponse({ type: [String] })
  experiments(): string[] {
    return this.config.experiments;
  }

  @Get('experiments/available')
  @Authenticated({ tokenScope: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: 'Experiments devplane knows' })
  @ApiOkResponse({ description: 'codersdk.AvailableExperiments' })
  availableExperiments(): { safe: string[] } {
    return { safe: ['agents', 'workspace-build-updates'] };
  }

  @Get('appearance')
  @Public()
  @ApiOperation({ summary: 'Application name, logo and banners (public: the sign-in page shows them)' })
  @ApiOkResponse({ description: 'codersdk.AppearanceConfig' })
  async appearance(): Promise<Record<string, unknown>> {
    const stored = await this.storedAppearance();
    return {
      application_name: stored.application_name,
      logo_url: stored.logo_url,
      docs_url: `${this.config.publicUrl}docs`,
      service_banner: stored.service_banner,
      announcement_banners: stored.announcement_banners,
      support_links: [],
    };
  }

  @Put('appearance')
  @Authenticated({ rbac: { type: 'deployment_config', action: 'update' } })
  @ApiOperation({ summary: 'Change the application name, logo and banners (owners)' })
  @ApiOkResponse({ description: 'codersdk.UpdateAppearanceConfig' })
  async updateAppearance(@Body() body: UpdateAppearanceConfigDto): Promise<Record<string, unknown>> {
    const banner = (input: BannerConfigDto | undefined): Banner => {
      if (input?.background_color && !HEX_COLOR.test(input.background_color))
        throw new BadRequestError(`"${input.background_color}" is not a valid color.`);
      return {
        enabled: input?.enabled ?? false,
        ...(input?.message ? { message: input.message } : {}),
        ...(input?.background_color ? { background_color: input.background_color } : {}),
      };
    };
    const saved = {
      application_name: body.application_name ?? '',
      logo_url: body.logo_url ?? '',
      service_banner: banner(body.service_banner),
      announcement_banners: (body.announcement_banners ?? []).map(banner),
    };
    await this.siteConfig.set(APPEARANCE_KEY, JSON.stringify(saved));
    return saved;
  }

  private async storedAppearance(): Promise<{
    application_name: string;
    logo_url: string;
    service_banner: Banner;
    announcement_banners: Banner[];
  }> {
    const raw = await this.siteConfig.get(APPEARANCE_KEY);
    const fallback = {
      application_name: '',
      logo_url: '',
      service_banner: { enabled: false },
      announcement_banners: [],
    };
    if (!raw) return fallback;
    try {
      return { ...fallback, ...(JSON.parse(raw) as object) };
    } catch {
      return fallback;
    }
  }

  @Get('workspaceproxies')
  @Authenticated({ tokenScope: { type: 'workspace_proxy', action: 'read' } })
  @ApiOperation({ summary: 'Regions: only the primary one (devplane has no workspace proxies)' })
  @ApiOkResponse({ description: 'codersdk.RegionsResponse[codersdk.WorkspaceProxy]' })
  async workspaceProxies(): Promise<{ regions: Record<string, unknown>[] }> {
    return { regions: [await this.primaryRegion()] };
  }

  private async primaryRegion(): Promise<Record<string, unknown>> {
    const now = new Date().toISOString();
    return {
      id: (await this.siteConfig.get('deployment_id')) ?? '00000000-0000-0000-0000-000000000000',
      name: 'primary',
      display_name: 'Default',
      icon_url: '/emojis/1f3e1.png',
      healthy: true,
      path_app_url: this.config.publicUrl.replace(/\/$/, ''),
      wildcard_hostname: wildcardHostname(this.config.env),
      derp_enabled: false,
      derp_only: false,
      status: { status: 'ok', report: { errors: [], warnings: [] }, checked_at: now },
      created_at: now,
      updated_at: now,
      deleted: false,
      version: `v${DEVPLANE_VERSION}`,
    };
  }

  @Get('deployment/config')
  @Authenticated({ rbac: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: "devplane's settings as Coder's deployment options (secrets masked)" })
  @ApiOkResponse({ description: 'codersdk.DeploymentConfig' })
  deploymentConfig(): { config: Record<string, unknown>; options: unknown[] } {
    return { config: coderDeploymentValues(this.config), options: coderDeploymentOptions(this.config) };
  }

  @Get('deployment/ssh')
  @Authenticated({ tokenScope: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: 'SSH configuration of the CLI (devplane serves no SSH)' })
  @ApiOkResponse({ description: 'codersdk.SSHConfigResponse' })
  deploymentSsh(): Record<string, unknown> {
    return { hostname_prefix: 'coder.', hostname_suffix: '', ssh_config_options: {} };
  }

  @Get('deployment/stats')
  @Authenticated({ rbac: { type: 'deployment_stats', action: 'read' } })
  @ApiOperation({ summary: 'Workspaces by status; devplane counts no sessions or traffic' })
  @ApiOkResponse({ description: 'codersdk.DeploymentStats' })
  async deploymentStats(): Promise<Record<string, unknown>> {
    const now = new Date();
    const counts = (await this.reports.read('workspace_stats')) ?? {
      pending: 0,
      building: 0,
      running: 0,
      failed: 0,
      stopped: 0,
    };
    return {
      aggregated_from: new Date(now.getTime() - 3600_000).toISOString(),
      collected_at: now.toISOString(),
      next_update_at: new Date(now.getTime() + 30_000).toISOString(),
      workspaces: {
        ...counts,
        connection_latency_ms: { p50: 0, p95: 0 },
        rx_bytes: 0,
        tx_bytes: 0,
      },
      session_count: { vscode: 0, ssh: 0, jetbrains: 0, reconnecting_pty: 0 },
    };
  }

  @Get('updatecheck')
  @Authenticated({ tokenScope: { type: 'deployment_config', action: 'read' } })
  @ApiOperation({ summary: 'Update check: devplane asks no update server, so it is current' })
  @ApiOkResponse({ description: 'codersdk.UpdateCheckResponse' })
  updateCheck(): Record<string, unknown> {
    return { current: true, version: `v${DEVPLANE_VERSION}`, url: '' };
  }

  @Get('licenses')
  @Authenticated({ rbac: { type: 'license', action: 'read' } })
  @ApiOperation({ summary: 'Licences: none (devplane needs none)' })
  @ApiOkResponse({ description: '[]codersdk.License' })
  licenses(): unknown[] {
    return [];
  }

  @Get('debug/health/settings')
  @Authenticated({ rbac: { type: 'debug_info', action: 'read' } })
  @ApiOperation({ summary: 'Health sections dismissed by an owner' })
  @ApiOkResponse({ type: HealthSettingsDto })
  async healthSettings(): Promise<HealthSettingsDto> {
    return { dismissed_healthchecks: await this.dismissed() };
  }

  @Put('debug/health/settings')
  @HttpCode(200)
  @Authenticated({ rbac: { type: 'deployment_config', action: 'update' } })
  @ApiOperation({ summary: 'Dismiss health sections (owners)' })
  @ApiOkResponse({ type: HealthSettingsDto })
  async updateHealthSettings(@Body() body: UpdateHealthSettingsDto): Promise<HealthSettingsDto> {
    const sections = body.dismissed_healthchecks ?? [];
    const unknown = sections.filter((section) => !HEALTH_SECTIONS.includes(section));
    if (unknown.length) throw new BadRequestError(`Unknown healthcheck section(s): ${unknown.join(', ')}`);
    await this.siteConfig.set(HEALTH_SETTINGS_KEY, JSON.stringify([...new Set(sections)]));
    return { dismissed_healthchecks: [...new Set(sections)] };
  }

  private async dismissed(): Promise<string[]> {
    try {
      const parsed = JSON.parse((await this.siteConfig.get(HEALTH_SETTINGS_KEY)) ?? '[]') as unknown;
      return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
    } catch {
      return [];
    }
  }

  @Get('debug/health')
  @Authenticated({ rbac: { type: 'debug_info', action: 'read' } })
  @ApiOperation({
    summary:
      "A real report of devplane's parts: database (latency), blob store, provisioner daemons, WebSocket; no DERP or proxies",
  })
  @ApiOkResponse({ description: 'healthsdk.HealthcheckReport' })
  async healthReport(@Query() _query: HealthQueryDto): Promise<Record<string, unknown>> {
    const dismissed = new Set(await this.dismissed());
    const section = (name: string, severity: Severity, fields: Record<string, unknown>) => ({
      healthy: severity !== 'error',
      severity,
      warnings: [] as { code: string; message: string }[],
      dismissed: dismissed.has(name),
      ...fields,
    });

    const started = process.hrtime.bigint();
    let dbError: string | undefined;
    try {
      await this.health.ping();
    } catch (error) {
      dbError = (error as Error).message;
    }
    const latencyMs = Number((process.hrtime.bigint() - started) / 1_000_000n);
    let blobError: string | undefined;
    try {
      await this.blobs.ping();
    } catch (error) {
      blobError = `blob store unreachable: ${(error as Error).message}`;
    }
    const databaseError = dbError ?? blobError;
    const database = section('Database', databaseError ? 'error' : latencyMs > 15 ? 'warning' : 'ok', {
      reachable: dbError === undefined,
      latency: `${latencyMs}ms`,
      latency_ms: latencyMs,
      threshold_ms: 15,
      ...(databaseError ? { error: databaseError } : {}),
    });
    if (!databaseError && latencyMs > 15)
      database.warnings.push({ code: 'EDB02', message: `Database latency ${latencyMs}ms exceeds 15ms.` });

    const daemons = (await this.reports.read('provisioner_daemons').catch(() => undefined)) ?? [];
    const provisioners = section('ProvisionerDaemons', daemons.length ? 'ok' : 'error', {
      items: daemons.map((daemon) => ({ provisioner_daemon: daemon, warnings: [] })),
      ...(daemons.length ? {} : { error: 'No provisioner daemons found!' }),
    });
    delete (provisioners as { healthy?: boolean }).healthy;

    const accessUrl = section('AccessURL', 'ok', {
      access_url: this.config.publicUrl,
      reachable: true,
      status_code: 200,
      healthz_response: 'OK',
    });
    const websocket = section('Websocket', 'ok', { body: '', code: 101 });
    const derp = section('DERP', 'ok', { regions: {}, netcheck_logs: [] });
    const workspaceProxy = section('WorkspaceProxy', 'ok', {
      workspace_proxies: { regions: [await this.primaryRegion()] },
    });

    const parts = [accessUrl, database, provisioners, websocket, derp, workspaceProxy].filter(
      (part) => !part.dismissed,
    );
    const severity: Severity = parts.some((part) => part.severity === 'error')
      ? 'error'
      : parts.some((part) => part.severity === 'warning')
        ? 'warning'
        : 'ok';
    return {
      time: new Date().toISOString(),
      healthy: severity !== 'error',
      severity,
      access_url: accessUrl,
      database,
      derp,
      websocket,
      workspace_proxy: workspaceProxy,
      provisioner_daemons: provisioners,
      coder_version: `v${DEVPLANE_VERSION}`,
    };
  }
}
