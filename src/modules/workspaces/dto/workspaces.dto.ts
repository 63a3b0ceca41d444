import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { GoStruct, GoType, GoValidate } from '../../../api/coder/coder-dto.decorators';
import { LIFECYCLE_STATES } from '../workspace-agents.service';

// ------------------------------------------------------------------------------------ requests

@GoStruct('CreateTemplateVersionRequest', { absentBody: 'eof' })
export class CreateTemplateVersionRequestDto {
  @ApiPropertyOptional() @GoType('string') name?: string;
  @ApiPropertyOptional() @GoType('string') message?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('uuid.UUID') template_id?: string;
  @ApiPropertyOptional({ enum: ['devplane'], description: 'the built-in provisioner (the only one today)' })
  @GoType('string')
  provisioner?: string;
  @ApiPropertyOptional({ enum: ['inline'], description: 'devplane: the definition travels in the request' })
  @GoType('string')
  storage_method?: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'devplane template definition: {directory, files, env, apps, startup_script, has_ai_task, vnc_command, presets}',
  })
  @GoType('object')
  definition: Record<string, unknown>;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'an uploaded archive (POST /files) holding devplane.json, instead of `definition`',
  })
  @GoType('uuid.UUID')
  file_id?: string;
  @ApiPropertyOptional({ description: "Coder's starter template: not supported (no examples)" })
  @GoType('uuid.UUID')
  example_id?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'ignored' })
  @GoType('map[string]string')
  tags?: Record<string, string>;
  @ApiPropertyOptional({ type: [Object], description: 'ignored (devplane templates have no variables)' })
  @GoType('[]object')
  user_variable_values?: unknown[];
}

@GoStruct('CreateTemplateRequest', { absentBody: 'eof' })
export class CreateTemplateRequestDto {
  @ApiProperty() @GoType('string') @GoValidate('required') name: string;
  @ApiPropertyOptional() @GoType('string') display_name?: string;
  @ApiPropertyOptional() @GoType('string') description?: string;
  @ApiPropertyOptional() @GoType('string') icon?: string;
  @ApiProperty({ format: 'uuid' }) @GoType('uuid.UUID') @GoValidate('required') template_version_id: string;
}

@GoStruct('UpdateWorkspaceRequest', { absentBody: 'eof' })
export class UpdateWorkspaceRequestDto {
  @ApiPropertyOptional() @GoType('string') name?: string;
}

@GoStruct('UpdateActiveTemplateVersion', { absentBody: 'eof' })
export class UpdateActiveTemplateVersionDto {
  @ApiProperty({ format: 'uuid' }) @GoType('uuid.UUID') @GoValidate('required') id: string;
}

@GoStruct('CreateWorkspaceRequest', { absentBody: 'eof' })
export class CreateWorkspaceRequestDto {
  @ApiProperty() @GoType('string') @GoValidate('required') name: string;
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('uuid.UUID') template_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('uuid.UUID') template_version_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('uuid.UUID') template_version_preset_id?: string;
  @ApiPropertyOptional({ description: 'accepted, ignored' }) @GoType('int64') ttl_ms?: number;
  @ApiPropertyOptional({ description: 'accepted, ignored' }) @GoType('string') autostart_schedule?: string;
  @ApiPropertyOptional({ description: 'accepted, ignored' })
  @GoType('[]WorkspaceBuildParameter')
  rich_parameter_values?: unknown[];
}

@GoStruct('CreateWorkspaceBuildRequest', { absentBody: 'eof' })
export class CreateWorkspaceBuildRequestDto {
  @ApiProperty({ enum: ['start', 'stop', 'delete'] })
  @GoType('string')
  @GoValidate('required')
  @IsIn(['start', 'stop', 'delete'], { message: 'Validation failed for tag "oneof" with value: "$value"' })
  transition: 'start' | 'stop' | 'delete';
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('uuid.UUID') template_version_id?: string;
  @ApiPropertyOptional({
    enum: ['dashboard', 'cli', 'ssh_connection', 'vscode_connection', 'jetbrains_connection'],
  })
  @GoType('string')
  reason?: string;
  @ApiPropertyOptional({ description: 'accepted, ignored' }) @GoType('bool') dry_run?: boolean;
  @ApiPropertyOptional({ description: 'accepted, ignored' }) @GoType('bool') orphan?: boolean;
  @ApiPropertyOptional({ description: 'accepted, ignored' })
  @GoType('[]WorkspaceBuildParameter')
  rich_parameter_values?: unknown[];
  @ApiPropertyOptional({ description: 'accepted, ignored' }) @GoType('string') log_level?: string;
}

