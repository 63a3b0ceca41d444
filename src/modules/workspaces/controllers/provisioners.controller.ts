import { Body, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
} from '@nestjs/swagger';
import { IsArray, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { Response } from 'express';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { Authenticated, CurrentCaller, CurrentPrincipal } from '../../../api/access/access.decorators';
import { AuthorizationService } from '../../auth/authorization.service';
import type { AnyPrincipal, Principal } from '../../../api/access/principal';
import { CoderOrganizationsService } from '../../identity/management/coder-organizations.service';
import { presentJob } from '../coder-workspace.presenter';
import { presentDaemon } from '../provisioner-daemon.presenter';
import {
  CreateProvisionerKeyRequestDto,
  CreateProvisionerKeyResponseDto,
  ProvisionerDaemonDto,
  ProvisionerDaemonsQueryDto,
  ProvisionerJobDto,
  ProvisionerJobsQueryDto,
  ProvisionerKeyDto,
} from '../dto/workspaces.dto';
import { type JobCaller, ProvisionerJobsService } from '../provisioner-jobs.service';
import { ProvisionerKeysService } from '../provisioner-keys.service';
import { WorkspacesService } from '../workspaces.service';
import { daemonStatus, ProvisionerDaemonsService } from '../provisioner-daemons.service';
import {
  BadRequestError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../../platform/errors/domain-error';
import { isUuid } from '../../../platform/text/uuid';

const ERROR = { type: CoderResponseDto };
const JOB_STATUSES = ['pending', 'running', 'succeeded', 'canceling', 'canceled', 'failed'];
const UUID_PIPE = new ParseUUIDPipe({ exceptionFactory: () => new BadRequestError('Invalid UUID.') });

export class AcquireJobRequestDto {
  @ApiProperty({ description: "the daemon's id (fences its reports)" })
  @IsString()
  @MaxLength(64)
  worker_id: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) worker_name?: string;
  @ApiPropertyOptional({ description: 'long-poll: wait up to this many ms for a job' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(120_000)
  wait_ms?: number;
}

export class JobLogLineDto {
  @ApiPropertyOptional({ enum: ['trace', 'debug', 'info', 'warn', 'error'] })
  @IsOptional()
  @IsString()
  level?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(128) stage?: string;
  @ApiProperty() @IsString() @MaxLength(65_536) output: string;
}

export class JobReportRequestDto {
  @ApiProperty() @IsString() @MaxLength(64) worker_id: string;
  @ApiPropertyOptional({ type: [JobLogLineDto] }) @IsOptional() @IsArray() logs?: JobLogLineDto[];
}

export class JobFailRequestDto {
  @ApiProperty() @IsString() @MaxLength(64) worker_id: string;
  @ApiProperty() @IsString() @MaxLength(4096) error: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) error_code?: string;
}

export class LimitStopRequestDto {
  @ApiProperty() @IsString() @MaxLength(64) worker_id: string;
  @ApiProperty({ description: 'what the workspace exceeded (logged by the daemon)' })
  @IsString()
  @MaxLength(1024)
  reason: string;
}

export class LimitStopResponseDto {
  @ApiProperty({ format: 'uuid', description: 'the stop build' }) build_id: string;
}

/** The daemon behind a protocol call: its key's organization and key bind it to the jobs it acquired (issue 31.5). */
function jobCaller(caller: AnyPrincipal, workerId: string): JobCaller {
  if (caller.kind !== 'provisioner') throw new ForbiddenError();
  return {
    workerId,
    organizationId: caller.provisioner.organizationId,
    keyId: caller.provisioner.keyId,
  };
}

/** Provisioner keys, an organization's provisioner jobs, and the daemon protocol (`/api/v2/provisionerdaemons/jobs/…`). */
@CoderController('')
export class ProvisionersController {
  constructor(
    private readonly keys: ProvisionerKeysService,
    private readonly jobs: ProvisionerJobsService,
    private readonly organizations: CoderOrganizationsService,
    private readonly authz: AuthorizationService,
    private readonly daemons: ProvisionerDaemonsService,
    private readonly workspaces: WorkspacesService,
  ) {}

  /** The organization's uuid once the caller may `action` its `type` objects (404 unknown, 403 not allowed). */
  private async organizationFor(
    principal: Principal,
    ref: string,
    type: string,
    action: string,
  ): Promise<string> {
    const organization = await this.organizations.resolve(principal, ref);
    await this.authz.require(principal, action, { type, orgId: organization.account.uuid });
    return organization.account.uuid;
  }

  // ---------------------------------------------------------------- keys

  @Post('organizations/:organization/provisionerkeys')
  @HttpCode(201)
  @Authenticated({ tokenScope: { type: 'provisioner_daemon', action: 'create' } })
  @ApiOperation({ summary: 'Create a provisioner key (shown once)' })
  @ApiCreatedResponse({ type: CreateProvisionerKeyResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async createKey(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Body() body: CreateProvisionerKeyRequestDto,
  ): Promise<CreateProvisionerKeyResponseDto> {
    const organizationId = await this.organizationFor(principal, ref, 'provisioner_daemon', 'create');
    for (const [key, value] of Object.entries(body.tags ?? {}))
      if (typeof value !== 'string')
        throw new InvalidError('Validation failed.', {
          fields: [{ field: 'tags', detail: `tag "${key}" must be a string` }],
        });
    return { key: await this.keys.create(organizationId, body.name, body.tags ?? {}) };
  }

  @Get('organizations/:organization/provisionerkeys')
  @Authenticated({ tokenScope: { type: 'provisioner_daemon', action: 'read' } })
  @ApiOperation({ summary: "List an organization's provisioner keys" })
  @ApiOkResponse({ type: [ProvisionerKeyDto] })
  @ApiResponse({ status: 403, ...ERROR })
  async listKeys(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
  ): Promise<ProvisionerKeyDto[]> {
    const organizationId = await this.organizationFor(principal, ref, 'provisioner_daemon', 'read');
    return (await this.keys.list(organizationId)).map((key) => ({
      id: key.id,
      created_at: new Date(key.createdAt).toISOString(),
      organization: key.organizationId,
      name: key.name,
      tags: key.tags,
    }));
  }

  @Delete('organizations/:organization/provisionerkeys/:provisionerkey')
  @HttpCode(204)
  @Authenticated({ tokenScope: { type: 'provisioner_daemon', action: 'delete' } })
  @ApiOperation({ summary: 'Delete a provisioner key by name' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async deleteKey(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Param('provisionerkey') name: string,
  ): Promise<void> {
    const organizationId = await this.organizationFor(principal, ref, 'provisioner_daemon', 'delete');
    await this.keys.delete(organizationId, name);
  }

  // ---------------------------------------------------------------- daemons

  @Get('organizations/:organization/provisionerdaemons')
  @Authenticated({ tokenScope: { type: 'provisioner_daemon', action: 'read' } })
  @ApiOperation({
    summary:
      "The daemons that serve an organization (its keys' and the built-in ones), newest first: `limit`, `ids`, `tags` (JSON), `status`, `offline`, `max_age`",
  })
  @ApiOkResponse({ type: [ProvisionerDaemonDto] })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async listDaemons(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Query() query: ProvisionerDaemonsQueryDto,
  ): Promise<ProvisionerDaemonDto[]> {
    const organizationId = await this.organizationFor(principal, ref, 'provisioner_daemon', 'read');
    const filters = daemonFilters(query);
    const now = Date.now();
    const rows = await this.daemons.ofOrganization(organizationId, { ids: filters.ids, tags: filters.tags });
    const listed: ProvisionerDaemonDto[] = [];
    for (const row of rows) {
      const status = daemonStatus(row, now);
      if (
        filters.statuses.length
          ? !filters.statuses.includes(status)
          : !filters.offline && status === 'offline'
      )
        continue;
      if (filters.maxAgeMs > 0 && now - new Date(row.last_seen_at).getTime() > filters.maxAgeMs) continue;
      listed.push(presentDaemon(row, organizationId, now));
      if (listed.length >= filters.limit) break;
    }
    return listed;
  }

  // ---------------------------------------------------------------- jobs

  @Get('organizations/:organization/provisionerjobs')
  @Authenticated({ tokenScope: { type: 'provisioner_jobs', action: 'read' } })
  @ApiOperation({ summary: "An organization's provisioner jobs, newest first (`status`, `limit`)" })
  @ApiOkResponse({ type: [ProvisionerJobDto] })
  @ApiResponse({ status: 403, ...ERROR })
  async listJobs(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Query() query: ProvisionerJobsQueryDto,
  ): Promise<ProvisionerJobDto[]> {
    const organizationId = await this.organizationFor(principal, ref, 'provisioner_jobs', 'read');
    const problems: { field: string; detail: string }[] = [];
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      problems.push({ field: 'limit', detail: 'Query param "limit" must be an integer from 1 to 1000' });
    const statuses = (query.status ?? '').split(',').filter((value) => value !== '');
    const bad = statuses.filter((value) => !JOB_STATUSES.includes(value));
    if (bad.length)
      problems.push({
        field: 'status',
        detail: `Query param "status" has invalid values: ${bad.join(', ')}`,
      });
    const ids = (query.ids ?? '').split(',').filter((value) => value !== '');
    if (ids.some((id) => !isUuid(id)))
      problems.push({ field: 'ids', detail: 'Query param "ids" must be a list of valid uuids' });
    if (problems.length)
      throw new InvalidError('Query parameters have invalid values.', {
        code: 'INVALID_QUERY',
        fields: problems,
      });
    return this.present(organizationId, { statuses, ids }, limit);
  }

  @Get('organizations/:organization/provisionerjobs/:job')
  @Authenticated({ tokenScope: { type: 'provisioner_jobs', action: 'read' } })
  @ApiOperation({ summary: 'One provisioner job' })
  @ApiOkResponse({ type: ProvisionerJobDto })
  @ApiResponse({ status: 404, ...ERROR })
  async getJob(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') ref: string,
    @Param('job') jobId: string,
  ): Promise<ProvisionerJobDto> {
    const organizationId = await this.organizationFor(principal, ref, 'provisioner_jobs', 'read');
    if (!isUuid(jobId))
      throw new NotFoundError('Resource not found or you do not have access to this resource');
    const [job] = await this.present(organizationId, { statuses: [], ids: [jobId] }, 1);
    if (!job) throw new NotFoundError('Resource not found or you do not have access to this resource');
    return job;
  }

  private async present(
    organizationId: string,
    filters: { statuses: string[]; ids: string[] },
    limit: number,
  ): Promise<ProvisionerJobDto[]> {
    const rows = await this.jobs.listForOrganization(organizationId, filters, limit);
    return rows.map(
      (row) =>
        presentJob(row.job, {
          template_version_name: row.version_name ?? '',
          template_id: row.template_id ?? '',
          template_name: row.template_name ?? '',
          template_display_name: row.template_display_name ?? '',
          template_icon: row.template_icon ?? '',
          workspace_id: row.workspace_id ?? undefined,
          workspace_name: row.workspace_name ?? undefined,
          workspace_build_transition: row.transition ?? undefined,
        }) as unknown as ProvisionerJobDto,
    );
  }

  // ---------------------------------------------------------------- daemon protocol

  @Post('provisionerdaemons/jobs/acquire')
  @Authenticated({ principals: ['provisioner'] })
  @ApiOperation({ summary: 'Daemon: take the next job (long-poll `wait_ms`); 204 when none came' })
  @ApiOkResponse({ description: 'the job and everything needed to run it' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 401, ...ERROR })
  async acquire(
    @CurrentCaller() caller: AnyPrincipal,
    @Body() body: AcquireJobRequestDto,
    @Res() res: Response,
  ): Promise<void> {
    if (caller.kind !== 'provisioner') throw new ForbiddenError();
    const abort = new AbortController();
    // The response's close (not the request's) tells that the daemon went away while waiting.
    res.once('close', () => abort.abort());
    const job = await this.jobs.acquire(
      {
        organizationId: caller.provisioner.organizationId,
        keyId: caller.provisioner.keyId,
        workerId: body.worker_id,
        workerName: body.worker_name ?? caller.provisioner.name,
        tags: caller.provisioner.tags,
      },
      body.wait_ms ?? 0,
      abort.signal,
    );
    if (res.destroyed) return; // a job leased to a daemon that is gone waits for its lease to expire
    if (!job) {
      res.status(204).end();
      return;
    }
    res.status(200).json(job);
  }

  @Post('provisionerdaemons/jobs/:job/report')
  @HttpCode(204)
  @Authenticated({ principals: ['provisioner'] })
  @ApiOperation({
    summary: "Daemon: append logs and renew the job's lease (409 when the job is no longer this daemon's)",
  })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async report(
    @CurrentCaller() caller: AnyPrincipal,
    @Param('job', UUID_PIPE) jobId: string,
    @Body() body: JobReportRequestDto,
  ): Promise<void> {
    await this.jobs.report(jobCaller(caller, body.worker_id), jobId, body.logs ?? []);
  }

  @Post('provisionerdaemons/jobs/:job/complete')
  @HttpCode(204)
  @Authenticated({ principals: ['provisioner'] })
  @ApiOperation({ summary: 'Daemon: the job succeeded' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async complete(
    @CurrentCaller() caller: AnyPrincipal,
    @Param('job', UUID_PIPE) jobId: string,
    @Body() body: JobReportRequestDto,
  ): Promise<void> {
    const daemon = jobCaller(caller, body.worker_id);
    if (body.logs?.length) await this.jobs.report(daemon, jobId, body.logs);
    await this.jobs.complete(daemon, jobId);
  }

  @Post('provisionerdaemons/workspaces/:workspace/stop')
  @Authenticated({ principals: ['provisioner'] })
  @ApiOperation({
    summary:
      "Daemon: a workspace went beyond a limit the daemon enforces (its directory's size): a `stop` build " +
      "(reason `autostop`); 204 when there is nothing to stop (gone, another organization's, a build active)",
  })
  @ApiResponse({ status: 201, type: LimitStopResponseDto })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 401, ...ERROR })
  async stopForLimit(
    @CurrentCaller() caller: AnyPrincipal,
    @Param('workspace', UUID_PIPE) workspaceId: string,
    @Body() body: LimitStopRequestDto,
    @Res() res: Response,
  ): Promise<void> {
    const daemon = jobCaller(caller, body.worker_id);
    const buildId = await this.workspaces.stopForProvisioner(workspaceId, daemon.organizationId);
    if (!buildId) {
      res.status(204).end();
      return;
    }
    res.status(201).json({ build_id: buildId });
  }

  @Post('provisionerdaemons/jobs/:job/fail')
  @HttpCode(204)
  @Authenticated({ principals: ['provisioner'] })
  @ApiOperation({ summary: 'Daemon: the job failed' })
  @ApiResponse({ status: 204 })
  @ApiResponse({ status: 404, ...ERROR })
  @ApiResponse({ status: 409, ...ERROR })
  async fail(
    @CurrentCaller() caller: AnyPrincipal,
    @Param('job', UUID_PIPE) jobId: string,
    @Body() body: JobFailRequestDto,
  ): Promise<void> {
    await this.jobs.fail(jobCaller(caller, body.worker_id), jobId, body.error, body.error_code);
  }
}

const DAEMON_STATUSES = ['offline', 'idle', 'busy'];

/** A Go duration (`90s`, `5m`, `1h30m`, `250ms`) in milliseconds, or null when it is not one. */
export function goDurationMs(text: string): number | null {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1e3, m: 6e4, h: 36e5 };
  if (text === '0') return 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (!parts.length || parts.map((part) => part[0]).join('') !== text) return null;
  return parts.reduce((sum, part) => sum + Number(part[1]) * units[part[2]], 0);
}

/** Coder's query of the daemons list, checked: every problem is named at once (400). */
export function daemonFilters(query: ProvisionerDaemonsQueryDto): {
  limit: number;
  ids: string[];
  tags: Record<string, string> | undefined;
  statuses: string[];
  offline: boolean;
  maxAgeMs: number;
} {
  const problems: { field: string; detail: string }[] = [];
  const limit = query.limit === undefined || query.limit === '' ? 50 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 2_147_483_647)
    problems.push({ field: 'limit', detail: `Query param "limit" must be a valid positive integer` });
  const ids = (query.ids ?? '').split(',').filter((value) => value !== '');
  if (ids.some((id) => !isUuid(id)))
    problems.push({ field: 'ids', detail: 'Query param "ids" must be a list of valid uuids' });
  let tags: Record<string, string> | undefined;
  if (query.tags !== undefined && query.tags !== '') {
    try {
      const parsed = JSON.parse(query.tags) as unknown;
      if (
        parsed === null ||
        typeof parsed !== 'object' ||
        Array.isArray(parsed) ||
        Object.values(parsed).some((value) => typeof value !== 'string')
      )
        throw new Error('not a map of strings');
      tags = parsed as Record<string, string>;
    } catch {
      problems.push({ field: 'tags', detail: 'Query param "tags" must be a valid JSON object of strings' });
    }
  }
  const statuses = (query.status ?? '').split(',').filter((value) => value !== '');
  const bad = statuses.filter((value) => !DAEMON_STATUSES.includes(value));
  if (bad.length)
    problems.push({ field: 'status', detail: `Query param "status" has invalid values: ${bad.join(', ')}` });
  const offline = query.offline === 'true';
  if (query.offline !== undefined && query.offline !== '' && !['true', 'false'].includes(query.offline))
    problems.push({ field: 'offline', detail: 'Query param "offline" must be a valid boolean' });
  const maxAgeMs = query.max_age === undefined || query.max_age === '' ? 0 : goDurationMs(query.max_age);
  if (maxAgeMs === null)
    problems.push({ field: 'max_age', detail: 'Query param "max_age" must be a valid duration' });
  if (problems.length)
    throw new InvalidError('Query parameters have invalid values.', {
      code: 'INVALID_QUERY',
      fields: problems,
    });
  return { limit, ids, tags, statuses, offline, maxAgeMs: maxAgeMs ?? 0 };
}
