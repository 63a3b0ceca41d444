import { tablesVersion, watchTables } from './table-versions';

interface Entry<V> {
  value: V;
  version: number;
  expiresAt: number;
}

export interface VersionedCacheOptions {
  /** Tables the cached reads come from: a write to any of them drops every entry at once. */
  tables: readonly string[];
  /** Longest life of an entry (a backstop for a missed cross-instance message); 0 turns the cache off. */
  ttlMs: number;
  /** Entries kept at most (oldest dropped first). */
  maxEntries?: number;
  /** Which loaded values to keep (default: all but `undefined`, so misses cost a read each time). */
  keep?: (value: unknown) => boolean;
}

/**
 * A read-through cache for hot reads (the credential lookup, the RBAC subject) that can never
 * serve a value older than the last write this process saw to its tables: an entry is valid only
 * while the tables' versions equal those it was read at, and a read that raced with a write is
 * not stored. Values must be treated as read-only by callers (copy before mutating).
 */
export class VersionedCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private readonly maxEntries: number;

  constructor(private readonly options: VersionedCacheOptions) {
    this.maxEntries = options.maxEntries ?? 10_000;
    watchTables(options.tables);
  }

  async get(key: K, load: () => Promise<V>): Promise<V> {
    if (this.options.ttlMs <= 0) return load();
    const now = Date.now();
    const entry = this.entries.get(key);
    if (entry && entry.version === tablesVersion(this.options.tables) && entry.expiresAt > now)
      return entry.value;
    const version = tablesVersion(this.options.tables);
    const value = await load();
    // A write seen while loading may or may not be in `value`: do not keep it.
    const keep = this.options.keep ? this.options.keep(value) : value !== undefined;
    if (keep && tablesVersion(this.options.tables) === version)
      this.store(key, { value, version, expiresAt: now + this.options.ttlMs });
    return value;
  }

  /**
   * Changes the current entry of one key in place, for activity writes that do not bump the table
   * versions (ACTIVITY_WRITE). A stale entry is left alone (it reloads anyway).
   */
  patchKey(key: K, mutate: (value: V) => void): boolean {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== tablesVersion(this.options.tables)) return false;
    mutate(entry.value);
    return true;
  }

  private store(key: K, entry: Entry<V>): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, entry);
  }
}
