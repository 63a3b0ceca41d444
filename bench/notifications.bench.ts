import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { hashSecret, randomString } from '../src/modules/identity/api-token-codec';
import { InboxWatchGateway } from '../src/modules/notifications/inbox/inbox-watch.gateway';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../src/modules/notifications/template-ids';
import { createTestApp, type TestApp } from '../test/helpers/test-app';

/**
 * Issue 5 item 10, in-process app on loopback, bounded:
 *  1. BENCH_WATCHERS (default 1,000) WebSocket watchers, one per user; one custom notification per
 *     user (POST /api/v2/notifications/custom, BENCH_CONCURRENCY 50 in flight): p50/p99/max from
 *     the POST being sent to the watcher's frame, plus enqueue → lease delay (queued_seconds).
 *  2. GET /api/v2/notifications/inbox with 100,000 rows in inbox_notifications (90k for one user,
 *     half unread; 10k over 100 users): autocannon BENCH_SECONDS (default 10) × BENCH_CONNECTIONS
 *     (default 10) on the first page, a deep cursor, a templates filter and a targets filter,
 *     plus EXPLAIN ANALYZE of the list and unread-count queries.
 * Env: DATABASE_URL (default: embedded PGlite; then one database connection, see test/notifications/helpers.ts);
 * BENCH_PHASES (default `1,2`): which phases to run (`1` = the watcher latency only).
 * Run: node -r @swc-node/register bench/notifications.bench.ts
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

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PHASES = (process.env.BENCH_PHASES ?? '1,2').split(',').map((p) => p.trim());
const embedded = !process.env.DATABASE_URL || process.env.DATABASE_EMBEDDED === 'true';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function seedUsers(t: TestApp, count: number): Promise<{ id: string; uuid: string; token: string }[]> {
  const users: { id: string; uuid: string }[] = await t.dataSource.query(
    `INSERT INTO users (type, name, lower_name, email, lower_email)
     SELECT 'individual', 'bench' || g || '_' || $1, 'bench' || g || '_' || $1, 'bench' || g || '_' || $1 || '@example.com', 'bench' || g || '_' || $1 || '@example.com'
       FROM generate_series(1, $2::int) g
     RETURNING id, uuid`,
    [randomString(6).toLowerCase(), count],
  );
  const tokens = users.map(() => ({ id: randomString(10), secret: randomString(22) }));
  await t.dataSource.query(
    `INSERT INTO api_tokens (id, hashed_secret, user_id, name, scopes, login_type, lifetime_seconds, expires_at)
     SELECT t.id, t.hashed, t.user_id, 'bench', '{all}', 'token', 86400, now() + interval '1 day'
       FROM unnest($1::varchar[], $2::bytea[], $3::bigint[]) AS t(id, hashed, user_id)`,
    [tokens.map((k) => k.id), tokens.map((k) => hashSecret(k.secret)), users.map((u) => u.id)],
  );
  return users.map((u, i) => ({
    id: String(u.id),
    uuid: u.uuid,
    token: `${tokens[i]!.id}-${tokens[i]!.secret}`,
  }));
}

async function watchers(t: TestApp, base: string, users: { uuid: string; token: string }[]) {
  const received = new Map<string, number>();
  /** Wall-clock ms from the item's created_at (database clock, same machine) to its frame: the fan-out alone. */
  const fanOut = new Map<string, number>();
  const sockets: WebSocket[] = [];
  const wsBase = base.replace(/^http/, 'ws');
  const started = performance.now();
  for (let i = 0; i < users.length; i += 100) {
    await Promise.all(
      users.slice(i, i + 100).map(
        (user) =>
          new Promise<void>((resolve, reject) => {
            const socket = new WebSocket(`${wsBase}/api/v2/notifications/inbox/watch`, {
              headers: { 'Service-Session-Token': user.token },
            });
            socket.on('message', (data: Buffer) => {
              if (received.has(user.uuid)) return;
              received.set(user.uuid, performance.now());
              const createdAt = (
                JSON.parse(data.toString('utf8')) as { notification: { created_at: string } }
              ).notification.created_at;
              fanOut.set(user.uuid, Date.now() - Date.parse(createdAt));
            });
            socket.once('open', () => resolve());
            socket.once('error', reject);
            sockets.push(socket);
          }),
      ),
    );
  }
  const gateway = t.app.get(InboxWatchGateway);
  while (gateway.watcherCount() < users.length) await new Promise((r) => setTimeout(r, 20));
  return { received, fanOut, sockets, openMs: performance.now() - started };
}

