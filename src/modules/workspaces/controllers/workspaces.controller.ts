import { Body, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SseStreams } from '../../../platform/realtime/sse-streams.service';
import { realtimeIdentity } from '../../auth/realtime-access.service';
import { WorkspaceWatches } from './workspace-watch';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { BadRequestError, InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { UserDirectory } from '../../identity/user-directory.service';
import { CoderOrganizationsService } from '../../identity/management/coder-organizations.service';
import { presentBuild } from '../coder-workspace.presenter';
import { CoderWorkspacePresenter } from './coder-workspace-presenter.service';
import {
  BuildLogsQueryDto,
  CoderListQueryDto,
  CreateWorkspaceBuildRequestDto,
  CreateWorkspaceRequestDto,
  ProvisionerJobLogDto,
  UpdateWorkspaceAclRequestDto,
  UpdateWorkspaceRequestDto,
  WorkspaceAclDto,
  WorkspaceBuildDto,
  WorkspaceDto,
  WorkspacesResponseDto,
} from '../dto/workspaces.dto';
import type { WorkspaceRow } from '../workspace-views';
import { aclRole } from '../workspace-rules';
import { ProvisionerDaemonsService } from '../provisioner-daemons.service';
import { notFound, WorkspacesService } from '../workspaces.service';
import { coderPage, coderSearch } from '../../../api/coder/coder-search-query';
import { isUuid } from '../../../platform/text/uuid';

const ERROR = { type: CoderResponseDto };
const UUID_PIPE = new ParseUUIDPipe({ exceptionFactory: () => new BadRequestError('Invalid UUID.') });

/** Coder's workspaces and builds (`/api/v2/workspaces…`, `/users/{user}/workspaces`, `/workspacebuilds/{id}`). */
@CoderController('')
export class WorkspacesController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly users: UserDirectory,
    private readonly presenter: CoderWorkspacePresenter,
    private readonly watches: WorkspaceWatches,
    private readonly sse: SseStreams,
    private readonly daemons: ProvisionerDaemonsService,
    private readonly organizations: CoderOrganizationsService,
  ) {}

  @Post('users/:user/workspaces')
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'workspace', action: 'create' } })
  @ApiOperation({
    summary: 'Create a workspace for a user (a preset with a ready prebuilt workspace claims it)',
  })
  @ApiCreatedResponse({ type: WorkspaceDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('user') userRef: string,
    @Body() body: CreateWorkspaceRequestDto,
  ): Promise<WorkspaceDto> {
    const owner = await this.users.requireCoderUser(userRef, principal);
    const { id } = await this.workspaces.createWorkspace(principal, owner, undefined, {
      name: body.name,
      templateId: body.template_id,
      templateVersionId: body.template_version_id,
      presetId: body.template_version_preset_id,
    });
    return this.present(principal, await this.workspaces.requireWorkspace(principal, id));
  }

  @Get('workspaces')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({
    summary: 'List visible workspaces (q: owner:, organization:, template:, name:, status:, has-ai-task:)',
  })
  @ApiOkResponse({ type: WorkspacesResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: CoderListQueryDto,
  ): Promise<WorkspacesResponseDto> {
    const page = coderPage(query);
    const { ownerRef, organizationRef, ...rest } = coderSearch(
      query.q ?? '',
      'name',
      'Invalid workspace search query.',
      (parser) => ({
        ownerRef: parser.string('owner'),
        organizationRef: parser.string('organization'),
        template: parser.string('template') || undefined,
        name: parser.string('name') || undefined,
        status: parser.string('status') || undefined,
        hasAiTask: parser.nullableBool('has-ai-task'),
      }),
    );
    const filters = {
      ...rest,
      owner: ownerRef ? (await this.users.requireCoderUser(ownerRef, principal)).uuid : undefined,
      organizationId: organizationRef ? await this.organizationFilter(principal, organizationRef) : undefined,
    };
    const { workspaces, count } = await this.workspaces.listWorkspaces(principal, filters, page);
    return { workspaces: await this.presentMany(workspaces), count };
  }

  /** Coder's `organization:` term (a name or an id): one the caller cannot see is a 400 naming the field. */
  private async organizationFilter(principal: Principal, ref: string): Promise<string> {
    try {
      return (await this.organizations.resolve(principal, ref)).account.uuid;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      throw new InvalidError('Invalid workspace search query.', {
        code: 'INVALID_QUERY',
        fields: [
          {
            field: 'organization',
            detail: `Query param "organization" has invalid value: organization "${ref}" either does not exist, or you are unauthorized to view it`,
          },
        ],
      });
    }
  }

  @Get('workspaces/:workspace')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: 'Get a workspace' })
  @ApiOkResponse({ type: WorkspaceDto })
  @ApiResponse({ status: 404, ...ERROR })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace', UUID_PIPE) id: string,
  ): Promise<WorkspaceDto> {
    return this.present(principal, await this.workspaces.requireWorkspace(principal, id));
  }

  @Get('workspaces/:workspace/watch')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({
    summary:
      "Watch a workspace (Coder's watchWorkspace over server-sent events): `event: data` with the Workspace JSON at once and after each change",
  })
  @ApiOkResponse({ description: 'text/event-stream: `event: data` frames carrying Workspace JSON' })
  @ApiResponse({ status: 404, ...ERROR })
  async watch(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace', UUID_PIPE) id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await this.watches.check(principal, id);
    const connection = this.sse.open(req, res, realtimeIdentity(principal));
    this.watches.watch(principal, id, connection, (json) => connection.send({ event: 'data', data: json }));
  }

  @Get('users/:user/workspace/:workspacename')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: "Get a user's workspace by name" })
  @ApiOkResponse({ type: WorkspaceDto })
  @ApiResponse({ status: 404, ...ERROR })
  async byName(
    @CurrentPrincipal() principal: Principal,
    @Param('user') userRef: string,
    @Param('workspacename') name: string,
  ): Promise<WorkspaceDto> {
    const owner = await this.users.requireCoderUser(userRef, principal);
    return this.present(principal, await this.workspaces.workspaceByOwnerAndName(principal, owner, name));
  }

  @Patch('workspaces/:workspace')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'workspace', action: 'update' } })
  @ApiOperation({
    summary: 'Rename a workspace (Coder UpdateWorkspaceRequest; an empty body changes nothing)',
  })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async rename(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace', UUID_PIPE) id: string,
    @Body() body: UpdateWorkspaceRequestDto,
  ): Promise<void> {
    if (body.name === undefined || body.name === '') {
      await this.workspaces.requireWorkspace(principal, id, 'update');
      return;
    }
    await this.workspaces.renameWorkspace(principal, id, body.name);
  }

  @Get('users/:user/workspace/:workspacename/builds/:buildnumber')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({
    summary: "A user's workspace build by workspace name and build number (Coder's waitForBuild)",
  })
  @ApiOkResponse({ type: WorkspaceBuildDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async buildByNumber(
    @CurrentPrincipal() principal: Principal,
    @Param('user') userRef: string,
    @Param('workspacename') name: string,
    @Param('buildnumber') buildNumberText: string,
  ): Promise<WorkspaceBuildDto> {
    const buildNumber = /^\d{1,9}$/.test(buildNumberText) ? Number(buildNumberText) : Number.NaN;
    if (!Number.isInteger(buildNumber)) throw new BadRequestError('Failed to parse build number as integer.');
    const owner = await this.users.requireCoderUser(userRef, principal);
    const workspace = await this.workspaces.workspaceByOwnerAndName(principal, owner, name);
    const build = await this.workspaces.buildByNumber(workspace, buildNumber);
    const users = await this.workspaces.userSummaries([build.owner_id, build.initiator_id]);
    return presentBuild(
      build,
      users,
      this.workspaces.config.agentDisconnectMs,
    ) as unknown as WorkspaceBuildDto;
  }

  @Post('workspaces/:workspace/builds')
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: 'Start, stop or delete a workspace (one build at a time)' })
  @ApiCreatedResponse({ type: WorkspaceBuildDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async createBuild(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace', UUID_PIPE) id: string,
    @Body() body: CreateWorkspaceBuildRequestDto,
  ): Promise<WorkspaceBuildDto> {
    const buildId = await this.workspaces.createBuild(principal, id, {
      transition: body.transition,
      templateVersionId: body.template_version_id,
      reason: body.reason,
    });
    const build = await this.presentBuild(principal, buildId);
    // Coder answers a new build with the daemons that could take its job now.
    const { job } = build;
    return { ...build, matched_provisioners: await this.daemons.matched(job.organization_id, job.tags) };
  }

  @Get('workspaces/:workspace/builds')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: "A workspace's builds, newest first" })
  @ApiOkResponse({ type: [WorkspaceBuildDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async builds(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace', UUID_PIPE) id: string,
    @Query() query: CoderListQueryDto,
  ): Promise<WorkspaceBuildDto[]> {
    const workspace = await this.workspaces.requireWorkspace(principal, id);
    const builds = await this.workspaces.builds(workspace, coderPage(query));
    const users = await this.workspaces.userSummaries(
      builds.flatMap((build) => [build.owner_id, build.initiator_id]),
    );
    return builds.map(
      (build) =>
        presentBuild(build, users, this.workspaces.config.agentDisconnectMs) as unknown as WorkspaceBuildDto,
    );
  }

  @Get('workspacebuilds/:workspacebuild')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: 'Get a workspace build' })
  @ApiOkResponse({ type: WorkspaceBuildDto })
  @ApiResponse({ status: 404, ...ERROR })
  async getBuild(
    @CurrentPrincipal() principal: Principal,
    @Param('workspacebuild', UUID_PIPE) id: string,
  ): Promise<WorkspaceBuildDto> {
    return this.presentBuild(principal, id);
  }

  @Get('workspacebuilds/:workspacebuild/logs')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: "A build's provisioner job logs" })
  @ApiOkResponse({ type: [ProvisionerJobLogDto] })
  @ApiResponse({ status: 404, ...ERROR })
  async buildLogs(
    @CurrentPrincipal() principal: Principal,
    @Param('workspacebuild', UUID_PIPE) id: string,
    @Query() query: BuildLogsQueryDto,
  ): Promise<ProvisionerJobLogDto[]> {
    const build = await this.workspaces.requireBuild(principal, id);
    // Coder's `after` is any int64 log id: a negative one (the UI sends `after=-1`) means from the start.
    const after =
      query.after === undefined ? 0 : /^-?\d{1,15}$/.test(query.after) ? Number(query.after) : NaN;
    if (!Number.isInteger(after))
      throw new InvalidError('Query parameters have invalid values.', {
        fields: [{ field: 'after', detail: 'must be an integer' }],
      });
    const logs = await this.workspaces.buildLogs(build.job_id, Math.max(after, 0));
    return logs.map((log) => ({ ...log, created_at: new Date(log.created_at).toISOString() }));
  }

  @Get('workspaces/:workspace/acl')
  @Authenticated({ tokenScope: { type: 'workspace', action: 'read' } })
  @ApiOperation({ summary: 'Who a workspace is shared with' })
  @ApiOkResponse({ type: WorkspaceAclDto })
  @ApiResponse({ status: 404, ...ERROR })
  async acl(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace', UUID_PIPE) id: string,
  ): Promise<WorkspaceAclDto> {
    const workspace = await this.workspaces.requireWorkspace(principal, id);
    const users = await this.workspaces.userSummaries(Object.keys(workspace.user_acl));
    const groups = Object.keys(workspace.group_acl).length
      ? await this.workspaces.groupNames(Object.keys(workspace.group_acl))
      : [];
    return {
      users: Object.entries(workspace.user_acl).map(([userId, actions]) => ({
        id: userId,
        username: users.get(userId)?.name ?? '',
        avatar_url: users.get(userId)?.avatar_url ?? '',
        role: aclRole(actions),
      })),
      group: Object.entries(workspace.group_acl).map(([groupId, actions]) => ({
        id: groupId,
        name: groups.find((group) => group.uuid === groupId)?.name ?? '',
        role: aclRole(actions),
      })),
    };
  }

  @Patch('workspaces/:workspace/acl')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'workspace', action: 'share' } })
  @ApiOperation({ summary: 'Share a workspace with users and groups (`admin`, `use`, or `` to remove)' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async updateAcl(
    @CurrentPrincipal() principal: Principal,
    @Param('workspace', UUID_PIPE) id: string,
    @Body() body: UpdateWorkspaceAclRequestDto,
  ): Promise<void> {
    for (const [field, map] of [
      ['user_roles', body.user_roles],
      ['group_roles', body.group_roles],
    ] as const)
      for (const [key, value] of Object.entries(map ?? {}))
        if (typeof value !== 'string' || !isUuid(key))
          throw new InvalidError('Invalid request to update workspace ACL', {
            fields: [{ field, detail: `"${key}" must be a uuid with a role string` }],
          });
    await this.workspaces.updateAcl(principal, id, {
      userRoles: body.user_roles ?? {},
      groupRoles: body.group_roles ?? {},
    });
  }

  private async presentBuild(principal: Principal, buildId: string): Promise<WorkspaceBuildDto> {
    const build = await this.workspaces.requireBuild(principal, buildId);
    const users = await this.workspaces.userSummaries([build.owner_id, build.initiator_id]);
    return presentBuild(
      build,
      users,
      this.workspaces.config.agentDisconnectMs,
    ) as unknown as WorkspaceBuildDto;
  }

  private async present(_principal: Principal, workspace: WorkspaceRow): Promise<WorkspaceDto> {
    const [dto] = await this.presentMany([workspace]);
    if (!dto) throw notFound();
    return dto;
  }

  presentMany(workspaces: WorkspaceRow[]): Promise<WorkspaceDto[]> {
    return this.presenter.presentMany(workspaces);
  }
}
