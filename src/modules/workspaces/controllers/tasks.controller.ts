import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
} from '@nestjs/swagger';
import { randomBytes } from 'node:crypto';
import { GoStruct, GoType, GoValidate } from '../../../api/coder/coder-dto.decorators';
import { InvalidError } from '../../../platform/errors/domain-error';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { UserDirectory } from '../../identity/user-directory.service';
import { agentStatus, presentBuild, workspaceStatus } from '../coder-workspace.presenter';
import {
  CoderListQueryDto,
  WorkspaceBuildDto,
  WorkspaceBuildResponseEnvelopeDto,
} from '../dto/workspaces.dto';
import { TasksService } from '../tasks.service';
import type { BuildRow, UserSummary, WorkspaceRow } from '../workspace-views';
import { notFound, WorkspacesService } from '../workspaces.service';
import { coderPage, coderSearch } from '../../../api/coder/coder-search-query';

const ERROR = { type: CoderResponseDto };

const AGENT_LIFECYCLES = [
  'created',
  'starting',
  'start_timeout',
  'start_error',
  'ready',
  'shutting_down',
  'shutdown_timeout',
  'shutdown_error',
  'off',
];

export class TaskAgentHealthDto {
  @ApiProperty() healthy: boolean;
  @ApiPropertyOptional() reason?: string;
}

/** codersdk.Task. */
export class TaskDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty({ format: 'uuid' }) owner_id: string;
  @ApiProperty() owner_name: string;
  @ApiPropertyOptional() owner_avatar_url?: string;
  @ApiProperty() name: string;
  @ApiProperty() display_name: string;
  @ApiProperty({ format: 'uuid' }) template_id: string;
  @ApiProperty({ format: 'uuid' }) template_version_id: string;
  @ApiProperty() template_name: string;
  @ApiProperty() template_display_name: string;
  @ApiProperty() template_icon: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) workspace_id: string | null;
  @ApiProperty() workspace_name: string;
  @ApiPropertyOptional({
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
  workspace_status?: string;
  @ApiPropertyOptional() workspace_build_number?: number;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) workspace_agent_id: string | null;
  @ApiProperty({ type: String, enum: AGENT_LIFECYCLES, nullable: true })
  workspace_agent_lifecycle: string | null;
  @ApiProperty({ type: TaskAgentHealthDto, nullable: true })
  workspace_agent_health: TaskAgentHealthDto | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) workspace_app_id: string | null;
  @ApiProperty() initial_prompt: string;
  @ApiProperty({ enum: ['pending', 'initializing', 'active', 'paused', 'unknown', 'error'] }) status: string;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: 'always null' })
  current_state: Record<string, unknown> | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class TasksResponseDto {
  @ApiProperty({ type: [TaskDto] }) tasks: TaskDto[];
  @ApiProperty() count: number;
}

/** codersdk.CreateTaskRequest. */
@GoStruct('CreateTaskRequest')
export class CreateTaskRequestDto {
  @ApiProperty({ format: 'uuid' }) @GoType('uuid.UUID') @GoValidate('required') template_version_id: string;
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('uuid.UUID') template_version_preset_id?: string;
  @ApiProperty({ description: 'the prompt' }) @GoType('string') input: string;
  @ApiPropertyOptional({ description: 'the workspace name; generated when absent' })
  @GoType('string')
  name?: string;
  @ApiPropertyOptional() @GoType('string') display_name?: string;
}

function taskStatus(workspace: string, agentReady: boolean): string {
  if (workspace === 'pending') return 'pending';
  if (workspace === 'starting') return 'initializing';
  if (workspace === 'running') return agentReady ? 'active' : 'initializing';
  if (workspace === 'stopping' || workspace === 'stopped') return 'paused';
  if (workspace === 'failed') return 'error';
  return 'unknown';
}

/** Coder's Task JSON of a task workspace and its latest build. */
export function presentTask(
  workspace: WorkspaceRow,
  build: BuildRow,
  users: Map<string, UserSummary>,
  disconnectMs: number,
): TaskDto {
  const status = workspaceStatus(build.job.status, build.transition);
  const agents = build.resources.flatMap((resource) => resource.agents);
  const agent = agents[0];
  const agentState = agent ? agentStatus(agent, disconnectMs) : undefined;
  const ready = agents.some(
    (candidate) =>
      candidate.lifecycle_state === 'ready' && agentStatus(candidate, disconnectMs) === 'connected',
  );
  const owner = users.get(workspace.owner_id);
  return {
    id: workspace.id,
    organization_id: workspace.organization_id,
    owner_id: workspace.owner_id,
    owner_name: owner?.name ?? '',
    owner_avatar_url: owner?.avatar_url ?? '',
    name: workspace.name,
    display_name: workspace.task_display_name || workspace.name,
    template_id: workspace.template_id,
    template_version_id: build.template_version_id,
    template_name: workspace.template_name,
    template_display_name: workspace.template_display_name,
    template_icon: workspace.template_icon,
    workspace_id: workspace.id,
    workspace_name: workspace.name,
    workspace_status: status,
    workspace_build_number: build.build_number,
    workspace_agent_id: agent?.id ?? null,
    workspace_agent_lifecycle: agent?.lifecycle_state ?? null,
    workspace_agent_health: agent
      ? agentState === 'connected'
        ? { healthy: true }
        : { healthy: false, reason: `agent is ${agentState}` }
      : null,
    workspace_app_id: agent?.apps?.[0]?.id ?? null,
    initial_prompt: workspace.task_prompt ?? '',
    status: taskStatus(status, ready),
    // devplane records no agent-reported task states.
    current_state: null,
    created_at: new Date(workspace.created_at).toISOString(),
    updated_at: new Date(workspace.updated_at).toISOString(),
  };
}