@GoStruct('UpdateWorkspaceACL', { absentBody: 'eof' })
export class UpdateWorkspaceAclRequestDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['admin', 'use', ''] },
  })
  @IsOptional()
  @IsObject()
  user_roles?: Record<string, string>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['admin', 'use', ''] },
  })
  @IsOptional()
  @IsObject()
  group_roles?: Record<string, string>;
}

@GoStruct('CreateProvisionerKeyRequest', { absentBody: 'eof' })
export class CreateProvisionerKeyRequestDto {
  @ApiProperty() @GoType('string') @GoValidate('required') name: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  tags?: Record<string, string>;
}

export class CoderListQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() q?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() offset?: string;
}

export class ProvisionerJobsQueryDto {
  @ApiPropertyOptional({ description: 'at most this many jobs, newest first (default 50)' })
  @IsOptional()
  @IsString()
  limit?: string;
  @ApiPropertyOptional({
    description: 'comma-separated statuses: pending, running, succeeded, canceling, canceled, failed',
  })
  @IsOptional()
  @IsString()
  status?: string;
  @ApiPropertyOptional({ description: 'comma-separated job ids' }) @IsOptional() @IsString() ids?: string;
}

export class BuildLogsQueryDto {
  @ApiPropertyOptional({ description: 'log id to start after' }) @IsOptional() @IsString() after?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() before?: string;
  @ApiPropertyOptional({ description: 'accepted; logs are returned at once' })
  @IsOptional()
  @IsString()
  follow?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() format?: string;
}

// ------------------------------------------------------------------------------------ responses

export class ProvisionerJobMetadataDto {
  @ApiProperty() template_version_name: string;
  @ApiProperty({ format: 'uuid' }) template_id: string;
  @ApiProperty() template_name: string;
  @ApiProperty() template_display_name: string;
  @ApiProperty() template_icon: string;
  @ApiPropertyOptional({ format: 'uuid' }) workspace_id?: string;
  @ApiPropertyOptional() workspace_name?: string;
  @ApiPropertyOptional({
    enum: ['start', 'stop', 'delete'],
    description: 'absent for jobs that are not builds',
  })
  workspace_build_transition?: string;
}

export class ProvisionerJobDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiPropertyOptional({ format: 'date-time' }) started_at?: string;
  @ApiPropertyOptional({ format: 'date-time' }) completed_at?: string;
  @ApiPropertyOptional({ format: 'date-time' }) canceled_at?: string;
  @ApiPropertyOptional() error?: string;
  @ApiPropertyOptional() error_code?: string;
  @ApiProperty({ enum: ['pending', 'running', 'succeeded', 'canceling', 'canceled', 'failed', 'unknown'] })
  status: string;
  @ApiPropertyOptional() worker_id?: string;
  @ApiPropertyOptional() worker_name?: string;
  @ApiProperty({ format: 'uuid' }) file_id: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) tags: Record<string, string>;
  @ApiProperty() queue_position: number;
  @ApiProperty() queue_size: number;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty({ format: 'uuid' }) initiator_id: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) input: Record<string, unknown>;
  @ApiProperty({ enum: ['template_version_import', 'workspace_build', 'template_version_dry_run'] })
  type: string;
  @ApiProperty({ type: [String] }) available_workers: string[];
  @ApiProperty({ type: ProvisionerJobMetadataDto }) metadata: ProvisionerJobMetadataDto;
  @ApiProperty() logs_overflowed: boolean;
}

export class WorkspaceAppDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() slug: string;
  @ApiProperty() display_name: string;
  @ApiProperty() url: string;
  @ApiProperty() command: string;
  @ApiProperty() icon: string;
  @ApiProperty() health: string;
  @ApiProperty() sharing_level: string;
}

