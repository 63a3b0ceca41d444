/** A canonical uuid (what PostgreSQL's `uuid` type accepts without an error): path ids are checked with it before a query. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string | null | undefined): boolean {
  return typeof value === 'string' && UUID.test(value);
}
