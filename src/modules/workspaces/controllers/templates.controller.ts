import { Body, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { BadRequestError, NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { CoderOrganizationsService } from '../../identity/management/coder-organizations.service';
import { presentJob, presentResource } from '../coder-workspace.presenter';
import {
  BuildLogsQueryDto,
  CreateTemplateRequestDto,
  CreateTemplateVersionRequestDto,
  PresetDto,
  ProvisionerJobLogDto,
  TemplateDto,
  TemplateVersionDto,
  UpdateActiveTemplateVersionDto,
  WorkspaceResourceDto,
} from '../dto/workspaces.dto';
import type { Template } from '../entities/template.entity';
import type { TemplateVersion } from '../entities/template-version.entity';
import { ProvisionerDaemonsService } from '../provisioner-daemons.service';
import { WorkspacesService } from '../workspaces.service';
import { readmeOf } from '../template-archive';
import { TemplateFilesService } from '../template-files.service';

const ERROR = { type: CoderResponseDto };
const UUID_PIPE = new ParseUUIDPipe({ exceptionFactory: () => new BadRequestError('Invalid UUID.') });

/** Coder's templates and template versions (`/api/v2/organizations/{org}/templates…`, `/templates/{id}`, `/templateversions/{id}`). */
@CoderController('')
export class TemplatesController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly organizations: CoderOrganizationsService,
    private readonly daemons: ProvisionerDaemonsService,
    private readonly files: TemplateFilesService,
  ) {}

  @Post('organizations/:organization/templateversions')
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'template', action: 'create' } })
  @ApiOperation({ summary: 'Create a template version (its import job runs on a provisioner)' })
  @ApiCreatedResponse({ type: TemplateVersionDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async createVersion(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') organizationRef: string,
    @Body() body: CreateTemplateVersionRequestDto,
  ): Promise<TemplateVersionDto> {
    const organization = await this.organizations.resolve(principal, organizationRef);
    // Coder's UI uploads archives with `provisioner: "terraform"`: with a file, that name is taken
    // for devplane's provisioner (the archive must hold devplane.json, template-archive.ts).
    const accepted = body.file_id ? ['', 'devplane', 'terraform'] : ['', 'devplane'];
    if (body.provisioner !== undefined && !accepted.includes(body.provisioner))
      throw new BadRequestError(
        `Provisioner "${body.provisioner}" is not available: devplane ships the "devplane" provisioner.`,
      );
    const file = body.file_id
      ? await this.files.require(principal, body.file_id, () => Promise.resolve(false))
      : undefined;
    const version = await this.workspaces.createVersion(principal, {
      organizationId: organization.account.uuid,
      name: body.name,
      message: body.message,
      templateId: body.template_id,
      definition: file ? await this.files.definitionOf(file) : body.definition,
    });
    if (file) await this.files.linkVersion(version.id, file.id);
    return this.presentVersion(version);
  }

  @Get('templateversions/:templateversion')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: 'Get a template version' })
  @ApiOkResponse({ type: TemplateVersionDto })
  @ApiResponse({ status: 404, ...ERROR })
  async getVersion(
    @CurrentPrincipal() principal: Principal,
    @Param('templateversion', UUID_PIPE) id: string,
  ): Promise<TemplateVersionDto> {
    return this.presentVersion(await this.workspaces.requireVersion(principal, id));
  }

  @Get('templateversions/:templateversion/presets')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: 'List the presets of a template version' })
  @ApiOkResponse({ type: [PresetDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async presets(
    @CurrentPrincipal() principal: Principal,
    @Param('templateversion', UUID_PIPE) id: string,
  ): Promise<PresetDto[]> {
    const version = await this.workspaces.requireVersion(principal, id);
    return (await this.workspaces.presets(version)).map((preset) => ({
      ID: preset.id,
      Name: preset.name,
      Parameters: Object.entries(preset.parameters ?? {}).map(([Name, Value]) => ({ Name, Value })),
      Default: preset.isDefault,
      DesiredPrebuildInstances: preset.desiredInstances,
      Description: '',
      Icon: '',
    }));
  }

  @Get('templateversions/:templateversion/logs')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: 'Logs of a template version import job' })
  @ApiOkResponse({ type: [ProvisionerJobLogDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async versionLogs(
    @CurrentPrincipal() principal: Principal,
    @Param('templateversion', UUID_PIPE) id: string,
    @Query() query: BuildLogsQueryDto,
  ): Promise<ProvisionerJobLogDto[]> {
    const version = await this.workspaces.requireVersion(principal, id);
    const logs = await this.workspaces.buildLogs(
      version.jobId,
      Math.max(Number.parseInt(query.after ?? '0', 10) || 0, 0),
    );
    return logs.map((log) => ({ ...log, created_at: new Date(log.created_at).toISOString() }));
  }

  @Post('organizations/:organization/templates')
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'template', action: 'create' } })
  @ApiOperation({ summary: 'Create a template from an imported version' })
  @ApiCreatedResponse({ type: TemplateDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async createTemplate(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') organizationRef: string,
    @Body() body: CreateTemplateRequestDto,
  ): Promise<TemplateDto> {
    const organization = await this.organizations.resolve(principal, organizationRef);
    const template = await this.workspaces.createTemplate(principal, organization.account.uuid, {
      name: body.name,
      displayName: body.display_name,
      description: body.description,
      icon: body.icon,
      versionId: body.template_version_id,
    });
    return (await this.presentTemplates([template]))[0]!;
  }

  @Get('organizations/:organization/templates')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: "List an organization's templates" })
  @ApiOkResponse({ type: [TemplateDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async listTemplates(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') organizationRef: string,
  ): Promise<TemplateDto[]> {
    const organization = await this.organizations.resolve(principal, organizationRef);
    return this.presentTemplates(await this.workspaces.listTemplates(principal, organization.account.uuid));
  }

  @Get('organizations/:organization/templates/:templatename')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: "An organization's template by name" })
  @ApiOkResponse({ type: TemplateDto })
  @ApiResponse({ status: 404, ...ERROR })
  async templateByName(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') organizationRef: string,
    @Param('templatename') name: string,
  ): Promise<TemplateDto> {
    const organization = await this.organizations.resolve(principal, organizationRef);
    const template = (await this.workspaces.listTemplates(principal, organization.account.uuid)).find(
      (candidate) => candidate.lowerName === name.toLowerCase(),
    );
    if (!template) throw new NotFoundError('Resource not found or you do not have access to this resource');
    return (await this.presentTemplates([template]))[0]!;
  }

  @Get('organizations/:organization/templates/:templatename/versions/:templateversionname')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: "A template's version by name" })
  @ApiOkResponse({ type: TemplateVersionDto })
  @ApiResponse({ status: 404, ...ERROR })
  async versionByName(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') organizationRef: string,
    @Param('templatename') templateName: string,
    @Param('templateversionname') versionName: string,
  ): Promise<TemplateVersionDto> {
    const organization = await this.organizations.resolve(principal, organizationRef);
    const template = (await this.workspaces.listTemplates(principal, organization.account.uuid)).find(
      (candidate) => candidate.lowerName === templateName.toLowerCase(),
    );
    if (!template) throw new NotFoundError('Resource not found or you do not have access to this resource');
    const version = (await this.workspaces.templateVersions(template)).find(
      (candidate) => candidate.name === versionName,
    );
    if (!version) throw new NotFoundError('Resource not found or you do not have access to this resource');
    return this.presentVersion(version);
  }

  @Get('templates')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: 'Every template the caller may read, across organizations' })
  @ApiOkResponse({ type: [TemplateDto] })
  async allTemplates(@CurrentPrincipal() principal: Principal): Promise<TemplateDto[]> {
    const organizations = await this.organizations.list(principal);
    const templates = [];
    for (const organization of organizations)
      templates.push(...(await this.workspaces.listTemplates(principal, organization.account.uuid)));
    return this.presentTemplates(templates);
  }

  @Get('templates/:template')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: 'Get a template' })
  @ApiOkResponse({ type: TemplateDto })
  @ApiResponse({ status: 404, ...ERROR })
  async getTemplate(
    @CurrentPrincipal() principal: Principal,
    @Param('template', UUID_PIPE) id: string,
  ): Promise<TemplateDto> {
    return (await this.presentTemplates([await this.workspaces.requireTemplate(principal, id)]))[0]!;
  }

  @Get('templates/:template/versions')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: "A template's versions, oldest first" })
  @ApiOkResponse({ type: [TemplateVersionDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async versions(
    @CurrentPrincipal() principal: Principal,
    @Param('template', UUID_PIPE) id: string,
  ): Promise<TemplateVersionDto[]> {
    const template = await this.workspaces.requireTemplate(principal, id);
    const out: TemplateVersionDto[] = [];
    for (const version of await this.workspaces.templateVersions(template))
      out.push(await this.presentVersion(version));
    return out;
  }

  @Get('templateversions/:templateversion/resources')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: "The resources a template version's import produced" })
  @ApiOkResponse({ type: [WorkspaceResourceDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async versionResources(
    @CurrentPrincipal() principal: Principal,
    @Param('templateversion', UUID_PIPE) id: string,
  ): Promise<WorkspaceResourceDto[]> {
    const version = await this.workspaces.requireVersion(principal, id);
    return (await this.workspaces.jobResources(version.jobId)).map(
      (resource) =>
        presentResource(
          resource,
          this.workspaces.config.agentDisconnectMs,
        ) as unknown as WorkspaceResourceDto,
    );
  }

  @Patch('templates/:template/versions')
  @Authenticated({ tokenScope: { type: 'template', action: 'update' } })
  @ApiOperation({ summary: "Promote a version to the template's active version" })
  @ApiOkResponse({ type: CoderResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async setActiveVersion(
    @CurrentPrincipal() principal: Principal,
    @Param('template', UUID_PIPE) id: string,
    @Body() body: UpdateActiveTemplateVersionDto,
  ): Promise<CoderResponseDto> {
    await this.workspaces.setActiveVersion(principal, id, body.id);
    return { message: 'Updated the active template version!' };
  }

  private async presentVersion(version: TemplateVersion): Promise<TemplateVersionDto> {
    const job = await this.workspaces.versionJob(version);
    const users = await this.workspaces.userSummaries([version.createdBy]);
    const template = await this.workspaces.versionTemplateHeader(version);
    return {
      id: version.id,
      template_id: version.templateId ?? undefined,
      organization_id: version.organizationId,
      created_at: new Date(version.createdAt).toISOString(),
      updated_at: new Date(version.updatedAt).toISOString(),
      name: version.name,
      message: version.message,
      job: {
        ...presentJob(job, {
          template_version_name: version.name,
          template_id: version.templateId ?? '',
          template_name: template?.name ?? '',
          template_display_name: template?.display_name ?? '',
          template_icon: template?.icon ?? '',
        }),
        // The version's archive (Coder's job file), readable through GET /files/{id}.
        file_id: await this.files.versionFileId(version),
      } as unknown as TemplateVersionDto['job'],
      readme: readmeOf(version.definition),
      created_by: {
        id: version.createdBy,
        username: users.get(version.createdBy)?.name ?? '',
        avatar_url: '',
      },
      archived: false,
      has_external_agent: false,
      definition: { ...version.definition },
      // Coder: the daemons that could take the import job now.
      matched_provisioners: await this.daemons.matched(job.organization_id, job.tags),
    };
  }

  private async presentTemplates(templates: Template[]): Promise<TemplateDto[]> {
    if (templates.length === 0) return [];
    const users = await this.workspaces.userSummaries([
      ...templates.map((template) => template.createdBy),
      ...templates.map((template) => template.organizationId),
    ]);
    const counts = await this.workspaces.templateWorkspaceCounts(templates.map((template) => template.id));
    const stats = await this.workspaces.buildTimeStats(templates.map((template) => template.id));
    return templates.map((template) => ({
      id: template.id,
      created_at: new Date(template.createdAt).toISOString(),
      updated_at: new Date(template.updatedAt).toISOString(),
      organization_id: template.organizationId,
      organization_name: users.get(template.organizationId)?.name ?? '',
      organization_display_name: users.get(template.organizationId)?.name ?? '',
      organization_icon: '',
      name: template.name,
      display_name: template.displayName,
      description: template.description,
      icon: template.icon,
      provisioner: 'devplane',
      active_version_id: template.activeVersionId,
      active_user_count: counts.get(template.id) ?? 0,
      build_time_stats: stats.get(template.id) ?? {
        start: { P50: null, P95: null },
        stop: { P50: null, P95: null },
        delete: { P50: null, P95: null },
      },
      created_by_id: template.createdBy,
      created_by_name: users.get(template.createdBy)?.name ?? '',
      deprecated: false,
      deleted: false,
      time_til_autostop_notify_ms: 0,
      disable_module_cache: false,
      deprecation_message: '',
      allow_user_cancel_workspace_jobs: false,
      allow_user_autostart: false,
      allow_user_autostop: false,
      default_ttl_ms: 0,
      activity_bump_ms: 0,
      autostop_requirement: { days_of_week: [], weeks: 1 },
      autostart_requirement: { days_of_week: [] },
      failure_ttl_ms: 0,
      time_til_dormant_ms: 0,
      time_til_dormant_autodelete_ms: 0,
      require_active_version: false,
      max_port_share_level: 'owner',
      use_classic_parameter_flow: false,
      cors_behavior: 'simple',
    }));
  }
}
