import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/**
 * One page of an offset-paged list and its total, counting at most once (issue 52.3), in place of
 * TypeORM's getManyAndCount(), which always counts with `COUNT(DISTINCT id)` (every matching id sorted).
 * - The page: OFFSET/LIMIT on the query as built (its joins must be to-one: no row multiplication).
 * - The total: told by the page when it is short and not past the end (`offset + rows`); else one plain
 *   `count(*)` over the same conditions, without ORDER BY (to-one LEFT JOINs that select nothing are
 *   removed by PostgreSQL's planner).
 * `limit` undefined: every row from `offset` (the total is then always told by the page unless it is empty).
 */
export async function pageAndCount<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  offset: number,
  limit: number | undefined,
): Promise<[T[], number]> {
  const rows = await query
    .clone()
    .offset(offset || undefined)
    .limit(limit)
    .getMany();
  if ((limit === undefined || rows.length < limit) && (rows.length > 0 || offset === 0))
    return [rows, offset + rows.length];
  const counted = await query
    .clone()
    .select('count(*)', 'n')
    .orderBy()
    .offset(undefined)
    .limit(undefined)
    .getRawOne<{ n: string }>();
  return [rows, Number(counted?.n ?? 0)];
}
