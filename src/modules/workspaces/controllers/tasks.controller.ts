import { Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiResponse } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { Authenticated, CurrentPrincipal } from '../../auth/access.decorators';
import type { Principal } from '../../auth/principal';
import { UserDirectory } from '../../identity/user-directory.service';
import { agentStatus, presentBuild, workspaceStatus } from '../coder-workspace.presenter';
import {
  CoderListQueryDto,
  WorkspaceBuildDto,
  WorkspaceBuildResponseEnvelopeDto,
} from '../dto/workspaces.dto';
import { TasksService } from '../tasks.service';
import { loadUsers } from '../workspace-views';
import { WorkspacesService } from '../workspaces.service';
import { coderPage, coderSearch } from '../../../api/coder/coder-search-query';

const ERROR = { type: CoderResponseDto };

export class TaskDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiProperty({ format: 'uuid' }) owner_id: string;
  @ApiProperty() owner_name: string;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'uuid' }) template_id: string;
  @ApiProperty() template_name: string;
  @ApiProperty({ format: 'uuid' }) workspace_id: string;
  @ApiProperty() workspace_name: string;
  @ApiProperty() workspace_status: string;
  @ApiProperty() workspace_build_number: number;
  @ApiProperty({ enum: ['pending', 'initializing', 'active', 'paused', 'unknown', 'error'] }) status: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class TasksResponseDto {
  @ApiProperty({ type: [TaskDto] }) tasks: TaskDto[];
  @ApiProperty() count: number;
}

function taskStatus(workspace: string, agentReady: boolean): string {
  if (workspace === 'pending') return 'pending';
  if (workspace === 'starting') return 'initializing';
  if (workspace === 'running') return agentReady ? 'active' : 'initializing';
  if (workspace === 'stopping' || workspace === 'stopped') return 'paused';
  if (workspace === 'failed') return 'error';
  return 'unknown';
}

/** Coder's tasks: list, pause and resume (`/api/v2/tasks`; the experimental alias below). */
@CoderController('tasks')
export class TasksController {
  constructor(
    private readonly tasks: TasksService,
    private readonly workspaces: WorkspacesService,
    private readonly users: UserDirectory,
    private readonly dataSource: DataSource,
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
    const latest = await this.workspaces.latestBuilds(workspaces.map((workspace) => workspace.id));
    const users = await loadUsers(
      this.dataSource,
      workspaces.map((workspace) => workspace.owner_id),
    );
    const tasks = workspaces.map((workspace) => {
      const build = latest.get(workspace.id)!;
      const status = workspaceStatus(build.job.status, build.transition);
      const agents = build.resources.flatMap((resource) => resource.agents);
      const ready = agents.some(
        (agent) =>
          agent.lifecycle_state === 'ready' &&
          agentStatus(agent, this.workspaces.config.agentDisconnectMs) === 'connected',
      );
      return {
        id: workspace.id,
        organization_id: workspace.organization_id,
        owner_id: workspace.owner_id,
        owner_name: users.get(workspace.owner_id)?.name ?? '',
        name: workspace.name,
        template_id: workspace.template_id,
        template_name: workspace.template_name,
        workspace_id: workspace.id,
        workspace_name: workspace.name,
        workspace_status: status,
        workspace_build_number: build.build_number,
        status: taskStatus(status, ready),
        created_at: new Date(workspace.created_at).toISOString(),
        updated_at: new Date(workspace.updated_at).toISOString(),
      };
    });
    return { tasks, count };
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
    const users = await loadUsers(this.dataSource, [build.owner_id, build.initiator_id]);
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
