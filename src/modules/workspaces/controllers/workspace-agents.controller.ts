import { Body, Get, HttpCode, Inject, Param, ParseUUIDPipe, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import type { Request, Response } from 'express';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import {
  BadRequestError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
} from '../../../platform/errors/domain-error';
import { SseStreams } from '../../../platform/realtime/sse-streams.service';
import { Authenticated, CurrentCaller, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { AnyPrincipal, Principal } from '../../../api/access/principal';
import type { WorkspaceAgentIdentity } from '../../../api/access/principal-ports';
import { AgentCallsService } from '../agent-calls.service';
import { AgentMetadataWatches } from './agent-metadata-watch';
import { realtimeIdentity } from '../../auth/realtime-access.service';
import { presentAgent } from '../coder-workspace.presenter';
import { WorkspaceAgentDto } from '../dto/workspaces.dto';
import { PrebuildsService, type ReinitEvent } from '../prebuilds.service';
import { CONNECTION_TYPES, LIFECYCLE_STATES, WorkspaceAgentsService } from '../workspace-agents.service';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from '../workspaces.config';
import { WorkspacesService } from '../workspaces.service';

const ERROR = { type: CoderResponseDto };
const UUID_PIPE = new ParseUUIDPipe({ exceptionFactory: () => new BadRequestError('Invalid UUID.') });

export class AgentStartupRequestDto {
  @ApiProperty() @IsString() @MaxLength(64) version: string;
  @ApiProperty() @IsString() @MaxLength(32) operating_system: string;
  @ApiProperty() @IsString() @MaxLength(32) architecture: string;
  @ApiProperty() @IsString() @MaxLength(4096) directory: string;
}

export class AgentLifecycleRequestDto {
  @ApiProperty({ enum: LIFECYCLE_STATES }) @IsIn(LIFECYCLE_STATES as unknown as string[]) state: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'the owner the agent initialized for' })
  @IsOptional()
  @IsUUID()
  owner_id?: string;
}

export class AgentHeartbeatRequestDto {
  @ApiPropertyOptional({ description: 'true: a clean disconnection' }) @IsOptional() disconnect?: boolean;
}

export class AgentAppHealthRequestDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['healthy', 'unhealthy'] },
    description: 'app id → health',
  })
  @IsObject()
  healths: Record<string, string>;
}

export class AgentMetadataResultDto {
  @ApiProperty() @IsString() @MaxLength(128) key: string;
  @ApiProperty() @IsString() @MaxLength(64 * 1024) value: string;
  @ApiProperty() @IsString() @MaxLength(64 * 1024) error: string;
  @ApiProperty({ format: 'date-time' }) @IsISO8601() collected_at: string;
}

export class AgentMetadataRequestDto {
  @ApiProperty({ type: [AgentMetadataResultDto] })
  @IsArray()
  @ArrayMaxSize(64)
  @ValidateNested({ each: true })
  @Type(() => AgentMetadataResultDto)
  metadata: AgentMetadataResultDto[];
}

export class AgentCallsQueryDto {
  @ApiPropertyOptional({ description: 'long-poll: wait up to this many ms for calls (at most 60000)' })
  @IsOptional()
  @IsString()
  wait_ms?: string;
}

export class AgentCallResultRequestDto {
  @ApiProperty() @IsBoolean() ok: boolean;
  @ApiProperty() @IsString() @MaxLength(4 * 1024 * 1024) output: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() exit_code?: number;
}

export class AgentConnectionRequestDto {
  @ApiProperty({ format: 'uuid' }) @IsUUID() id: string;
  @ApiProperty({ enum: ['connect', 'disconnect'] }) @IsIn(['connect', 'disconnect']) action:
    'connect' | 'disconnect';
  @ApiProperty({ enum: CONNECTION_TYPES }) @IsIn(CONNECTION_TYPES as unknown as string[]) type: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) ip?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) user_agent?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) slug_or_port?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) reason?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() code?: number;
}

function agentOf(caller: AnyPrincipal): WorkspaceAgentIdentity {
  if (caller.kind !== 'agent')
    throw new UnauthenticatedError('unknown_key', 'Workspace agent not authorized.');
  return caller.agent;
}

/**
 * The workspace agent's API (`/api/v2/workspaceagents/me/…`, agent token only) and the users' view
 * of an agent (`/api/v2/workspaceagents/{id}`).
 */