async function phaseOne(
  t: TestApp,
  base: string,
  users: { id: string; uuid: string; token: string }[],
): Promise<void> {
  const { received, fanOut, sockets, openMs } = await watchers(t, base, users);
  process.stdout.write(`${users.length} WebSocket watchers open in ${ms(openMs)}\n`);
  const sentAt = new Map<string, number>();
  const answered = new Map<string, number>();
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < users.length) {
        const user = users[next++]!;
        sentAt.set(user.uuid, performance.now());
        const res = await fetch(`${base}/api/v2/notifications/custom`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Service-Session-Token': user.token },
          body: JSON.stringify({
            content: { title: `Bench for ${user.uuid}`, message: 'One **notification** each.' },
          }),
        });
        if (res.status !== 204) failures += 1;
        await res.arrayBuffer();
        answered.set(user.uuid, performance.now());
      }
    }),
  );
  const deadline = performance.now() + 60_000;
  while (received.size < users.length && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  const wall = performance.now() - started;
  const latencies = users
    .filter((u) => received.has(u.uuid))
    .map((u) => received.get(u.uuid)! - sentAt.get(u.uuid)!)
    .sort((a, b) => a - b);
  const posts = users.map((u) => answered.get(u.uuid)! - sentAt.get(u.uuid)!).sort((a, b) => a - b);
  const created = [...fanOut.values()].sort((a, b) => a - b);
  if (process.env.BENCH_DEBUG) {
    for (let i = 0; i < users.length; i += 100) {
      const slice = users.slice(i, i + 100);
      const p = slice.map((u) => answered.get(u.uuid)! - sentAt.get(u.uuid)!).sort((a, b) => a - b);
      const f = slice.map((u) => received.get(u.uuid)! - sentAt.get(u.uuid)!).sort((a, b) => a - b);
      process.stdout.write(
        `  [${i}] post p50 ${ms(percentile(p, 50))} max ${ms(p[p.length - 1]!)}  frame p50 ${ms(percentile(f, 50))} max ${ms(f[f.length - 1]!)}\n`,
      );
    }
  }
  const afterAnswer = users
    .filter((u) => received.has(u.uuid))
    .map((u) => received.get(u.uuid)! - answered.get(u.uuid)!)
    .sort((a, b) => a - b);
  const queued: { p50: number; p99: number; max: number }[] = await t.dataSource.query(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY queued_seconds) * 1000 AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY queued_seconds) * 1000 AS p99,
            max(queued_seconds) * 1000 AS max
       FROM notification_messages WHERE user_id = ANY($1::bigint[])`,
    [users.map((u) => u.id)],
  );
  process.stdout.write(
    [
      `POST /notifications/custom → watcher frame (${users.length} users, ${CONCURRENCY} in flight, ${failures} non-204):`,
      `  frames received ${latencies.length}/${users.length}, wall time ${ms(wall)}`,
      `  p50 ${ms(percentile(latencies, 50))}  p99 ${ms(percentile(latencies, 99))}  max ${ms(latencies[latencies.length - 1] ?? NaN)}`,
      `  of which the POST itself (sent → 204): p50 ${ms(percentile(posts, 50))}  p99 ${ms(percentile(posts, 99))}`,
      `  204 → frame: p50 ${ms(percentile(afterAnswer, 50))}  p99 ${ms(percentile(afterAnswer, 99))}`,
      `  inbox item created (created_at) → frame, the fan-out alone: p50 ${ms(percentile(created, 50))}  p99 ${ms(percentile(created, 99))}`,
      `  enqueue → lease (queued_seconds): p50 ${ms(Number(queued[0]!.p50))}  p99 ${ms(Number(queued[0]!.p99))}  max ${ms(Number(queued[0]!.max))}`,
      '',
    ].join('\n'),
  );
  for (const socket of sockets) socket.terminate();
}

async function phaseTwo(
  t: TestApp,
  base: string,
  users: { id: string; uuid: string; token: string }[],
): Promise<void> {
  const heavy = users[0]!;
  const templates = [IDS.customNotification, IDS.testNotification, IDS.workflowRuleMatched];
  const targets = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
  const started = performance.now();
  await t.dataSource.query(
    `INSERT INTO inbox_notifications (id, user_id, template_id, targets, title, content, icon, actions, read_at, created_at)
     SELECT gen_random_uuid(), $1, ($2::uuid[])[1 + g % 3], ARRAY[($3::uuid[])[1 + g % 4]], 'Item ' || g, 'Body of **item** ' || g, '', '[]',
            CASE WHEN g % 2 = 0 THEN now() ELSE NULL END, now() - make_interval(secs => g)
       FROM generate_series(1, 90000) g`,
    [heavy.id, templates, targets],
  );
  await t.dataSource.query(
    `INSERT INTO inbox_notifications (id, user_id, template_id, targets, title, content, icon, actions, read_at, created_at)
     SELECT gen_random_uuid(), ($1::bigint[])[1 + g % 100], ($2::uuid[])[1 + g % 3], '{}', 'Item ' || g, 'Body ' || g, '', '[]', NULL,
            now() - make_interval(secs => g)
       FROM generate_series(1, 10000) g`,
    [users.slice(1, 101).map((u) => u.id), templates],
  );
  // Steady state: autovacuum would have set the visibility map (index-only unread counts).
  await t.dataSource.query('VACUUM ANALYZE inbox_notifications');
  const total: { n: string }[] = await t.dataSource.query('SELECT count(*) AS n FROM inbox_notifications');
  process.stdout.write(
    `seeded inbox in ${ms(performance.now() - started)}; inbox_notifications holds ${total[0]!.n} rows\n`,
  );
  const deep: { id: string }[] = await t.dataSource.query(
    'SELECT id FROM inbox_notifications WHERE user_id = $1 ORDER BY created_at DESC, id DESC OFFSET 80000 LIMIT 1',
    [heavy.id],
  );
  const headers = { 'Service-Session-Token': heavy.token };
  const targetsList: [string, string][] = [
    ['first page (90k items, 45k unread)', '/api/v2/notifications/inbox'],
    ['deep cursor (starting_before #80000)', `/api/v2/notifications/inbox?starting_before=${deep[0]!.id}`],
    ['templates filter', `/api/v2/notifications/inbox?templates=${IDS.testNotification}`],
    ['targets filter', `/api/v2/notifications/inbox?targets=${targets[1]}`],
  ];
  process.stdout.write(`GET /api/v2/notifications/inbox, ${CONNECTIONS} connections × ${SECONDS}s each\n`);
  process.stdout.write(
    `${'case'.padEnd(40)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non2xx'.padStart(7)}\n`,
  );
  for (const [name, path] of targetsList) {
    await autocannon({ url: `${base}${path}`, headers, connections: 2, amount: 50 });
    const r = await autocannon({
      url: `${base}${path}`,
      headers,
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    process.stdout.write(
      `${name.padEnd(40)} ${String(Math.round(r.requests.average)).padStart(7)} ${String(r.latency.p50).padStart(7)} ${String(r.latency.p99).padStart(7)} ${String(r.non2xx).padStart(7)}\n`,
    );
  }
  for (const [name, sql] of [
    [
      'list',
      `EXPLAIN ANALYZE SELECT i.id, u.uuid, i.template_id, i.targets, i.title, i.content, i.icon, i.actions, i.read_at, i.created_at
         FROM inbox_notifications i JOIN users u ON u.id = i.user_id WHERE i.user_id = $1 ORDER BY i.created_at DESC, i.id DESC LIMIT 25`,
    ],
    [
      'unread count',
      'EXPLAIN ANALYZE SELECT count(*) FROM inbox_notifications WHERE user_id = $1 AND read_at IS NULL',
    ],
  ] as const) {
    const plan: { 'QUERY PLAN': string }[] = await t.dataSource.query(sql, [heavy.id]);
    process.stdout.write(
      `\nEXPLAIN ANALYZE (${name}):\n${plan.map((row) => `  ${row['QUERY PLAN']}`).join('\n')}\n`,
    );
  }
}

async function main(): Promise<void> {
  process.env.NOTIFICATIONS_LEASE_COUNT ??= '100';
  const t = await createTestApp({
    env: {
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: embedded ? '1' : '10',
      RATE_LIMIT_API_PER_MINUTE: '10000000',
      RATE_LIMIT_LOGIN_PER_MINUTE: '10000000',
    },
  });
  try {
    const base = await t.listen();
    process.stdout.write(
      `notifications benchmark on ${embedded ? 'embedded PGlite (1 connection)' : 'PostgreSQL (pool 10)'}\n`,
    );
    const users = await seedUsers(t, Math.max(WATCHERS, 101));
    if (PHASES.includes('1')) await phaseOne(t, base, users.slice(0, WATCHERS));
    if (PHASES.includes('2')) await phaseTwo(t, base, users);
  } finally {
    await new Promise((r) => setTimeout(r, 1000)); // let the last load's in-flight requests finish
    await t.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
