import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchDatabase, insertToken, startDevplane, stopAll } from './harness';

/**
 * Issue 16 item 10, against the built server (dist/main.js):
 * 1. GET /api/v2/audit with BENCH_AUDIT_ROWS (default 1,000,000) entries: the first page, and a deep
 *    page (offset BENCH_AUDIT_DEEP_OFFSET, default 100,000) of `resource_type:user`, and a page at a
 *    fifth of that offset of `resource_type:user action:write`: requests/s, p50, p99.
 * 2. GET /api/v2/insights/user-status-counts in Europe/Berlin over BENCH_CHART_USERS (default
 *    100,000) users with a year of status history (creation over the year, a third suspended later,
 *    a fifth made dormant, some reactivated, a few deleted).
 * Env: DATABASE_URL (default: embedded PGlite; use a server for the full sizes), BENCH_SECONDS
 * (default 5), BENCH_CONNECTIONS (default 10).
 * Run: npm run build && node -r @swc-node/register bench/platform-users.bench.ts
 */
interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(__filename)('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
}) => Promise<LoadResult>;

const auditRows = Number(process.env.BENCH_AUDIT_ROWS ?? 1_000_000);
const deepOffset = Number(process.env.BENCH_AUDIT_DEEP_OFFSET ?? 100_000);
const chartUsers = Number(process.env.BENCH_CHART_USERS ?? 100_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplane-bench-users-'));
  const db = await benchDatabase({ DATA_DIR: dataDir, LOG_LEVEL: 'error' });
  const children = [];
  try {
    const { child, port } = await startDevplane(db.env);
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const token = await insertToken(db, 'admin');
    const q = (sql: string, params: unknown[] = []) =>
      db.admin.query(sql.replaceAll('$S.', `"${db.schema}".`), params);

    let started = performance.now();
    await q(
      `INSERT INTO $S.users (name, lower_name, email, lower_email, status, created_at, updated_at)
       SELECT 'bu' || g, 'bu' || g, 'bu' || g || '@example.com', 'bu' || g || '@example.com', 'active',
              now() - interval '365 days' + (g::double precision / $1) * interval '360 days', now()
         FROM generate_series(1, $1) g`,
      [chartUsers],
    );
    // Later changes, spread over the year after each user's creation (the trigger only sees "now").
    await q(
      `INSERT INTO $S.user_status_changes (user_id, new_status, changed_at)
       SELECT u.id, s.status, u.created_at + (random() * (now() - u.created_at))
         FROM $S.users u
         JOIN LATERAL (VALUES ('suspended', u.id % 3 = 0), ('dormant', u.id % 5 = 0), ('deleted', u.id % 50 = 0)) s(status, hit)
           ON s.hit
        WHERE u.lower_name LIKE 'bu%'`,
    );
    await q(
      `INSERT INTO $S.user_status_changes (user_id, new_status, changed_at)
       SELECT user_id, 'active', changed_at + interval '3 days' FROM $S.user_status_changes
        WHERE new_status = 'suspended' AND user_id % 2 = 0`,
    );
    const history = (await q(`SELECT count(*)::int AS n FROM $S.user_status_changes`)).rows[0].n as number;
    console.log(
      `seeded ${chartUsers.toLocaleString()} users, ${history.toLocaleString()} status changes in ${Math.round(performance.now() - started)} ms`,
    );

    started = performance.now();
    const types = [
      'user',
      'api_key',
      'organization',
      'group',
      'workflow_rule',
      'user_secret',
      'organization_member',
      'notifications_settings',
    ];
    const actions = ['create', 'write', 'delete', 'login', 'logout'];
    await q(
      `INSERT INTO $S.audit_logs (time, user_id, resource_type, resource_id, resource_target, action, diff, status_code)
       SELECT now() - (g::double precision / $1) * interval '365 days',
              (SELECT min(id) FROM $S.users) + (g % 1000),
              ($2::text[])[1 + g % array_length($2::text[], 1)],
              g::text, 'target-' || (g % 10000),
              ($3::text[])[1 + (g / 7) % array_length($3::text[], 1)],
              '{}'::jsonb, 200
         FROM generate_series(1, $1) g`,
      [auditRows, types, actions],
    );
    await q(`ANALYZE $S.audit_logs`);
    await q(`ANALYZE $S.user_status_changes`);
    await q(`ANALYZE $S.users`);
    console.log(
      `seeded ${auditRows.toLocaleString()} audit entries in ${Math.round(performance.now() - started)} ms`,
    );

    const headers = { 'Service-Session-Token': token };
    const targets = [
      ['audit, first page (limit 50)', `${base}/api/v2/audit?limit=50`],
      [
        `audit, deep filtered page (resource_type:user, offset ${deepOffset.toLocaleString()})`,
        `${base}/api/v2/audit?limit=50&offset=${deepOffset}&q=${encodeURIComponent('resource_type:user')}`,
      ],
      [
        `audit, deep page with two filters (resource_type:user action:write, offset ${(deepOffset / 5).toLocaleString()})`,
        `${base}/api/v2/audit?limit=50&offset=${deepOffset / 5}&q=${encodeURIComponent('resource_type:user action:write')}`,
      ],
      [
        'user status chart (Europe/Berlin, 61 days)',
        `${base}/api/v2/insights/user-status-counts?timezone=Europe/Berlin`,
      ],
    ] as const;
    for (const [name, url] of targets) {
      const probe = await fetch(url, { headers });
      if (probe.status !== 200) throw new Error(`${name}: ${probe.status} ${await probe.text()}`);
      const result = await autocannon({ url, connections, duration: seconds, headers });
      console.log(
        `${name}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms` +
          (result.non2xx || result.errors ? ` (non-2xx ${result.non2xx}, errors ${result.errors})` : ''),
      );
    }
  } finally {
    await stopAll(children);
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
