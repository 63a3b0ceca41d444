import {
  bumpTables,
  tablesVersion,
  watchTables,
  watchedTablesWrittenBy,
} from '../../../src/platform/cache/table-versions';
import { VersionedCache } from '../../../src/platform/cache/versioned-cache';

describe('table versions', () => {
  beforeAll(() => watchTables(['vc_users', 'vc_tokens']));

  it.each([
    ['SELECT * FROM vc_users WHERE id = $1', []],
    ['  select 1 from vc_users for update', []],
    ['UPDATE "vc_users" SET "status" = $1 WHERE "id" = $2', ['vc_users']],
    ['INSERT INTO vc_tokens (id) SELECT id FROM vc_users', ['vc_tokens', 'vc_users']],
    ['DELETE FROM "vc_tokens" WHERE "user_id" = $1', ['vc_tokens']],
    ['WITH gone AS (DELETE FROM vc_tokens RETURNING id) SELECT count(*) FROM gone', ['vc_tokens']],
    ['UPDATE vc_users_archive SET x = 1', []],
    ['UPDATE other SET vc_users_count = 1', []],
    ['TRUNCATE vc_users CASCADE', ['vc_users']],
    ['COMMIT', []],
    ['SAVEPOINT typeorm_1', []],
  ])('%s writes %j', (sql, tables) => {
    expect(watchedTablesWrittenBy(sql).sort()).toEqual(tables);
  });

  it('a bump moves the version of every set that holds the table, and no other', () => {
    const both = tablesVersion(['vc_users', 'vc_tokens']);
    const tokens = tablesVersion(['vc_tokens']);
    bumpTables(['vc_users']);
    expect(tablesVersion(['vc_users', 'vc_tokens'])).toBe(both + 1);
    expect(tablesVersion(['vc_tokens'])).toBe(tokens);
  });
});

describe('VersionedCache', () => {
  const tables = ['vc_cache_a'];
  let loads: number;
  const loader = (value: string | undefined) => () => {
    loads += 1;
    return Promise.resolve(value);
  };
  beforeEach(() => (loads = 0));

  it('serves a stored value without loading again', async () => {
    const cache = new VersionedCache<string, string | undefined>({ tables, ttlMs: 60_000 });
    expect(await cache.get('k', loader('one'))).toBe('one');
    expect(await cache.get('k', loader('two'))).toBe('one');
    expect(loads).toBe(1);
  });

  it('loads again after a write to one of its tables', async () => {
    const cache = new VersionedCache<string, string | undefined>({ tables, ttlMs: 60_000 });
    await cache.get('k', loader('one'));
    bumpTables(tables);
    expect(await cache.get('k', loader('two'))).toBe('two');
    expect(loads).toBe(2);
  });

  it('does not keep a value read while a write happened', async () => {
    const cache = new VersionedCache<string, string | undefined>({ tables, ttlMs: 60_000 });
    const racing = await cache.get('k', () => {
      loads += 1;
      bumpTables(tables); // the write commits while the read is in flight
      return Promise.resolve('maybe-stale');
    });
    expect(racing).toBe('maybe-stale');
    expect(await cache.get('k', loader('fresh'))).toBe('fresh');
    expect(loads).toBe(2);
  });

  it('never keeps misses, so unknown keys cannot fill memory', async () => {
    const cache = new VersionedCache<string, string | undefined>({ tables, ttlMs: 60_000 });
    await cache.get('missing', loader(undefined));
    await cache.get('missing', loader(undefined));
    expect(loads).toBe(2);
  });

  it('is off with a zero lifetime', async () => {
    const cache = new VersionedCache<string, string | undefined>({ tables, ttlMs: 0 });
    await cache.get('k', loader('one'));
    expect(await cache.get('k', loader('two'))).toBe('two');
  });

  it('expires entries after their lifetime', async () => {
    const cache = new VersionedCache<string, string | undefined>({ tables, ttlMs: 1 });
    await cache.get('k', loader('one'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await cache.get('k', loader('two'))).toBe('two');
  });

  it('drops the oldest entry beyond its size', async () => {
    const cache = new VersionedCache<string, string | undefined>({ tables, ttlMs: 60_000, maxEntries: 2 });
    await cache.get('a', loader('a'));
    await cache.get('b', loader('b'));
    await cache.get('c', loader('c'));
    expect(await cache.get('b', loader('b2'))).toBe('b');
    expect(await cache.get('a', loader('a2'))).toBe('a2');
  });
});
