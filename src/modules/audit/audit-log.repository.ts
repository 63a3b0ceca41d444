import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditLogEntry } from './audit-log.entity';
import type { AuditFilters, AuditLogRow } from './audit-query';

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

export type AuditEntryWithActor = AuditLogEntry & { actor: ActorRow | null };

/** A WHERE clause over `audit_logs l` and its positional parameters ($1...), in filter order. */
export interface AuditFilterClause {
  clause: string;
  params: unknown[];
}

/** The WHERE clause of the filters (empty when there is none); user names and emails match case-insensitively. */
export function auditFilterClause(filters: AuditFilters): AuditFilterClause {
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
  return { clause: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

/**
 * The `audit_logs` table. The actor comes from identity's `users` table (a join kept here as SQL
 * until identity offers the read, issue 32 item 2).
 */
@Injectable()
export class AuditLogRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Inside the caller's transaction: the entry commits or rolls back with the write it records. */
  async insert(manager: EntityManager, row: AuditLogRow): Promise<void> {
    await manager
      .getRepository(AuditLogEntry)
      .insert({ ...row, diff: row.diff as never, additionalFields: row.additionalFields as never });
  }

  /** The number of matching entries, counted up to `limit` rows. */
  async countUpTo(filter: AuditFilterClause, limit: number): Promise<number> {
    const countParams = [...filter.params, limit];
    const [counted] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM audit_logs l ${filter.clause} LIMIT $${countParams.length}) capped`,
      countParams,
    )) as { n: number }[];
    return counted?.n ?? 0;
  }

  /** A page of matching entries with their actors, newest first. */
  async page(
    filter: AuditFilterClause,
    page: { limit: number; offset: number },
  ): Promise<AuditEntryWithActor[]> {
    const params = [...filter.params, page.limit, page.offset];
    const limit = `$${params.length - 1}`;
    const offset = `$${params.length}`;
    // Deep pages: the page's ids come from an index (only the filtered columns and the order are
    // read), then only those rows are fetched with their actors.
    const rows = (await this.dataSource.query(
      `WITH page AS (
         SELECT l.id, l.time FROM audit_logs l ${filter.clause}
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
    return rows.map((row) => ({
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
  }
}
