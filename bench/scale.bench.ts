import { createRequire } from 'node:module';
import { hashSecret, randomString } from '../src/modules/identity/api-token-codec';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../src/modules/notifications/template-ids';
import { createTestApp, type TestApp } from '../test/helpers/test-app';
import { runBench } from './harness';

/**
 * `npm run bench:scale` (issue 52): the same paths at a small dataset (S) and at BENCH_SCALE_FACTOR
 * (default 100 on PostgreSQL, 20 on the embedded database) times it (L), in one in-process app on one
 * database, alternating S and L per round (BENCH_ROUNDS, default 3; median round reported).
 * S and L are two tenants seeded side by side with SQL this benchmark owns: per tenant, a user (with an
 * inbox of BENCH_S_INBOX items, default 1,000, ×factor for L, 90 % read) and a repository with 30 open
 * pull requests on top of BENCH_S_ISSUES closed issues and pulls (default 1,000, ×factor for L) and
 * factor×10 forks for L. So per-tenant growth shows (an index that does not match, a count over a user's
 * or a repository's rows, a git process per row); a sequential scan of a whole table costs both tenants
 * alike (check absolute figures, and EXPLAIN). Load: autocannon, BENCH_SECONDS (default 5) ×
 * BENCH_CONNECTIONS (default 10) per path and size.
 * Prints a table and, last, `scale: worst L/S ratio R on <path>` (ratio of p50 latencies).
 */
interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(__filename)('autocannon') as (
  options: Record<string, unknown>,
) => Promise<LoadResult>;

