/**
 * Process-wide version counters per table. Every write the data layer sees bumps the versions of
 * the tables it names (TableWriteTracker), and so do writes on other instances (through the
 * ClusterBus). A cache entry remembers the versions it was read at and is used only while they
 * have not moved. The counters are process-wide on purpose: two app instances in one process (the
 * cluster tests) see each other's writes synchronously.
 */
const versions = new Map<string, number>();
let watched = new Set<string>();
let watchedPattern: RegExp | undefined;

/** Sum of the tables' versions: monotonic, and it moves whenever one of them moves. */
export function tablesVersion(tables: readonly string[]): number {
  let sum = 0;
  for (const table of tables) sum += versions.get(table) ?? 0;
  return sum;
}

export function bumpTables(tables: Iterable<string>): void {
  for (const table of tables) versions.set(table, (versions.get(table) ?? 0) + 1);
}

/** Declares tables some cache depends on: only writes to watched tables are tracked. */
export function watchTables(tables: readonly string[]): void {
  const before = watched.size;
  watched = new Set([...watched, ...tables]);
  if (watched.size === before) return;
  const names = [...watched].map((name) => name.replace(/[^a-z0-9_]/gi, '')).join('|');
  watchedPattern = new RegExp(`\\b(${names})\\b`, 'gi');
}

/**
 * Leading comment of an activity write: a statement that changes only columns no cache decides on
 * (`users.last_seen_at`, a token's last use, address and sliding expiry). It does not bump any
 * table version, so an active user's periodic activity write no longer empties every identity cache;
 * the writer patches its own cached rows instead (VersionedCache.patchKey). Never use it for anything
 * that decides access (status, roles, scopes, deletion, a shortened expiry).
 */
export const ACTIVITY_WRITE = '/* devplane:activity */';

/** Statements that never write. Anything else (INSERT, UPDATE, DELETE, WITH, DDL, COPY...) may. */
const READ_ONLY_STATEMENT =
  /^\s*(select|show|begin|start|commit|rollback|savepoint|release|set|listen|unlisten|explain)\b/i;

/** The watched tables a statement may write (conservative: every watched name it mentions). */
export function watchedTablesWrittenBy(sql: string): string[] {
  if (!watchedPattern || READ_ONLY_STATEMENT.test(sql) || sql.startsWith(ACTIVITY_WRITE)) return [];
  const found = new Set<string>();
  for (const match of sql.matchAll(watchedPattern)) found.add(match[1]!.toLowerCase());
  return [...found];
}
