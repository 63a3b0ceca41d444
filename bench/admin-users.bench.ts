import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { UsersService } from '../src/modules/identity/users.service';
import { createTestApp } from '../test/helpers/test-app';

/**
 * Issue 6 item 10: GET /api/v1/admin/users over 100,000 users with `q` and filters
 * (requests/s, p50, p99), in-process app on loopback, rate limits off.
 * Seeding is one INSERT ... SELECT generate_series. The plan of each query is printed, so the
 * use (or not) of the pg_trgm indexes is visible.
 * Env: DATABASE_URL (default: embedded PGlite), BENCH_USERS (default 100000),
 * BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 10).
 * Run: node -r @swc-node/register bench/admin-users.bench.ts
 */
interface LoadOptions {
  url: string;
  headers?: Record<string, string>;
  connections?: number;
  duration?: number;
  timeout?: number;
}
interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
// autocannon ships no type declarations.
const autocannon = createRequire(__filename)('autocannon') as (options: LoadOptions) => Promise<LoadResult>;

const userCount = Number(process.env.BENCH_USERS ?? 100_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

const WORDS = [
  'amber',
  'basil',
  'cedar',
  'delta',
  'ember',
  'fjord',
  'gamma',
  'haven',
  'indigo',
  'juniper',
  'kestrel',
  'lumen',
  'maple',
  'nectar',
  'onyx',
  'pepper',
  'quartz',
  'raven',
  'sable',
  'tundra',
];

async function main(): Promise<void> {
  const t = await createTestApp({
    env: { LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '10', RATE_LIMIT_API_PER_MINUTE: '10000000' },
  });
  try {
    const admin = (await t.app.get(UsersService).findByName('admin'))!;
    const token = await t.factories.token(admin);
    const started = performance.now();
    // One statement: names bu<i>, full names "<word> <word>", every 10th suspended, every 1000th admin,
    // every 7th restricted, creation times one second apart.
    await t.dataSource.query(
      `INSERT INTO users (type, name, lower_name, email, lower_email, full_name, login_type, status, is_admin, restricted, visibility, created_at, updated_at)
       SELECT 'individual', 'bu' || i, 'bu' || i, 'bu' || i || '@bench.example', 'bu' || i || '@bench.example',
              initcap(($2::text[])[1 + i % 20] || ' ' || ($2::text[])[1 + (i / 20) % 20]) || ' ' || md5(i::text),
              'password', CASE WHEN i % 10 = 0 THEN 'suspended' ELSE 'active' END, i % 1000 = 0, i % 7 = 0,
              (ARRAY['public', 'limited', 'private'])[1 + i % 3], now() - i * interval '1 second', now() - i * interval '1 second'
         FROM generate_series(1, $1::int) AS i`,
      [userCount, WORDS],
    );
    // Steady state: PostgreSQL's autovacuum would have run (visibility map for index-only counts).
    await t.dataSource.query('VACUUM ANALYZE users');
    const seeded = performance.now() - started;
    const trgm: unknown[] = await t.dataSource.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'");
    const url = await t.listen();
    process.stdout.write(
      `admin users search: ${userCount} users seeded in ${(seeded / 1000).toFixed(1)} s on ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; ` +
        `pg_trgm ${trgm.length > 0 ? 'installed (trigram indexes)' : 'not available (sequential scan for q)'}; ` +
        `${connections} connections, ${seconds} s each\n\n`,
    );

    const scenarios: [string, string][] = [
      ['baseline: GET /api/v1/user (auth only)', '@/api/v1/user'],
      ['first page, default sort', 'limit=50'],
      [
        'q=ab (2 chars) + is_active + sort created desc',
        'q=ab&is_active=true&sort=created&order=desc&limit=50',
      ],
      ['q=bu4242 (name/email substring)', 'q=bu4242&limit=50'],
      ['q=juniper (full-name word) + visibility', 'q=juniper&visibility=public&limit=50'],
      ['q=e3b0c4 (md5 fragment, few hits)', 'q=e3b0c4&limit=50'],
      ['is_admin=true', 'is_admin=true&limit=50'],
      ['page 500, sort id', 'sort=id&page=500&limit=50'],
    ];
    const rows: string[] = [];
    for (const [name, query] of scenarios) {
      const result = await autocannon({
        url: query.startsWith('@') ? `${url}${query.slice(1)}` : `${url}/api/v1/admin/users?${query}`,
        headers: { Authorization: `token ${token}` },
        connections,
        duration: seconds,
        timeout: 60,
      });
      // Drain: requests still queued in the server (embedded PGlite serves one query at a time)
      // must not count against the next scenario.
      await fetch(`${url}/api/v1/admin/users?limit=1`, { headers: { Authorization: `token ${token}` } });
      rows.push(
        `${name.padEnd(50)} ${String(Math.round(result.requests.average)).padStart(7)} req/s   p50 ${String(result.latency.p50).padStart(5)} ms   p99 ${String(result.latency.p99).padStart(5)} ms` +
          (result.non2xx + result.errors > 0 ? `   (non-2xx ${result.non2xx}, errors ${result.errors})` : ''),
      );
      process.stdout.write(`${rows[rows.length - 1]}\n`);
    }

    const predicate = (q: string) =>
      trgm.length > 0
        ? `(lower(u.name) LIKE '%${q}%' OR lower(u.full_name) LIKE '%${q}%' OR lower(u.email) LIKE '%${q}%')`
        : `(u.lower_name LIKE '%${q}%' OR lower(u.full_name) LIKE '%${q}%' OR u.lower_email LIKE '%${q}%')`;
    for (const q of ['e3b0c4', 'juniper']) {
      process.stdout.write(`\nPlan of the count query for q=${q}:\n`);
      const plan: { 'QUERY PLAN': string }[] = await t.dataSource.query(
        `EXPLAIN SELECT count(*) FROM users u WHERE u.type = 'individual' AND ${predicate(q)}`,
      );
      for (const line of plan) process.stdout.write(`  ${line['QUERY PLAN']}\n`);
    }
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 1000)); // let in-flight requests finish
    await t.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