/** Coder's tasks: list, pause and resume (`/api/v2/tasks`; the experimental alias below). */
@CoderController('tasks')
export class TasksController {
  constructor(
    private readonly tasks: TasksService,
    private readonly workspaces: WorkspacesService,
    private readonly users: UserDirectory,
  ) {}

  @Get()
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: 'List visible tasks (workspaces whose latest build has an AI task); q: owner:' })
  @ApiOkResponse({ type: TasksResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: CoderListQueryDto,
  ): Promise<TasksResponseDto> {
    const page = coderPage(query);
    const ownerRef = coderSearch(query.q ?? '', 'owner', 'Invalid task search query.', (parser) =>
      parser.string('owner'),
    );
    const owner = ownerRef ? (await this.users.requireCoderUser(ownerRef, principal)).uuid : undefined;
    const { workspaces, count } = await this.workspaces.listWorkspaces(
      principal,
      { owner, hasAiTask: true },
      page,
    );
    return { tasks: await this.presentMany(workspaces), count };
  }

  @Post(':user')
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'workspace', action: 'create' } })
  @ApiOperation({ summary: 'Create a task: a workspace of an AI-task template version with the prompt' })
  @ApiCreatedResponse({ type: TaskDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('user') userRef: string,
    @Body() body: CreateTaskRequestDto,
  ): Promise<TaskDto> {
    const prompt = body.input ?? '';
    if (prompt.trim() === '')
      throw new InvalidError('Validation failed.', {
        fields: [{ field: 'input', detail: 'A task needs a prompt.' }],
      });
    const owner = await this.users.requireCoderUser(userRef, principal);
    const name = body.name || `task-${randomBytes(4).toString('hex')}`;
    const { id } = await this.workspaces.createWorkspace(principal, owner, undefined, {
      name,
      templateVersionId: body.template_version_id,
      presetId: body.template_version_preset_id,
      task: { prompt, displayName: body.display_name || name },
    });
    const [task] = await this.presentMany([await this.tasks.requireTask(principal, owner, id)]);
    return task!;
  }

  @Get(':user/:task')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: "A user's task by id or name (Coder's getTask)" })
  @ApiOkResponse({ type: TaskDto })
  @ApiResponse({ status: 404, ...ERROR })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('user') userRef: string,
    @Param('task') taskRef: string,
  ): Promise<TaskDto> {
    const owner = await this.users.requireCoderUser(userRef, principal);
    const [task] = await this.presentMany([await this.tasks.requireTask(principal, owner, taskRef)]);
    if (!task) throw notFound('TASK_NOT_FOUND');
    return task;
  }

  private async presentMany(workspaces: WorkspaceRow[]): Promise<TaskDto[]> {
    const latest = await this.workspaces.latestBuilds(workspaces.map((workspace) => workspace.id));
    const users = await this.workspaces.userSummaries(workspaces.map((workspace) => workspace.owner_id));
    return workspaces.flatMap((workspace) => {
      const build = latest.get(workspace.id);
      return build ? [presentTask(workspace, build, users, this.workspaces.config.agentDisconnectMs)] : [];
    });
  }

  @Post(':user/:task/pause')
  @HttpCode(202)
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: 'Pause a task: a stop build with reason task_manual_pause' })
  @ApiAcceptedResponse({ type: WorkspaceBuildResponseEnvelopeDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async pause(
    @CurrentPrincipal() principal: Principal,
    @Param('user') userRef: string,
    @Param('task') taskRef: string,
  ): Promise<WorkspaceBuildResponseEnvelopeDto> {
    const owner = await this.users.requireCoderUser(userRef, principal);
    const task = await this.tasks.requireTask(principal, owner, taskRef);
    return this.envelope(principal, await this.tasks.pause(principal, task));
  }

  @Post(':user/:task/resume')
  @HttpCode(202)
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: 'Resume a task: a start build with reason task_resume' })
  @ApiAcceptedResponse({ type: WorkspaceBuildResponseEnvelopeDto })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async resume(
    @CurrentPrincipal() principal: Principal,
    @Param('user') userRef: string,
    @Param('task') taskRef: string,
  ): Promise<WorkspaceBuildResponseEnvelopeDto> {
    const owner = await this.users.requireCoderUser(userRef, principal);
    const task = await this.tasks.requireTask(principal, owner, taskRef);
    return this.envelope(principal, await this.tasks.resume(principal, task));
  }

  private async envelope(principal: Principal, buildId: string): Promise<WorkspaceBuildResponseEnvelopeDto> {
    const build = await this.workspaces.requireBuild(principal, buildId);
    const users = await this.workspaces.userSummaries([build.owner_id, build.initiator_id]);
    return {
      workspace_build: presentBuild(
        build,
        users,
        this.workspaces.config.agentDisconnectMs,
      ) as unknown as WorkspaceBuildDto,
    };
  }
}

/** The same routes under `/api/experimental/tasks`. */
@CoderController('tasks', { experimental: true })
export class ExperimentalTasksController extends TasksController {}
