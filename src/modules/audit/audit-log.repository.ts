import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditLogEntry } from './audit-log.entity';
import type { AuditFilters, AuditLogRow } from './audit-query';

/** The filters with the actor filters (user name, email) resolved to account ids by identity's directory. */
export type ResolvedAuditFilters = Omit<AuditFilters, 'username' | 'email'> & {
  /** Entries by one of these accounts (each user filter narrows the set; empty matches nothing). */
  userIds?: string[][];
};

/** A WHERE clause over `audit_logs l` and its positional parameters ($1...), in filter order. */
export interface AuditFilterClause {
  clause: string;
  params: unknown[];
}

/** The WHERE clause of the filters (empty when there is none). */
export function auditFilterClause(filters: ResolvedAuditFilters): AuditFilterClause {
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
  for (const ids of filters.userIds ?? []) where.push(`l.user_id = ANY(${param(ids)}::bigint[])`);
  return { clause: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

/** The `audit_logs` table. Entries carry their actor's id; the actor's account comes from identity's directory. */
@Injectable()
export class AuditLogRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Inside the caller's transaction: the entry commits or rolls back with the write it records. */
  async insert(manager: EntityManager, row: AuditLogRow): Promise<void> {
    await manager
      .getRepository(AuditLogEntry)
      .insert({ ...row, diff: row.diff as never, additionalFields: row.additionalFields as never });
  }

  /**
   * The row as `INSERT … SELECT … FROM <source.cte>` for a data-modifying CTE of the caller's statement
   * (the AuditLog port's `insertSql`); `row.resourceId` is replaced by `source.resourceIdSql`.
   */
  insertSql(row: AuditLogRow, source: { cte: string; resourceIdSql: string }, params: unknown[]): string {
    const param = (value: unknown, cast = '') => {
      params.push(value);
      return `$${params.length}${cast}`;
    };
    return `INSERT INTO audit_logs (user_id, organization_id, ip, user_agent, request_id, resource_type, resource_id,
                              resource_target, action, diff, status_code, additional_fields)
            SELECT ${param(row.userId, '::bigint')}, ${param(row.organizationId, '::uuid')}, ${param(row.ip)},
                   ${param(row.userAgent)}, ${param(row.requestId)}, ${param(row.resourceType)}, ${source.resourceIdSql},
                   ${param(row.resourceTarget)}, ${param(row.action)}, ${param(JSON.stringify(row.diff), '::jsonb')},
                   ${param(row.statusCode, '::int')}, ${param(JSON.stringify(row.additionalFields), '::jsonb')}
              FROM ${source.cte}`;
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

  /** A page of matching entries, newest first. */
  async page(filter: AuditFilterClause, page: { limit: number; offset: number }): Promise<AuditLogEntry[]> {
    const params = [...filter.params, page.limit, page.offset];
    const limit = `$${params.length - 1}`;
    const offset = `$${params.length}`;
    // Deep pages: the page's ids come from an index (only the filtered columns and the order are
    // read), then only those rows are fetched.
    const rows = (await this.dataSource.query(
      `WITH page AS (
         SELECT l.id, l.time FROM audit_logs l ${filter.clause}
          ORDER BY l.time DESC, l.id DESC LIMIT ${limit} OFFSET ${offset})
       SELECT l.id, l.time, l.user_id, l.organization_id, l.ip, l.user_agent, l.resource_type, l.resource_id,
              l.resource_target, l.action, l.diff, l.status_code, l.additional_fields, l.request_id
         FROM page JOIN audit_logs l ON l.id = page.id
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
    }));
  }
}