@CoderController('workspaceagents')
export class WorkspaceAgentsController {
  constructor(
    private readonly agents: WorkspaceAgentsService,
    private readonly agentCalls: AgentCallsService,
    private readonly prebuilds: PrebuildsService,
    private readonly workspaces: WorkspacesService,
    private readonly sse: SseStreams,
    private readonly metadataWatches: AgentMetadataWatches,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
  ) {}

  @Get('me/manifest')
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({ summary: 'Agent: what it runs for (workspace, owner, directory, environment, apps)' })
  @ApiOkResponse({ description: 'the manifest' })
  @ApiResponse({ status: 401, ...ERROR })
  manifest(@CurrentCaller() caller: AnyPrincipal) {
    return this.agents.manifest(agentOf(caller));
  }

  @Post('me/startup')
  @HttpCode(204)
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({ summary: 'Agent: its version, OS and directory at start' })
  @ApiResponse({ status: 204 })
  async startup(@CurrentCaller() caller: AnyPrincipal, @Body() body: AgentStartupRequestDto): Promise<void> {
    await this.agents.reportStartup(agentOf(caller), {
      version: body.version,
      operatingSystem: body.operating_system,
      architecture: body.architecture,
      directory: body.directory,
    });
  }

  @Post('me/lifecycle')
  @HttpCode(204)
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({ summary: 'Agent: lifecycle state (starting, ready, shutting_down, off, …)' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 400, ...ERROR })
  async lifecycle(
    @CurrentCaller() caller: AnyPrincipal,
    @Body() body: AgentLifecycleRequestDto,
  ): Promise<void> {
    await this.agents.reportLifecycle(agentOf(caller), body.state, body.owner_id);
  }

  @Post('me/heartbeat')
  @HttpCode(204)
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({ summary: 'Agent: still connected (or `disconnect: true` when it stops)' })
  @ApiResponse({ status: 204 })
  async heartbeat(
    @CurrentCaller() caller: AnyPrincipal,
    @Body() body: AgentHeartbeatRequestDto,
  ): Promise<void> {
    await this.agents.reportConnection(agentOf(caller), body.disconnect === true);
  }

