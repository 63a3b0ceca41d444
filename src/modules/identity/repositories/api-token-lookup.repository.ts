import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiToken } from '../entities/api-token.entity';
import { User } from '../entities/user.entity';

/** The credential lookup's statement (ApiTokensService.findWithUser caches its rows). */
@Injectable()
export class ApiTokenLookupRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The hot path of every authenticated request: one statement, built once from the entities'
   * metadata, and rows mapped onto the entities without the query builder (which cost more CPU
   * than the query itself under load).
   */
  private readonly lookup = (() => {
    const columns = (entity: typeof ApiToken | typeof User, prefix: string) =>
      this.dataSource.getMetadata(entity).columns.map((column) => ({
        property: column.propertyName,
        database: column.databaseName,
        alias: `${prefix}${column.databaseName}`,
      }));
    const tokenColumns = columns(ApiToken, 't_');
    const userColumns = columns(User, 'u_');
    const select = [
      ...tokenColumns.map((c) => `t."${c.database}" AS "${c.alias}"`),
      ...userColumns.map((c) => `u."${c.database}" AS "${c.alias}"`),
    ].join(', ');
    return {
      tokenColumns,
      userColumns,
      sql: `SELECT ${select} FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.id = $1`,
    };
  })();

  /** The token row with its owner's columns (aliased `t_…` / `u_…`), or undefined. */
  async findRowWithUser(id: string): Promise<Record<string, unknown> | undefined> {
    const rows = (await this.dataSource.query(this.lookup.sql, [id])) as Record<string, unknown>[];
    return rows[0];
  }

  /** Fresh entities from a (possibly cached) lookup row. */
  hydrateWithUser(row: Record<string, unknown>): ApiToken {
    const token = hydrate(this.lookup.tokenColumns, row, new ApiToken());
    token.user = hydrate(this.lookup.userColumns, row, new User());
    return token;
  }
}

function hydrate<T extends object>(
  columns: { property: string; alias: string }[],
  row: Record<string, unknown>,
  target: T,
): T {
  for (const { property, alias } of columns) {
    const value = row[alias];
    // Rows may come from the lookup cache: arrays and dates are copied so callers cannot change the cached row.
    (target as Record<string, unknown>)[property] = Array.isArray(value)
      ? [...(value as unknown[])]
      : value instanceof Date
        ? new Date(value.getTime())
        : value;
  }
  return target;
}
