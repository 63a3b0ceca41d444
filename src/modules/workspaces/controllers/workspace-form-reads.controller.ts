import { Body, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { IsInt, IsObject, IsOptional, IsString } from 'class-validator';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { GoStruct, GoType } from '../../../api/coder/coder-dto.decorators';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { BadRequestError, NotFoundError } from '../../../platform/errors/domain-error';
import { WorkspaceAgentsService } from '../workspace-agents.service';
import { WorkspacesService } from '../workspaces.service';

const UUID_PIPE = new ParseUUIDPipe({ exceptionFactory: () => new BadRequestError('Invalid UUID.') });
const ERROR = { type: CoderResponseDto };

@GoStruct('DynamicParametersRequest')
export class DynamicParametersRequestDto {
  @ApiProperty() @GoType('int64') @IsOptional() @IsInt() id?: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  @GoType('map[string]string')
  @IsOptional()
  @IsObject()
  inputs?: Record<string, string>;
  @ApiPropertyOptional({ format: 'uuid' }) @GoType('string') @IsOptional() @IsString() owner_id?: string;
}

/** codersdk.DynamicParametersResponse */
export class DynamicParametersResponseDto {
  @ApiProperty() id: number;
  @ApiProperty({ type: [Object] }) diagnostics: unknown[];
  @ApiProperty({ type: [Object] }) parameters: unknown[];
}

class WorkspaceBuildTimingsDto {
  @ApiProperty({ type: [Object] }) provisioner_timings: unknown[];
  @ApiProperty({ type: [Object] }) agent_script_timings: unknown[];
  @ApiProperty({ type: [Object] }) agent_connection_timings: unknown[];
}

class ListContainersResponseDto {
  @ApiProperty({ type: [Object] }) devcontainers: unknown[];
  @ApiProperty({ type: [Object] }) containers: unknown[];
  @ApiProperty({ type: [String] }) warnings: string[];
}

class ResolveAutostartResponseDto {
  @ApiProperty() parameter_mismatch: boolean;
}

/**
 * What Coder's create-workspace and task forms and the workspace page read (issue 48 item 4). devplane's
 * templates have no parameters, no external auth, no dev containers and no build timings: the answers
 * are Coder's for a template or workspace without them, after the same access checks as the resource
 * itself (unknown or unreadable: 404).
 */
@CoderController('')
export class WorkspaceFormReadsController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly agents: WorkspaceAgentsService,
  ) {}

  @Get('templateversions/:templateversion/external-auth')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: 'External auth a template version needs: none' })
  @ApiOkResponse({ type: [Object] })
  @ApiResponse({ status: 404, ...ERROR })
  async versionExternalAuth(
    @CurrentPrincipal() principal: Principal,
    @Param('templateversion', UUID_PIPE) id: string,
  ): Promise<unknown[]> {
    await this.workspaces.requireVersion(principal, id);
    return [];
  }

  @Get('templateversions/:templateversion/rich-parameters')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: "A template version's parameters: none (devplane templates have none)" })
  @ApiOkResponse({ type: [Object] })
  @ApiResponse({ status: 404, ...ERROR })
  async richParameters(
    @CurrentPrincipal() principal: Principal,
    @Param('templateversion', UUID_PIPE) id: string,
  ): Promise<unknown[]> {
    await this.workspaces.requireVersion(principal, id);
    return [];
  }

  @Post('templateversions/:templateversion/dynamic-parameters/evaluate')
  @HttpCode(200)
  // The create-workspace form's call: a POST, so a token that may only read templates is refused (issue 11.4).
  @Authenticated({ tokenScope: { type: 'workspace', action: 'create' } })
  @ApiOperation({ summary: 'Evaluate the dynamic parameters for inputs: no parameters, no diagnostics' })
  @ApiOkResponse({ type: DynamicParametersResponseDto })
  @ApiResponse({ status: 404, ...ERROR })
  async evaluate(
    @CurrentPrincipal() principal: Principal,
    @Param('templateversion', UUID_PIPE) id: string,
    @Body() body: DynamicParametersRequestDto,
  ): Promise<DynamicParametersResponseDto> {
    await this.workspaces.requireVersion(principal, id);
    return { id: body.id ?? 0, diagnostics: [], parameters: [] };
  }

  @Get('workspacebuilds/:workspacebuild/parameters')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: "A build's parameter values: none" })
  @ApiOkResponse({ type: [Object] })
  @ApiResponse({ status: 404, ...ERROR })
  async buildParameters(
    @CurrentPrincipal() principal: Principal,
    @Param('workspacebuild', UUID_PIPE) id: string,
  ): Promise<unknown[]> {
    await this.workspaces.requireBuild(principal, id);
    return [];
  }

  @Get('workspacebuilds/:workspacebuild/timings')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: "A build's timings: none recorded" })
  @ApiOkResponse({ type: WorkspaceBuildTimingsDto })
  @ApiResponse({ status: 404, ...ERROR })
  async buildTimings(
    @CurrentPrincipal() principal: Principal,
    @Param('workspacebuild', UUID_PIPE) id: string,
  ): Promise<WorkspaceBuildTimingsDto> {
    await this.workspaces.requireBuild(principal, id);
    return { provisioner_timings: [], agent_script_timings: [], agent_connection_timings: [] };
  }

  @Get('workspaceagents/:workspaceagent/containers')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({
    summary: "An agent's containers and dev containers: none (devplane's agent runs no containers)",
  })
  @ApiOkResponse({ type: ListContainersResponseDto })
  @ApiResponse({ status: 404, ...ERROR })
  async containers(
    @CurrentPrincipal() principal: Principal,
    @Param('workspaceagent', UUID_PIPE) id: string,
  ): Promise<ListContainersResponseDto> {
    const agent = await this.agents.findAgent(id);
    if (!agent) throw new NotFoundError('Resource not found or you do not have access to this resource');
    await this.workspaces.requireWorkspace(principal, agent.workspace_id);
    return { devcontainers: [], containers: [], warnings: [] };
  }

  @Get('workspaces/:workspace/resolve-autostart')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: 'Whether autostart needs new parameter values: never (no parameters)' })
  @ApiOkResponse({ type: ResolveAutostartResponseDto })
  @ApiResponse({ status: 404, ...ERROR })
  async resolveAutostart(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace', UUID_PIPE) id: string,
  ): Promise<ResolveAutostartResponseDto> {
    await this.workspaces.requireWorkspace(principal, id);
    return { parameter_mismatch: false };
  }
}