  @Post('me/app-health')
  @HttpCode(204)
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({ summary: "Agent: the health of the workspace's apps it probed" })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 400, ...ERROR })
  async appHealth(
    @CurrentCaller() caller: AnyPrincipal,
    @Body() body: AgentAppHealthRequestDto,
  ): Promise<void> {
    await this.agents.reportAppHealth(agentOf(caller), body.healths);
  }

  @Post('me/metadata')
  @HttpCode(204)
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({ summary: "Agent: results of the template's metadata scripts" })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 400, ...ERROR })
  async metadata(
    @CurrentCaller() caller: AnyPrincipal,
    @Body() body: AgentMetadataRequestDto,
  ): Promise<void> {
    await this.agents.reportMetadata(agentOf(caller), body.metadata);
  }

  @Get('me/calls')
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({ summary: 'Agent: calls to run in the workspace (chat tools), long-polled' })
  @ApiOkResponse({ description: '[{id, tool, arguments}]' })
  async calls(
    @CurrentCaller() caller: AnyPrincipal,
    @Query() query: AgentCallsQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const waitMs = Math.max(0, Number.parseInt(query.wait_ms ?? '0', 10) || 0);
    const calls = await this.agentCalls.take(agentOf(caller), waitMs, abort.signal);
    if (!res.destroyed) res.status(200).json(calls);
  }

  @Post('me/calls/:call/result')
  @HttpCode(204)
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({ summary: "Agent: a call's result" })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 409, ...ERROR })
  async callResult(
    @CurrentCaller() caller: AnyPrincipal,
    @Param('call', UUID_PIPE) callId: string,
    @Body() body: AgentCallResultRequestDto,
  ): Promise<void> {
    await this.agentCalls.complete(agentOf(caller), callId, {
      ok: body.ok,
      output: body.output,
      exitCode: body.exit_code,
    });
  }

  @Post('me/connections')
  @HttpCode(204)
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({ summary: 'Agent: a session it serves opened or closed (the connection log)' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 404, ...ERROR })
  async connection(
    @CurrentCaller() caller: AnyPrincipal,
    @Body() body: AgentConnectionRequestDto,
  ): Promise<void> {
    await this.agents.reportConnectionLog(agentOf(caller), {
      id: body.id,
      action: body.action,
      type: body.type,
      ip: body.ip,
      userAgent: body.user_agent,
      slugOrPort: body.slug_or_port,
      reason: body.reason,
      code: body.code,
    });
  }

  /**
   * The reinit stream (reference D.7, spec 2): subscribe first, then read the durable state; a
   * regular workspace is 409, a claimed one whose claim build finished gets one event and the end.
   */
  @Get('me/reinit')
  @Authenticated({ principals: ['agent'] })
  @ApiOperation({
    summary: 'Agent: server-sent reinitialization events after a prebuilt workspace is claimed',
  })
  @ApiOkResponse({
    description:
      'text/event-stream: `event: data` with {workspace_id, user_id, owner_id, reason}; `event: ping`',
  })
  @ApiResponse({ status: 409, ...ERROR })
  async reinit(
    @CurrentCaller() caller: AnyPrincipal,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const agent = agentOf(caller);
    const queued: ReinitEvent[] = [];
    const sink: { deliver?: (event: ReinitEvent) => void } = {};
    const unsubscribe = this.prebuilds.subscribe(agent.workspaceId, (event) =>
      sink.deliver ? sink.deliver(event) : queued.push(event),
    );
    let opening;
    try {
      opening = await this.prebuilds.opening(agent.workspaceId);
    } catch (error) {
      unsubscribe();
      throw error;
    }
    const connection = this.sse.open(req, res, undefined);
    const frame = (event: ReinitEvent) =>
      JSON.stringify({
        workspace_id: event.workspace_id,
        user_id: event.user_id,
        owner_id: event.user_id,
        reason: event.reason,
      });
    const finish = (): void => {
      clearInterval(ping);
      unsubscribe();
      connection.close(1000, 'done');
    };
    const ping = setInterval(() => connection.send({ event: 'ping', data: '' }), this.config.reinitPingMs);
    ping.unref();
    connection.onClose(() => {
      clearInterval(ping);
      unsubscribe();
    });
    if (opening.kind === 'send-and-end') {
      connection.send({ event: 'data', data: frame(opening.event) });
      finish();
      return;
    }
    sink.deliver = (event) => {
      connection.send({ event: 'data', data: frame(event) });
      finish();
    };
    const first = queued.shift();
    if (first) sink.deliver(first);
  }

  @Get(':workspaceagent/listening-ports')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({
    summary: "Listening ports of a workspace agent (Coder's WorkspaceAgentListeningPortsResponse)",
  })
  @ApiOkResponse({ description: '{ports: [{process_name, network, port}]}' })
  @ApiResponse({ status: 404, ...ERROR })
  async listeningPorts(
    @CurrentPrincipal() principal: Principal,
    @Param('workspaceagent', UUID_PIPE) id: string,
  ): Promise<{ ports: unknown[] }> {
    const agent = await this.agents.findAgent(id);
    if (!agent) throw new NotFoundError('Resource not found or you do not have access to this resource');
    await this.workspaces.requireWorkspace(principal, agent.workspace_id);
    const result = await this.agentCalls.callAgent(agent, 'listening_ports', {}, 10_000);
    if (!result.ok) throw new UnavailableError(`Failed to read the listening ports: ${result.output}`);
    return { ports: JSON.parse(result.output) as unknown[] };
  }

  @Get(':workspaceagent/watch-metadata')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({
    summary:
      "Watch an agent's metadata (Coder's watch-metadata over server-sent events): `event: data` with [WorkspaceAgentMetadata] at once and after each change",
  })
  @ApiOkResponse({ description: 'text/event-stream: `event: data` frames' })
  @ApiResponse({ status: 404, ...ERROR })
  async watchMetadata(
    @CurrentPrincipal() principal: Principal,
    @Param('workspaceagent', UUID_PIPE) id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const workspaceId = await this.metadataWatches.check(principal, id);
    const connection = this.sse.open(req, res, realtimeIdentity(principal));
    this.metadataWatches.watch(principal, id, workspaceId, connection, (json) =>
      connection.send({ event: 'data', data: json }),
    );
  }

  @Get(':workspaceagent')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: 'A workspace agent (users who may read its workspace)' })
  @ApiOkResponse({ type: WorkspaceAgentDto })
  @ApiResponse({ status: 404, ...ERROR })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('workspaceagent', UUID_PIPE) id: string,
  ): Promise<WorkspaceAgentDto> {
    const agent = await this.agents.findAgent(id);
    if (!agent) throw new NotFoundError('Resource not found or you do not have access to this resource');
    await this.workspaces.requireWorkspace(principal, agent.workspace_id);
    return presentAgent(agent, this.config.agentDisconnectMs) as unknown as WorkspaceAgentDto;
  }
}
