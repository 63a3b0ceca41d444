import { Body, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
} from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import type { Request, Response } from 'express';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import type { Principal } from '../../../api/access/principal';
import { RawBody } from '../../../api/body/body.decorators';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { GoStruct, GoType } from '../../../api/coder/coder-dto.decorators';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { BadRequestError, InvalidError } from '../../../platform/errors/domain-error';
import { CoderOrganizationsService } from '../../identity/management/coder-organizations.service';
import { UserDirectory } from '../../identity/user-directory.service';
import { MAX_FILE_BYTES, TemplateFilesService } from '../template-files.service';
import { WorkspacesService } from '../workspaces.service';

const ERROR = { type: CoderResponseDto };
const UUID_PIPE = new ParseUUIDPipe({ exceptionFactory: () => new BadRequestError('Invalid UUID.') });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class UploadResponseDto {
  @ApiProperty({ format: 'uuid', description: "the file's id" }) hash: string;
}

export class FileQueryDto {
  @ApiPropertyOptional({ enum: ['zip'], description: 'zip: the archive converted to zip' })
  @IsOptional()
  @IsString()
  format?: string;
}

class TemplateUserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() username: string;
  @ApiProperty() name: string;
  @ApiProperty() email: string;
  @ApiProperty() avatar_url: string;
  @ApiProperty({ enum: ['admin', 'use'] }) role: string;
}

class TemplateGroupDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() display_name: string;
  @ApiProperty({ enum: ['admin', 'use'] }) role: string;
}

export class TemplateAclDto {
  @ApiProperty({ type: [TemplateUserDto] }) users: Record<string, unknown>[];
  @ApiProperty({ type: [TemplateGroupDto] }) group: Record<string, unknown>[];
}

@GoStruct('UpdateTemplateACL')
export class UpdateTemplateAclDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['admin', 'use', ''] },
  })
  @GoType('map[string]string')
  @IsOptional()
  user_perms?: Record<string, string>;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', enum: ['admin', 'use', ''] },
  })
  @GoType('map[string]string')
  @IsOptional()
  group_perms?: Record<string, string>;
}

export class InsightsQueryDto {
  @ApiProperty({ format: 'date-time' }) @IsOptional() @IsString() start_time?: string;
  @ApiProperty({ format: 'date-time' }) @IsOptional() @IsString() end_time?: string;
  @ApiPropertyOptional({ enum: ['day', 'week'] }) @IsOptional() @IsString() interval?: string;
  @ApiPropertyOptional({ description: 'comma-separated template ids' })
  @IsOptional()
  @IsString()
  template_ids?: string;
}

