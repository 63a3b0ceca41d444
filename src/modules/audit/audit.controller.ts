import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../api/coder/coder-response.dto';
import { parsePagination, SearchParser, searchTerms } from '../../api/coder/coder-search-query';
import { InvalidError } from '../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../api/access/access.decorators';
import { AuthorizationService } from '../auth/authorization.service';
import type { Principal } from '../../api/access/principal';
import { OrganizationsService } from '../identity/organizations.service';
import type { User } from '../identity/entities/user.entity';
import { presentCoderUser } from '../identity/presenters/coder-user.presenter';
import { AuditLogDto, AuditLogResponseDto, AuditLogsQueryDto } from './audit.dto';
import { type AuditFilters, AuditLogService } from './audit-log.service';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES, describeAuditEntry } from './audit-vocabulary';
import { isUuid } from '../../platform/text/uuid';

const DEFAULT_LIMIT = 100;

/** The actor in Coder's User JSON, through the identity presenter (organization ids are not listed). */
function presentActor(actor: User | null): AuditLogDto['user'] {
  return actor ? presentCoderUser(actor, []) : null;
}

/** Coder's audit log (`GET /api/v2/audit`): owners and auditors read every entry, organization auditors their organizations'. */
@CoderController('audit')
export class AuditController {
  constructor(
    private readonly audit: AuditLogService,
    private readonly authz: AuthorizationService,
    private readonly organizations: OrganizationsService,
  ) {}

  @Get()
  @Authenticated({ tokenScope: { type: 'audit_log', action: 'read' } })
  @ApiOperation({ summary: 'List audit log entries (newest first; `count_cap` when the count was cut)' })
  @ApiOkResponse({ type: AuditLogResponseDto })
  @ApiResponse({ status: 400, type: CoderResponseDto })
  @ApiResponse({ status: 403, type: CoderResponseDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AuditLogsQueryDto,
  ): Promise<AuditLogResponseDto> {
    await this.authz.require(principal, 'read', { type: 'audit_log', anyOrg: true });
    const paging = parsePagination({ limit: query.limit, offset: query.offset });
    if ('errors' in paging)
      throw new InvalidError('Query parameters have invalid values.', {
        code: 'INVALID_QUERY',
        fields: paging.errors,
      });
    const filters = await this.filters(query.q ?? '');
    if (!(await this.authz.authorize(principal, 'read', { type: 'audit_log' }))) {
      const memberships = await this.organizations.membershipsOf(principal.user.id);
      const visible: string[] = [];
      for (const membership of memberships) {
        const orgId = membership.organizationUuid;
        if (await this.authz.authorize(principal, 'read', { type: 'audit_log', orgId })) visible.push(orgId);
      }
      filters.visibleOrganizations = visible;
    }
    const page = await this.audit.list(filters, {
      limit: paging.page.limit || DEFAULT_LIMIT,
      offset: paging.page.offset,
    });
    const organizationNames = new Map<string, { name: string; display: string }>();
    for (const entry of page.entries) {
      if (entry.organizationId && !organizationNames.has(entry.organizationId)) {
        const organization = await this.organizations.findByUuid(entry.organizationId);
        if (organization)
          organizationNames.set(entry.organizationId, {
            name: organization.name,
            display: organization.fullName || organization.name,
          });
      }
    }
    return {
      audit_logs: page.entries.map((entry) => {
        const organization = entry.organizationId ? organizationNames.get(entry.organizationId) : undefined;
        return {
          id: entry.id,
          request_id: entry.requestId ?? '',
          time: entry.time.toISOString(),
          ip: entry.ip ?? '',
          user_agent: entry.userAgent ?? '',
          resource_type: entry.resourceType,
          resource_id: entry.resourceId,
          resource_target: entry.resourceTarget,
          resource_icon: '',
          action: entry.action,
          // Coder's AuditDiffField always carries `secret` (a secret field's values are never stored).
          diff: Object.fromEntries(
            Object.entries(
              (entry.diff ?? {}) as Record<string, { old?: unknown; new?: unknown; secret?: boolean }>,
            ).map(([field, change]) => [
              field,
              { old: change.old, new: change.new, secret: change.secret === true },
            ]),
          ),
          status_code: entry.statusCode,
          additional_fields: entry.additionalFields,
          description: describeAuditEntry(entry),
          resource_link: '',
          is_deleted: false,
          organization_id: entry.organizationId ?? '00000000-0000-0000-0000-000000000000',
          ...(organization && entry.organizationId
            ? {
                organization: {
                  id: entry.organizationId,
                  name: organization.name,
                  display_name: organization.display,
                  icon: '',
                },
              }
            : {}),
          user: presentActor(entry.actor),
        };
      }),
      count: page.count,
      // Coder always sends the cap its count stops at.
      count_cap: this.audit.countCap,
    };
  }

  private async filters(q: string): Promise<AuditFilters> {
    const terms = searchTerms(q.toLowerCase(), () => ({ key: 'resource_type' }));
    const fail = (fields: { field: string; detail: string }[]) =>
      new InvalidError('Invalid audit search query.', { code: 'INVALID_QUERY', fields });
    if ('errors' in terms) throw fail(terms.errors);
    const parser = new SearchParser(terms.values);
    const resourceType = parser.enumList('resource_type', AUDIT_RESOURCE_TYPES)[0];
    const action = parser.enumList('action', AUDIT_ACTIONS)[0];
    const filters: AuditFilters = {
      resourceType,
      action,
      resourceId: parser.string('resource_id') || undefined,
      resourceTarget: parser.string('resource_target') || undefined,
      username: parser.string('username') || undefined,
      email: parser.string('email') || undefined,
      requestId: parser.string('request_id') || undefined,
      dateFrom: parser.date('date_from'),
      dateTo: parser.date('date_to'),
    };
    parser.string('build_reason'); // accepted (Coder's workspace build filter); no audited builds yet
    const organization = parser.string('organization');
    if (organization) {
      const found = isUuid(organization)
        ? await this.organizations.findByUuid(organization)
        : await this.organizations.findByName(organization);
      if (!found)
        parser.errors.push({
          field: 'organization',
          detail: `Query param "organization" has invalid value: organization "${organization}" either does not exist, or you are unauthorized to view it`,
        });
      else filters.organizationId = found.uuid;
    }
    if (filters.dateTo) filters.dateTo = new Date(filters.dateTo.getTime() + 86_399_999);
    const errors = parser.finish();
    if (errors.length > 0) throw fail(errors);
    return filters;
  }
}