const embedded = !process.env.DATABASE_URL || process.env.DATABASE_EMBEDDED === 'true';
const FACTOR = Number(process.env.BENCH_SCALE_FACTOR ?? (embedded ? 20 : 100));
const S_INBOX = Number(process.env.BENCH_S_INBOX ?? 1_000);
const S_ISSUES = Number(process.env.BENCH_S_ISSUES ?? 1_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const OPEN_PULLS = 30;
// BENCH_PROBE=N: N sequential requests per path and size before the load (N ≥ 2; 1 means 10).
const PROBES = Math.max(2, Number(process.env.BENCH_PROBE) > 1 ? Number(process.env.BENCH_PROBE) : 10);

interface Tenant {
  size: 'S' | 'L';
  userId: string;
  name: string;
  token: string;
  repoPath: string;
}

async function seedTenant(t: TestApp, size: 'S' | 'L'): Promise<Tenant> {
  const factor = size === 'S' ? 1 : FACTOR;
  const name = `scale_${size.toLowerCase()}_${randomString(4).toLowerCase()}`;
  const [user]: { id: string }[] = await t.dataSource.query(
    `INSERT INTO users (type, name, lower_name, email, lower_email) VALUES ('individual', $1, $1, $2, $2) RETURNING id`,
    [name, `${name}@example.com`],
  );
  const tokenId = randomString(10);
  const secret = randomString(22);
  await t.dataSource.query(
    `INSERT INTO api_tokens (id, hashed_secret, user_id, name, scopes, login_type, lifetime_seconds, expires_at)
     VALUES ($1, $2, $3, 'bench', '{all}', 'token', 86400, now() + interval '1 day')`,
    [tokenId, hashSecret(secret), user.id],
  );
  // Inbox: 90 % read, the newest 10 % unread.
  const items = S_INBOX * factor;
  await t.dataSource.query(
    `INSERT INTO inbox_notifications (id, user_id, template_id, title, content, read_at, created_at)
     SELECT gen_random_uuid(), $1, $2, 'item ' || g, 'body',
            CASE WHEN g <= $3::int * 0.9 THEN now() END, now() - make_interval(secs => $3::int - g)
       FROM generate_series(1, $3::int) g`,
    [user.id, IDS.customNotification, items],
  );
  const [repo]: { id: string }[] = await t.dataSource.query(
    `INSERT INTO repositories (owner_id, name, lower_name, is_empty) VALUES ($1, 'project', 'project', false) RETURNING id`,
    [user.id],
  );
  // Forks of the repository (L: factor×10), owned by the same user under other names.
  if (size === 'L')
    await t.dataSource.query(
      `INSERT INTO repositories (owner_id, name, lower_name, fork_id, is_empty)
       SELECT $1, 'fork' || g, 'fork' || g, $2, false FROM generate_series(1, $3::int) g`,
      [user.id, repo.id, factor * 10],
    );
  // Closed issues and pulls (older), then 30 open pulls (newest) and a few open issues.
  const closed = S_ISSUES * factor;
  await t.dataSource.query(
    `INSERT INTO issues (repository_id, index, poster_id, title, body, is_pull, is_closed, created_at, updated_at)
     SELECT $1, g, $2, 'closed ' || g, '', g % 2 = 0, true, now() - make_interval(secs => 100000 + $3::int - g), now()
       FROM generate_series(1, $3::int) g`,
    [repo.id, user.id, closed],
  );
  await t.dataSource.query(
    `INSERT INTO pull_requests (issue_id, head_repository_id, head_branch, base_branch, head_commit_id, base_commit_id, merge_base, status, has_merged)
     SELECT i.id, $1, 'topic-' || i.index, 'main', repeat('a', 40), repeat('b', 40), repeat('b', 40), 'merged', true
       FROM issues i WHERE i.repository_id = $1 AND i.is_pull`,
    [repo.id],
  );
  await t.dataSource.query(
    `INSERT INTO issues (repository_id, index, poster_id, title, body, is_pull, is_closed, created_at, updated_at)
     SELECT $1, $3::int + g, $2, 'open ' || g, '', g <= $4::int, false, now() - make_interval(secs => 1000 - g), now()
       FROM generate_series(1, $4::int + 10) g`,
    [repo.id, user.id, closed, OPEN_PULLS],
  );
  await t.dataSource.query(
    `INSERT INTO pull_requests (issue_id, head_repository_id, head_branch, base_branch, head_commit_id, base_commit_id, merge_base, status,
                                additions, deletions, changed_files, commits_count)
     SELECT i.id, $1, 'topic-' || i.index, 'main', repeat('c', 40), repeat('b', 40), repeat('b', 40), 'mergeable', 1, 0, 1, 1
       FROM issues i WHERE i.repository_id = $1 AND i.is_pull AND NOT i.is_closed`,
    [repo.id],
  );
  await t.dataSource.query('ANALYZE');
  return {
    size,
    userId: user.id,
    name,
    token: `${tokenId}-${secret}`,
    repoPath: `/api/v1/repos/${name}/project`,
  };
}

interface Path {
  name: string;
  method?: 'GET' | 'PUT';
  url: (tenant: Tenant) => string;
}

const PATHS: Path[] = [
  { name: 'pull list (30 open)', url: (x) => `${x.repoPath}/pulls?state=open&limit=30` },
  { name: 'pull list (closed)', url: (x) => `${x.repoPath}/pulls?state=closed&limit=30` },
  { name: 'issues page 50', url: (x) => `${x.repoPath}/issues?state=closed&type=issues&page=50&limit=10` },
  { name: 'repository', url: (x) => x.repoPath },
  { name: 'inbox list', url: () => '/api/v2/notifications/inbox' },
  { name: 'inbox unread', url: () => '/api/v2/notifications/inbox?read_status=unread' },
  // Last: it makes every item read (the watermark answers; its job runs beside the load).
  {
    name: 'inbox mark-all-as-read',
    method: 'PUT',
    url: () => '/api/v2/notifications/inbox/mark-all-as-read',
  },
];

async function measure(base: string, path: Path, tenant: Tenant): Promise<LoadResult> {
  return autocannon({
    url: `${base}${path.url(tenant)}`,
    method: path.method ?? 'GET',
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { Authorization: `token ${tenant.token}`, 'Coder-Session-Token': tenant.token },
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

runBench(async () => {
  // Embedded PGlite serves one connection at a time (test/notifications/helpers.ts: appEnv).
  const t = await createTestApp({
    env: { RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'warn', ...(embedded ? { DATABASE_POOL_SIZE: '1' } : {}) },
  });
  try {
    const base = (await t.listen()).replace(/\/$/, '');
    const started = Date.now();
    const small = await seedTenant(t, 'S');
    const large = await seedTenant(t, 'L');
    process.stdout.write(
      `seeded in ${((Date.now() - started) / 1000).toFixed(1)} s: factor ${FACTOR} (${embedded ? 'embedded PGlite' : 'PostgreSQL'}); ` +
        `S inbox ${S_INBOX}, issues ${S_ISSUES}; L inbox ${S_INBOX * FACTOR}, issues ${S_ISSUES * FACTOR}, forks ${FACTOR * 10}\n`,
    );
    // BENCH_PATHS: a comma-separated subset of the path names (substring match), e.g. `pull list`.
    const only = process.env.BENCH_PATHS?.split(',').map((part) => part.trim());
    const paths = PATHS.filter((path) => !only || only.some((part) => path.name.includes(part)));
    if (process.env.BENCH_PROBE) {
      // Timed sequential requests per path and size (no load): where a path is slow before it is loaded.
      for (const path of paths.filter((p) => p.method !== 'PUT'))
        for (const tenant of [small, large]) {
          // PROBES sequential requests: the first (cold), the median of the rest, their CPU time in this
          // process (server and client: a wait shows as wall time well above it) and the body size.
          const times: number[] = [];
          let status = 0;
          let bytes = 0;
          let cpu = process.cpuUsage();
          for (let i = 0; i < PROBES; i++) {
            if (i === 1) cpu = process.cpuUsage();
            const begin = performance.now();
            const res = await fetch(`${base}${path.url(tenant)}`, {
              headers: { Authorization: `token ${tenant.token}`, 'Coder-Session-Token': tenant.token },
            });
            bytes = (await res.arrayBuffer()).byteLength;
            status = res.status;
            times.push(performance.now() - begin);
          }
          process.stdout.write(
            `probe ${path.name} ${tenant.size}: ${status} ${bytes} B, first ${times[0]!.toFixed(0)} ms, ` +
              `then ${median(times.slice(1)).toFixed(1)} ms (CPU ${(((c) => c.user + c.system)(process.cpuUsage(cpu)) / 1000 / (PROBES - 1)).toFixed(1)} ms)\n`,
          );
        }
    }
    if (process.env.BENCH_EXPLAIN) {
      // The plans of the page queries at L (an index that matches the order, no sequential scan).
      const [{ id }] = (await t.dataSource.query(
        `SELECT r.id FROM repositories r JOIN users u ON u.id = r.owner_id WHERE u.lower_name = $1 AND r.lower_name = 'project'`,
        [large.name],
      )) as { id: string }[];
      for (const sql of [
        `SELECT i.id FROM issues i LEFT JOIN users p ON p.id = i.poster_id WHERE i.repository_id = $1 AND i.is_closed = false AND i.is_pull = true ORDER BY i.created_at DESC, i.id DESC LIMIT 30`,
        `SELECT i.id FROM issues i WHERE i.repository_id = $1 AND i.is_closed = true AND i.is_pull = false ORDER BY i.created_at DESC, i.id DESC LIMIT 10 OFFSET 490`,
        `SELECT count(*) FROM issues i WHERE i.repository_id = $1 AND i.is_closed = true AND i.is_pull = false`,
        `SELECT count(*) FROM issues i WHERE i.repository_id = $1 AND NOT i.is_pull AND NOT i.is_closed`,
        `SELECT count(*) FROM repositories f WHERE f.fork_id = $1`,
      ]) {
        const plan = (await t.dataSource.query(`EXPLAIN ANALYZE ${sql}`, [id])) as { 'QUERY PLAN': string }[];
        process.stdout.write(`${sql}\n${plan.map((row) => `  ${row['QUERY PLAN']}`).join('\n')}\n`);
      }
    }
    const results = new Map<string, { S: LoadResult[]; L: LoadResult[] }>();
    for (const path of paths) results.set(path.name, { S: [], L: [] });
    for (let round = 0; round < ROUNDS; round++) {
      for (const path of paths) {
        if (path.method === 'PUT' && round > 0) continue;
        // Alternating S and L, the order flipped each round.
        const order = round % 2 === 0 ? [small, large] : [large, small];
        for (const tenant of order) {
          const result = await measure(base, path, tenant);
          if (result.non2xx > 0 || result.errors > 0)
            throw new Error(
              `${path.name} (${tenant.size}): ${result.non2xx} non-2xx, ${result.errors} errors`,
            );
          results.get(path.name)![tenant.size].push(result);
        }
      }
    }
    const rows: string[] = [];
    let worst = { ratio: 0, path: '' };
    const pad = (value: string, width: number) => value.padEnd(width);
    rows.push(
      `${pad('path', 26)} ${pad('S req/s', 9)} ${pad('S p50', 8)} ${pad('S p99', 8)} ${pad('L req/s', 9)} ${pad('L p50', 8)} ${pad('L p99', 8)} L/S p50`,
    );
    for (const [name, { S, L }] of results) {
      const sP50 = median(S.map((r) => r.latency.p50));
      const lP50 = median(L.map((r) => r.latency.p50));
      // p50 of 0 ms (autocannon's resolution is 1 ms) counts as 1 ms.
      const ratio = Math.max(lP50, 1) / Math.max(sP50, 1);
      if (ratio > worst.ratio) worst = { ratio, path: name };
      rows.push(
        `${pad(name, 26)} ${pad(median(S.map((r) => r.requests.average)).toFixed(0), 9)} ${pad(`${sP50} ms`, 8)} ${pad(`${median(S.map((r) => r.latency.p99))} ms`, 8)} ` +
          `${pad(median(L.map((r) => r.requests.average)).toFixed(0), 9)} ${pad(`${lP50} ms`, 8)} ${pad(`${median(L.map((r) => r.latency.p99))} ms`, 8)} ${ratio.toFixed(2)}`,
      );
    }
    process.stdout.write(`${rows.join('\n')}\n`);
    process.stdout.write(`scale: worst L/S ratio ${worst.ratio.toFixed(2)} on ${worst.path}\n`);
  } finally {
    await t.close();
  }
});
