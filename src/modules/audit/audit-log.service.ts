import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { type AuditEntry, AuditLog } from '../../platform/audit/audit-log';
import type { AppConfig } from '../../platform/config/app-config';
import { int } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { currentRequestContext } from '../../platform/http/request-context';
import { AuditLogEntry } from './audit-log.entity';

export interface AuditFilters {
  resourceType?: string;
  resourceId?: string;
  resourceTarget?: string;
  action?: string;
  username?: string;
  email?: string;
  dateFrom?: Date;
  /** Inclusive: the whole day. */
  dateTo?: Date;
  organizationId?: string;
  requestId?: string;
  /** Only these organizations (organization auditors); undefined = every entry. */
  visibleOrganizations?: string[];
}

export interface AuditPage {
  entries: (AuditLogEntry & { actor: ActorRow | null })[];
  count: number;
  /** Set when the count stopped at the cap. */
  countCap?: number;
}

export interface ActorRow {
  id: string;
  uuid: string;
  name: string;
  full_name: string;
  email: string;
  avatar_url: string;
  status: string;
  login_type: string;
  created_at: Date;
  updated_at: Date;
  last_seen_at: Date | null;
  site_roles: string[];
  is_admin: boolean;
  is_service_account: boolean;
}

/** The audit log: the platform's AuditLog port (writes) and the list behind `GET /api/v2/audit`. */
@Injectable()
export class AuditLogService extends AuditLog {
  /** Coder stops counting matching entries here (`count_cap` in the response); `AUDIT_COUNT_CAP`. */
  readonly countCap: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super();
    this.countCap = int(config.env, 'AUDIT_COUNT_CAP', 2000, 1, 100_000_000);
  }

  /** Inside the caller's transaction: the entry commits or rolls back with the write it records. */
  async record(manager: EntityManager, entry: AuditEntry): Promise<void> {
    const request = currentRequestContext();
    await manager.getRepository(AuditLogEntry).insert({
      userId: entry.actorUserId === undefined ? (request?.userId ?? null) : entry.actorUserId,
      organizationId: entry.organizationId ?? null,
      ip: entry.ip ?? request?.ip ?? null,
      userAgent: entry.userAgent ?? request?.userAgent ?? null,
      requestId: entry.requestId ?? request?.requestId ?? null,
      resourceType: entry.resourceType,
      resourceId: entry.resourceId,
      resourceTarget: entry.resourceTarget.slice(0, 512),
      action: entry.action,
      diff: (entry.diff ?? {}) as never,
      statusCode: entry.statusCode ?? 200,
      additionalFields: (entry.additionalFields ?? {}) as never,
    });
  }

  async list(filters: AuditFilters, page: { limit: number; offset: number }): Promise<AuditPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    if (filters.resourceType) where.push(`l.resource_type = ${param(filters.resourceType)}`);
    if (filters.resourceId) where.push(`l.resource_id = ${param(filters.resourceId)}`);
    if (filters.resourceTarget) where.push(`l.resource_target = ${param(filters.resourceTarget)}`);
    if (filters.action) where.push(`l.action = ${param(filters.action)}`);
    if (filters.requestId) where.push(`l.request_id = ${param(filters.requestId)}`);
    if (filters.organizationId) where.push(`l.organization_id = ${param(filters.organizationId)}`);
    if (filters.visibleOrganizations)
      where.push(`l.organization_id = ANY(${param(filters.visibleOrganizations)}::uuid[])`);
    if (filters.dateFrom) where.push(`l.time >= ${param(filters.dateFrom)}`);
    if (filters.dateTo) where.push(`l.time <= ${param(filters.dateTo)}`);
    if (filters.username)
      where.push(
        `l.user_id IN (SELECT id FROM users WHERE lower_name = ${param(filters.username.toLowerCase())})`,
      );
    if (filters.email)
      where.push(
        `l.user_id IN (SELECT id FROM users WHERE lower_email = ${param(filters.email.toLowerCase())})`,
      );
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const countParams = [...params, this.countCap + 1];
    const [counted] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM audit_logs l ${clause} LIMIT $${countParams.length}) capped`,
      countParams,
    )) as { n: number }[];
    const total = counted?.n ?? 0;
    const limit = param(page.limit);
    const offset = param(page.offset);
    // Deep pages: the page's ids come from an index (only the filtered columns and the order are
    // read), then only those rows are fetched with their actors.
    const rows = (await this.dataSource.query(
      `WITH page AS (
         SELECT l.id, l.time FROM audit_logs l ${clause}
          ORDER BY l.time DESC, l.id DESC LIMIT ${limit} OFFSET ${offset})
       SELECT l.id, l.time, l.user_id, l.organization_id, l.ip, l.user_agent, l.resource_type, l.resource_id,
              l.resource_target, l.action, l.diff, l.status_code, l.additional_fields, l.request_id,
              CASE WHEN u.id IS NULL THEN NULL ELSE json_build_object(
                'id', u.id::text, 'uuid', u.uuid, 'name', u.name, 'full_name', u.full_name, 'email', u.email,
                'avatar_url', u.avatar_url, 'status', u.status, 'login_type', u.login_type,
                'created_at', u.created_at, 'updated_at', u.updated_at, 'last_seen_at', u.last_seen_at,
                'site_roles', u.site_roles, 'is_admin', u.is_admin, 'is_service_account', u.is_service_account)
              END AS actor
         FROM page JOIN audit_logs l ON l.id = page.id LEFT JOIN users u ON u.id = l.user_id
        ORDER BY page.time DESC, page.id DESC`,
      params,
    )) as Record<string, unknown>[];
    const entries = rows.map((row) => ({
      id: row.id as string,
      time: new Date(row.time as string),
      userId: row.user_id as string | null,
      organizationId: row.organization_id as string | null,
      ip: row.ip as string | null,
      userAgent: row.user_agent as string | null,
      resourceType: row.resource_type as string,
      resourceId: row.resource_id as string,
      resourceTarget: row.resource_target as string,
      action: row.action as string,
      diff: row.diff as Record<string, unknown>,
      statusCode: row.status_code as number,
      additionalFields: row.additional_fields as Record<string, unknown>,
      requestId: row.request_id as string | null,
      actor: row.actor as ActorRow | null,
    }));
    return total > this.countCap
      ? { entries, count: this.countCap, countCap: this.countCap }
      : { entries, count: total };
  }
}