export class WorkspaceAgentDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) parent_id: string | null;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['connecting', 'connected', 'disconnected', 'timeout'] }) status: string;
  @ApiProperty({ enum: LIFECYCLE_STATES }) lifecycle_state: string;
  @ApiProperty({ format: 'uuid' }) resource_id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiPropertyOptional({ format: 'date-time' }) first_connected_at?: string;
  @ApiPropertyOptional({ format: 'date-time' }) last_connected_at?: string;
  @ApiPropertyOptional({ format: 'date-time' }) disconnected_at?: string;
  @ApiPropertyOptional({ format: 'date-time' }) ready_at?: string;
  @ApiProperty() directory: string;
  @ApiProperty() operating_system: string;
  @ApiProperty() architecture: string;
  @ApiProperty() version: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) environment_variables: Record<
    string,
    string
  >;
  @ApiProperty({ type: [WorkspaceAppDto] }) apps: WorkspaceAppDto[];
  @ApiProperty({ type: 'object', additionalProperties: true }) health: Record<string, unknown>;
}

export class WorkspaceResourceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) job_id: string;
  @ApiProperty() workspace_transition: string;
  @ApiProperty() type: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: [WorkspaceAgentDto] }) agents: WorkspaceAgentDto[];
}

/** Coder's MatchedProvisioners (on a new job's TemplateVersion and WorkspaceBuild). */
export class MatchedProvisionersDto {
  @ApiProperty() count: number;
  @ApiProperty() available: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, required: false })
  most_recently_seen?: string | null;
}

export class WorkspaceBuildDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ format: 'uuid' }) workspace_id: string;
  @ApiProperty() workspace_name: string;
  @ApiProperty({ format: 'uuid' }) workspace_owner_id: string;
  @ApiProperty() workspace_owner_name: string;
  @ApiProperty({ format: 'uuid' }) template_version_id: string;
  @ApiProperty() template_version_name: string;
  @ApiProperty() build_number: number;
  @ApiProperty({ enum: ['start', 'stop', 'delete'] }) transition: string;
  @ApiProperty({ format: 'uuid' }) initiator_id: string;
  @ApiProperty() initiator_name: string;
  @ApiProperty({ type: ProvisionerJobDto }) job: ProvisionerJobDto;
  @ApiProperty() reason: string;
  @ApiProperty({ type: [WorkspaceResourceDto] }) resources: WorkspaceResourceDto[];
  @ApiProperty({
    enum: [
      'pending',
      'starting',
      'running',
      'stopping',
      'stopped',
      'failed',
      'canceling',
      'canceled',
      'deleting',
      'deleted',
    ],
  })
  status: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) template_version_preset_id: string | null;
  @ApiProperty() has_ai_task: boolean;
  @ApiPropertyOptional({
    type: MatchedProvisionersDto,
    description: "Coder's: the daemons that could take the job (a new build; every template version)",
  })
  matched_provisioners?: MatchedProvisionersDto;
}

export class WorkspaceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ format: 'uuid' }) owner_id: string;
  @ApiProperty() owner_name: string;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty() organization_name: string;
  @ApiProperty({ format: 'uuid' }) template_id: string;
  @ApiProperty() template_name: string;
  @ApiProperty({ format: 'uuid' }) template_active_version_id: string;
  @ApiProperty({ type: WorkspaceBuildDto }) latest_build: WorkspaceBuildDto;
  @ApiProperty() outdated: boolean;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'date-time' }) last_used_at: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) health: Record<string, unknown>;
  @ApiProperty() is_prebuild: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deleting_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) dormant_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) next_start_at: string | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true }) latest_app_status: Record<
    string,
    unknown
  > | null;
}

export class WorkspacesResponseDto {
  @ApiProperty({ type: [WorkspaceDto] }) workspaces: WorkspaceDto[];
  @ApiProperty() count: number;
}

export class TemplateDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty() organization_name: string;
  @ApiProperty() name: string;
  @ApiProperty() display_name: string;
  @ApiProperty() description: string;
  @ApiProperty() icon: string;
  @ApiProperty() provisioner: string;
  @ApiProperty({ format: 'uuid' }) active_version_id: string;
  @ApiProperty() active_user_count: number;
  @ApiProperty({ format: 'uuid' }) created_by_id: string;
  @ApiProperty() created_by_name: string;
  @ApiProperty() deprecated: boolean;
  @ApiProperty() deleted: boolean;
  @ApiProperty() time_til_autostop_notify_ms: number;
  @ApiProperty() disable_module_cache: boolean;
  @ApiProperty({
    type: 'object',
    description: "Coder's TemplateBuildTimeStats: per transition P50/P95 milliseconds, null without builds",
    additionalProperties: {
      type: 'object',
      required: ['P50', 'P95'],
      properties: { P50: { type: 'number', nullable: true }, P95: { type: 'number', nullable: true } },
    },
  })
  build_time_stats: Record<string, { P50: number | null; P95: number | null }>;
}

