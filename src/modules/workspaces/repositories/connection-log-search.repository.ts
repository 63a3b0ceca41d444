import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConnectionLog } from '../entities/connection-log.entity';

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

/**
 * The connection log search over `ConnectionLog` (organizations by uuid: names and memberships come from
 * identity's directory). Entries are the entity, camelCase.
 */
@Injectable()
export class ConnectionLogSearchRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Matching entries, newest first, and their count up to `countCap + 1`. */
  async search(
    filters: ConnectionLogFilters,
    page: { limit: number; offset: number },
    countCap: number,
  ): Promise<{ entries: ConnectionLog[]; total: number }> {
    const matching = this.dataSource.getRepository(ConnectionLog).createQueryBuilder('c').where('true');
    if (filters.ownerId) matching.andWhere('c.workspace_owner_id = :ownerId', { ownerId: filters.ownerId });
    if (filters.workspaceId)
      matching.andWhere('c.workspace_id = :workspaceId', { workspaceId: filters.workspaceId });
    if (filters.types.length) matching.andWhere('c.type = ANY(:types)', { types: filters.types });
    if (filters.status)
      matching.andWhere(
        filters.status === 'ongoing' ? 'c.disconnect_time IS NULL' : 'c.disconnect_time IS NOT NULL',
      );
    if (filters.organizationUuids)
      matching.andWhere('c.organization_id = ANY(:organizationUuids::uuid[])', {
        organizationUuids: filters.organizationUuids,
      });
    if (filters.organizationIds)
      matching.andWhere('c.organization_id = ANY(:organizationIds::uuid[])', {
        organizationIds: filters.organizationIds,
      });
    const [cappedSql, cappedParams] = matching
      .clone()
      .select('1')
      .limit(countCap + 1)
      .getQueryAndParameters();
    const [counted] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM (${cappedSql}) capped`,
      cappedParams,
    )) as { n: number }[];
    const entries = await matching
      .orderBy('c.connectTime', 'DESC')
      .addOrderBy('c.id')
      .limit(page.limit)
      .offset(page.offset)
      .getMany();
    return { entries, total: counted?.n ?? 0 };
  }
}
