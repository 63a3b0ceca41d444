/**
 * The rows of a raw `UPDATE … RETURNING` / `DELETE … RETURNING`: TypeORM's PostgreSQL driver answers
 * those as `[rows, affected]`, INSERT and SELECT as the rows. Either way, the rows.
 */
export function resultRows<T = unknown>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  )
    return result[0] as T[];
  return (result as T[]) ?? [];
}