export class TemplateVersionDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional({ format: 'uuid' }) template_id?: string;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty() name: string;
  @ApiProperty() message: string;
  @ApiProperty({ type: ProvisionerJobDto }) job: ProvisionerJobDto;
  @ApiProperty() readme: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) created_by: Record<string, unknown>;
  @ApiProperty() archived: boolean;
  @ApiProperty() has_external_agent: boolean;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'devplane: the definition' })
  definition: Record<string, unknown>;
  @ApiPropertyOptional({
    type: MatchedProvisionersDto,
    description: "Coder's: the daemons that could take the job (a new build; every template version)",
  })
  matched_provisioners?: MatchedProvisionersDto;
}

export class PresetDto {
  @ApiProperty({ format: 'uuid' }) ID: string;
  @ApiProperty() Name: string;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) Parameters: { Name: string; Value: string }[];
  @ApiProperty() Default: boolean;
  @ApiPropertyOptional() DesiredPrebuildInstances?: number | null;
  @ApiProperty() Description: string;
  @ApiProperty() Icon: string;
}

export class ProvisionerJobLogDto {
  @ApiProperty() id: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty() log_source: string;
  @ApiProperty() log_level: string;
  @ApiProperty() stage: string;
  @ApiProperty() output: string;
}

export class WorkspaceAclDto {
  @ApiProperty({ type: 'array', items: { type: 'object' } }) users: Record<string, unknown>[];
  @ApiProperty({ type: 'array', items: { type: 'object' } }) group: Record<string, unknown>[];
}

export class ProvisionerKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'uuid' }) organization: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) tags: Record<string, string>;
}

export class CreateProvisionerKeyResponseDto {
  @ApiProperty() key: string;
}

export class WorkspaceBuildResponseEnvelopeDto {
  @ApiProperty({ type: WorkspaceBuildDto }) workspace_build: WorkspaceBuildDto;
}

export class ProvisionerDaemonsQueryDto {
  @ApiPropertyOptional({ description: 'at most this many daemons, newest first (default 50)' })
  @IsOptional()
  @IsString()
  limit?: string;
  @ApiPropertyOptional({ description: 'comma-separated daemon ids' }) @IsOptional() @IsString() ids?: string;
  @ApiPropertyOptional({ description: 'a JSON object of tags the daemons must carry' })
  @IsOptional()
  @IsString()
  tags?: string;
  @ApiPropertyOptional({ description: 'comma-separated statuses: offline, idle, busy' })
  @IsOptional()
  @IsString()
  status?: string;
  @ApiPropertyOptional({ description: 'true: offline daemons too (without `status`)' })
  @IsOptional()
  @IsString()
  offline?: string;
  @ApiPropertyOptional({ description: 'only daemons seen within this duration (Go syntax: 30s, 5m, 24h)' })
  @IsOptional()
  @IsString()
  max_age?: string;
}

export class ProvisionerDaemonJobDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['pending', 'running', 'succeeded', 'canceling', 'canceled', 'failed'] })
  status: string;
  @ApiProperty() template_name: string;
  @ApiProperty() template_icon: string;
  @ApiProperty() template_display_name: string;
}

/** Coder's ProvisionerDaemon. */
export class ProvisionerDaemonDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty({ format: 'uuid' }) key_id: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_seen_at: string | null;
  @ApiProperty() name: string;
  @ApiProperty() version: string;
  @ApiProperty() api_version: string;
  @ApiProperty({ type: [String], description: 'devplane: ["devplane"] (its one provisioner)' })
  provisioners: string[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) tags: Record<string, string>;
  @ApiProperty({ type: String, nullable: true }) key_name: string | null;
  @ApiProperty({ type: String, enum: ['offline', 'idle', 'busy'], nullable: true }) status: string | null;
  @ApiProperty({ type: ProvisionerDaemonJobDto, nullable: true }) current_job: ProvisionerDaemonJobDto | null;
  @ApiProperty({ type: ProvisionerDaemonJobDto, nullable: true })
  previous_job: ProvisionerDaemonJobDto | null;
}