/** Coder's insights query: RFC 3339 start and end (start before end), optional template ids. */
function insightsRange(query: InsightsQueryDto, needInterval: boolean) {
  const fields: { field: string; detail: string }[] = [];
  const time = (field: 'start_time' | 'end_time'): Date | undefined => {
    const value = query[field];
    const date = value ? new Date(value) : undefined;
    if (!value || !/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(date!.getTime())) {
      fields.push({
        field,
        detail: `Query param "${field}" must be a valid date format (2006-01-02T15:04:05.999999999Z07:00)`,
      });
      return undefined;
    }
    return date;
  };
  const start = time('start_time');
  const end = time('end_time');
  if (start && end && start >= end) fields.push({ field: 'start_time', detail: 'must be before end_time' });
  if (needInterval && !['day', 'week'].includes(query.interval ?? ''))
    fields.push({ field: 'interval', detail: 'must be "day" or "week"' });
  const templateIds = (query.template_ids ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  for (const id of templateIds)
    if (!UUID.test(id)) fields.push({ field: 'template_ids', detail: `"${id}" is not a uuid` });
  if (fields.length) throw new InvalidError('Query parameters have invalid values.', { fields });
  return { start: start!, end: end!, templateIds: templateIds.map((id) => id.toLowerCase()) };
}

/**
 * What Coder's template pages read besides templates and versions (issue 48 item 6), registered before
 * TemplatesController so `templates/examples` is not `templates/{id}`: examples (none), uploaded files
 * (template archives, see template-archive.ts), version variables (none), the template ACL and the insights
 * reports (empty: devplane records no app usage or latency).
 */
@CoderController('')
export class TemplateFilesController {
  constructor(
    private readonly files: TemplateFilesService,
    private readonly workspaces: WorkspacesService,
    private readonly organizations: CoderOrganizationsService,
    private readonly users: UserDirectory,
  ) {}

  @Get('templates/examples')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: "Coder's starter templates: none (devplane templates are JSON definitions)" })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'object' } } })
  examples(): unknown[] {
    return [];
  }

  @Post('files')
  @RawBody({ limitBytes: MAX_FILE_BYTES })
  @Authenticated({ tokenScope: { type: 'file', action: 'create' } })
  @ApiOperation({
    summary:
      'Upload a template archive (raw body, application/x-tar or application/zip, 10 MiB; a zip is stored as tar): 201, or 200 with the id of the same bytes uploaded before',
  })
  @ApiConsumes('application/x-tar', 'application/zip')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiResponse({ status: 201, type: UploadResponseDto })
  @ApiResponse({ status: 200, type: UploadResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 413, ...ERROR })
  async upload(
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<UploadResponseDto> {
    const raw: unknown = req.body;
    const body = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
    const { file, created } = await this.files.upload(principal, req.headers['content-type'], body);
    res.status(created ? 201 : 200);
    return { hash: file.id };
  }

  @Get('files/:fileID')
  @Authenticated({ tokenScope: { type: 'file', action: 'read' } })
  @ApiOperation({ summary: 'An uploaded file (its bytes; `format=zip` converts the tar)' })
  @ApiOkResponse({ description: 'the archive' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async file(
    @CurrentPrincipal() principal: Principal,
    @Param('fileID') id: string,
    @Query() query: FileQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    if (query.format !== undefined && query.format !== '' && query.format !== 'zip')
      throw new InvalidError('Unsupported conversion format.', {
        fields: [{ field: 'format', detail: 'only "zip" is supported' }],
      });
    const file = await this.files.require(principal, id, async (versionId) => {
      try {
        await this.workspaces.requireVersion(principal, versionId);
        return true;
      } catch {
        return false;
      }
    });
    const zip = query.format === 'zip';
    const data = zip ? await this.files.asZip(file) : file.data;
    res.status(200);
    res.setHeader('Content-Type', zip ? 'application/zip' : file.mimetype);
    res.setHeader('Content-Length', String(data.length));
    res.setHeader('Content-Disposition', `attachment; filename="${file.id}.${zip ? 'zip' : 'tar'}"`);
    res.end(data);
  }

  @Get('organizations/:organization/members/:user/workspace-quota')
  @Authenticated({ tokenScope: { type: 'organization_member', action: 'read' } })
  @ApiOperation({
    summary: "A member's workspace quota: no budget and nothing consumed (devplane has no quotas)",
  })
  @ApiOkResponse({ description: 'codersdk.WorkspaceQuota' })
  @ApiResponse({ status: 404, ...ERROR })
  async workspaceQuota(
    @CurrentPrincipal() principal: Principal,
    @Param('organization') organizationRef: string,
    @Param('user') userRef: string,
  ): Promise<{ credits_consumed: number; budget: number }> {
    await this.organizations.resolve(principal, organizationRef);
    await this.users.requireCoderUser(userRef, principal);
    return { credits_consumed: 0, budget: 0 };
  }

  @Get('templateversions/:templateversion/variables')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: "A template version's Terraform variables: none" })
  @ApiOkResponse({ schema: { type: 'array', items: { type: 'object' } } })
  @ApiResponse({ status: 404, ...ERROR })
  async variables(
    @CurrentPrincipal() principal: Principal,
    @Param('templateversion', UUID_PIPE) id: string,
  ): Promise<unknown[]> {
    await this.workspaces.requireVersion(principal, id);
    return [];
  }

  @Get('templates/:template/acl')
  @Authenticated({ tokenScope: { type: 'template', action: 'read' } })
  @ApiOperation({ summary: "A template's users and groups with their roles (use, admin)" })
  @ApiOkResponse({ type: TemplateAclDto })
  @ApiResponse({ status: 404, ...ERROR })
  async acl(
    @CurrentPrincipal() principal: Principal,
    @Param('template', UUID_PIPE) id: string,
  ): Promise<TemplateAclDto> {
    const template = await this.workspaces.requireTemplate(principal, id);
    const acl = await this.files.acl(template);
    return {
      users: acl.users.map(({ user, role }) => ({
        id: user.uuid,
        username: user.name,
        name: user.fullName,
        email: user.email,
        // ReducedUser's avatar_url is omitempty (a uri when present)
        ...(user.avatarUrl ? { avatar_url: user.avatarUrl } : {}),
        created_at: user.createdAt.toISOString(),
        updated_at: user.updatedAt.toISOString(),
        last_seen_at: (user.lastSeenAt ?? user.createdAt).toISOString(),
        status: user.status === 'suspended' ? 'suspended' : 'active',
        login_type: user.loginType,
        theme_preference: '',
        organization_ids: [template.organizationId],
        roles: [],
        has_ai_seat: false,
        is_service_account: user.isServiceAccount,
        role,
      })),
      group: acl.groups.map((group) => ({
        id: group.id,
        name: group.name,
        display_name: group.name,
        organization_id: template.organizationId,
        organization_name: '',
        organization_display_name: '',
        members: [],
        total_member_count: 0,
        avatar_url: '',
        quota_allowance: 0,
        source: 'user',
        role: group.role,
      })),
    };
  }

  @Patch('templates/:template/acl')
  @Authenticated({ tokenScope: { type: 'template', action: 'update' } })
  @ApiOperation({
    summary: 'Grant or remove template roles (user_perms, group_perms: id → use | admin | "")',
  })
  @ApiOkResponse({ type: CoderResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  @ApiResponse({ status: 404, ...ERROR })
  async updateAcl(
    @CurrentPrincipal() principal: Principal,
    @Param('template', UUID_PIPE) id: string,
    @Body() body: UpdateTemplateAclDto,
  ): Promise<CoderResponseDto> {
    const template = await this.workspaces.requireTemplate(principal, id);
    await this.files.updateAcl(principal, template, {
      userPerms: body.user_perms ?? {},
      groupPerms: body.group_perms ?? {},
    });
    return { message: 'Successfully updated template ACL list.' };
  }

  @Get('insights/templates')
  @HttpCode(200)
  @Authenticated({
    rbac: { type: 'template', action: 'view_insights' },
    tokenScope: { type: 'template', action: 'view_insights' },
  })
  @ApiOperation({ summary: 'Template insights: no app or parameter usage recorded (empty reports)' })
  @ApiOkResponse({ description: 'codersdk.TemplateInsightsResponse' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  templateInsights(@Query() query: InsightsQueryDto) {
    const { start, end, templateIds } = insightsRange(query, true);
    const step = (query.interval === 'week' ? 7 : 1) * 86_400_000;
    const intervals = [];
    for (let at = start.getTime(); at < end.getTime(); at += step)
      intervals.push({
        start_time: new Date(at).toISOString(),
        end_time: new Date(Math.min(at + step, end.getTime())).toISOString(),
        template_ids: templateIds,
        interval: query.interval,
        active_users: 0,
      });
    return {
      report: {
        start_time: start.toISOString(),
        end_time: end.toISOString(),
        template_ids: templateIds,
        active_users: 0,
        apps_usage: [],
        parameters_usage: [],
      },
      interval_reports: intervals,
    };
  }

  @Get('insights/user-latency')
  @Authenticated({
    rbac: { type: 'template', action: 'view_insights' },
    tokenScope: { type: 'template', action: 'view_insights' },
  })
  @ApiOperation({
    summary: 'User latency insights: none recorded (devplane has no agent connections to measure)',
  })
  @ApiOkResponse({ description: 'codersdk.UserLatencyInsightsResponse' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  userLatency(@Query() query: InsightsQueryDto) {
    const { start, end, templateIds } = insightsRange(query, false);
    return {
      report: {
        start_time: start.toISOString(),
        end_time: end.toISOString(),
        template_ids: templateIds,
        users: [],
      },
    };
  }

  @Get('insights/user-activity')
  @Authenticated({
    rbac: { type: 'template', action: 'view_insights' },
    tokenScope: { type: 'template', action: 'view_insights' },
  })
  @ApiOperation({ summary: 'User activity insights: no app session time recorded (empty report)' })
  @ApiOkResponse({ description: 'codersdk.UserActivityInsightsResponse' })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  userActivity(@Query() query: InsightsQueryDto) {
    const { start, end, templateIds } = insightsRange(query, false);
    return {
      report: {
        start_time: start.toISOString(),
        end_time: end.toISOString(),
        template_ids: templateIds,
        users: [],
      },
    };
  }
}
