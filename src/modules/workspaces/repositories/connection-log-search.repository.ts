import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A `connection_logs` row. */
export type ConnectionLogRow = Record<string, string | number | Date | null>;

/** Filters of `GET /api/v2/connectionlog`, resolved to ids (`organizationIds`: the caller's visible organizations). */
export interface ConnectionLogFilters {
  ownerId?: string;
  workspaceId?: string;
  types: string[];
  /** Only `ongoing` or only `completed` (both or none: no filter). */
  status?: 'ongoing' | 'completed';
  /** Entries of these organizations (the `organization:` filter, resolved by identity's directory). */
  organizationUuids?: string[];
  organizationIds?: string[];
}

/** The connection log search (organizations by uuid: names and memberships come from identity's directory). */
@Injectable()
export class ConnectionLogSearchRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Matching entries, newest first, and their count up to `countCap + 1`. */
  async search(
    filters: ConnectionLogFilters,
    page: { limit: number; offset: number },
    countCap: number,
  ): Promise<{ rows: ConnectionLogRow[]; total: number }> {
    const where = ['true'];
    const params: unknown[] = [];
    const add = (clause: (n: number) => string, value: unknown): void => {
      params.push(value);
      where.push(clause(params.length));
    };
    if (filters.ownerId) add((n) => `c.workspace_owner_id = $${n}`, filters.ownerId);
    if (filters.workspaceId) add((n) => `c.workspace_id = $${n}`, filters.workspaceId);
    if (filters.types.length) add((n) => `c.type = ANY($${n})`, filters.types);
    if (filters.status)
      where.push(
        filters.status === 'ongoing' ? 'c.disconnect_time IS NULL' : 'c.disconnect_time IS NOT NULL',
      );
    if (filters.organizationUuids)
      add((n) => `c.organization_id = ANY($${n}::uuid[])`, filters.organizationUuids);
    if (filters.organizationIds)
      add((n) => `c.organization_id = ANY($${n}::uuid[])`, filters.organizationIds);
    const whereSql = where.join(' AND ');
    const [counted] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM connection_logs c WHERE ${whereSql} LIMIT ${countCap + 1}) capped`,
      params,
    )) as { n: number }[];
    const rows = (await this.dataSource.query(
      `SELECT c.* FROM connection_logs c
        WHERE ${whereSql} ORDER BY c.connect_time DESC, c.id LIMIT ${page.limit} OFFSET ${page.offset}`,
      params,
    )) as ConnectionLogRow[];
    return { rows, total: counted?.n ?? 0 };
  }
}
