import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from 'pg';
import { hashSecret, randomString } from '../src/modules/identity/api-token-codec';
import { startEmbeddedPostgres } from '../src/platform/database/embedded-postgres';
import { waitForLine } from './harness';

/**
 * `npm run bench`: the built server (dist/main.js) against DATABASE_URL (or an embedded database
 * this script hosts), loaded by autocannon on GET /api/v1/user and GET /api/v2/users/me with a token,
 * next to bench/bare-server.ts doing the same token lookup and user select with node:http + pg, and
 * bench/floor-server.ts doing it on the framework floor (Express, helmet, cookie-parser, pino-http).
 * Prints requests/s, p50, p99 and p99.9 and the ratios devplane / floor at each connection count
 * (BENCH_CONNECTIONS, default 20 and 50), median of alternating rounds. Loopback only, bounded in time.
 * devplane targets: GET /api/v1/user, GET /api/v2/users/me and an OCS rule list.
 * A further target rotates the tokens of BENCH_USERS (default 1,000) distinct users on
 * GET /api/v1/user: the identity cache must keep it near the one-token figure (activity writes
 * such as last_seen_at do not flush the cache). BENCH_COMPARE_DIST=<path to another build's
 * main.js> also starts that build on the same data and measures its one-token and rotation
 * targets in the same run (before/after comparisons).
 * Env: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default `20,50`), BENCH_USERS (default 1000),
 * BENCH_ROUNDS (default 3: rounds over all targets, interleaved, median reported), BENCH_COMPARE_DIST,
 * BENCH_CPU_PROF_DIR (CPU profiles of devplane and the floor).
 */
const root = path.join(__dirname, '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connectionCounts = (process.env.BENCH_CONNECTIONS ?? '20,50').split(',').map(Number);
const userCount = Number(process.env.BENCH_USERS ?? 1000);
const compareDist = process.env.BENCH_COMPARE_DIST;
/** Rounds over all targets, interleaved; each target reports its median round (a busy machine moves figures a lot). */
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** BENCH_CPU_PROF_DIR: devplane and the floor write V8 CPU profiles there (to compare where each spends its time). */
const profileArgs = process.env.BENCH_CPU_PROF_DIR
  ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF_DIR)}`]
  : [];

interface LoadOptions {
  url: string;
  connections: number;
  duration: number;
  requests?: { setupRequest: (request: { headers?: Record<string, string> }) => object }[];
}
interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number; p99_9: number };
  non2xx: number;
}
// autocannon ships no type declarations.
const autocannon = createRequire(__filename)('autocannon') as (options: LoadOptions) => Promise<LoadResult>;

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  non2xx: number;
}

interface Target {
  name: string;
  url: string;
  tokens: string[];
  headers?: Record<string, string>;
}

async function load(target: Target, connections: number, duration = seconds): Promise<Result> {
  let next = 0;
  const { name, url, tokens, headers } = target;
  const json = await autocannon({
    url,
    connections,
    duration,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: {
            ...request.headers,
            ...headers,
            authorization: `token ${tokens[next++ % tokens.length]!}`,
          },
        }),
      },
    ],
  });
  return {
    name,
    rps: json.requests.average,
    p50: json.latency.p50,
    p99: json.latency.p99,
    p999: json.latency.p99_9,
    non2xx: json.non2xx,
  };
}

async function startServer(
  mainJs: string,
  env: NodeJS.ProcessEnv,
  children: ChildProcess[],
): Promise<number> {
  const server = spawn(process.execPath, [...profileArgs, mainJs], {
    env: { ...env, PORT: '0' },
    stdio: 'pipe',
  });
  children.push(server);
  server.stdout.resume();
  return Number((await waitForLine(server, /listening on \S+:(\d+) /))[1] ?? '0');
}

async function main(): Promise<void> {
  if (!existsSync(path.join(root, 'dist', 'main.js')))
    throw new Error('run `npm run build` first (npm run bench does)');
  const embedded = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(undefined, 30);
  const url = process.env.DATABASE_URL ?? embedded!.url;
  // The embedded database has one shared session: use its public schema rather than a search_path.
  const schema = embedded ? 'public' : `bench_${randomBytes(4).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'devplane-bench-'));
  const env = {
    ...process.env,
    DATABASE_URL: url,
    ...(embedded ? {} : { DATABASE_SCHEMA: schema }),
    DATABASE_EMBEDDED: embedded ? 'true' : 'false',
    // pglite-socket cannot serve concurrent connections safely: one each.
    ...(embedded ? { DATABASE_POOL_SIZE: '1' } : {}),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ENABLED: 'false',
    ADMIN_PASSWORD: 'Bench-Admin-Password-1',
    DATA_DIR: dataDir,
  };
  const children: ChildProcess[] = [];
  const admin = new Client({ connectionString: url });
  try {
    const port = await startServer(path.join(root, 'dist', 'main.js'), env, children);
    // The other build starts after this one has migrated the schema.
    const comparePort = compareDist ? await startServer(path.resolve(compareDist), env, children) : undefined;
    const bare = spawn(
      process.execPath,
      ['-r', '@swc-node/register', path.join(root, 'bench', 'bare-server.ts')],
      {
        env: { ...env, PORT: '0' },
        stdio: 'pipe',
        cwd: root,
      },
    );
    children.push(bare);
    const barePort = Number((await waitForLine(bare, /bare listening (\d+)/))[1]);
    // The framework floor the design card fixes: Express + helmet + cookie-parser + pino-http, same lookup.
    const floor = spawn(
      process.execPath,
      [...profileArgs, '-r', '@swc-node/register', path.join(root, 'bench', 'floor-server.ts')],
      {
        env: { ...env, PORT: '0' },
        stdio: 'pipe',
        cwd: root,
      },
    );
    children.push(floor);
    const floorPort = Number((await waitForLine(floor, /floor listening (\d+)/))[1]);

    // A token for the bootstrap admin, written the way ApiTokensService writes it.
    await admin.connect();
    const id = randomString(10);
    const secret = randomString(22);
    await admin.query(
      `INSERT INTO "${schema}".api_tokens (id, hashed_secret, user_id, name, scopes, login_type, lifetime_seconds, expires_at)
       SELECT $1, $2, id, 'bench', '{all}', 'token', 86400, now() + interval '1 day' FROM "${schema}".users WHERE lower_name = 'admin'`,
      [id, hashSecret(secret)],
    );
    const token = `${id}-${secret}`;

    // BENCH_USERS users with one token each, for the rotation target.
    const prefix = `bench${randomBytes(3).toString('hex')}`;
    const many = Array.from({ length: userCount }, (_, i) => ({
      i,
      id: randomString(10),
      secret: randomString(22),
    }));
    await admin.query(
      `INSERT INTO "${schema}".users (uuid, name, lower_name, email, lower_email)
       SELECT gen_random_uuid(), $1 || g, $1 || g, $1 || g || '@example.com', $1 || g || '@example.com' FROM generate_series(0, $2 - 1) g`,
      [prefix, userCount],
    );
    await admin.query(
      `INSERT INTO "${schema}".api_tokens (id, hashed_secret, user_id, name, scopes, login_type, lifetime_seconds, expires_at)
       SELECT t.id, t.hashed, u.id, 'bench', '{all}', 'token', 86400, now() + interval '1 day'
         FROM unnest($1::text[], $2::bytea[], $3::text[]) AS t(id, hashed, login) JOIN "${schema}".users u ON u.lower_name = t.login`,
      [many.map((m) => m.id), many.map((m) => hashSecret(m.secret)), many.map((m) => `${prefix}${m.i}`)],
    );
    const rotation = many.map((m) => `${m.id}-${m.secret}`);

    const ocs = { 'OCS-APIRequest': 'true' };
    const targets: Target[] = [
      { name: 'bare node:http + pg', url: `http://127.0.0.1:${barePort}/`, tokens: [token] },
      { name: 'floor Express+helmet+pino', url: `http://127.0.0.1:${floorPort}/`, tokens: [token] },
      { name: 'devplane GET /api/v1/user', url: `http://127.0.0.1:${port}/api/v1/user`, tokens: [token] },
      {
        name: `devplane /api/v1/user, ${userCount} users`,
        url: `http://127.0.0.1:${port}/api/v1/user`,
        tokens: rotation,
      },
      {
        name: 'devplane GET /api/v2/users/me',
        url: `http://127.0.0.1:${port}/api/v2/users/me`,
        tokens: [token],
      },
      {
        name: 'devplane OCS rule list',
        url: `http://127.0.0.1:${port}${OCS_RULES}`,
        tokens: [token],
        headers: ocs,
      },
    ];
    if (comparePort) {
      targets.push(
        {
          name: 'compare GET /api/v1/user',
          url: `http://127.0.0.1:${comparePort}/api/v1/user`,
          tokens: [token],
        },
        {
          name: `compare /api/v1/user, ${userCount} users`,
          url: `http://127.0.0.1:${comparePort}/api/v1/user`,
          tokens: rotation,
        },
        {
          name: 'compare GET /api/v2/users/me',
          url: `http://127.0.0.1:${comparePort}/api/v2/users/me`,
          tokens: [token],
        },
        {
          name: 'compare OCS rule list',
          url: `http://127.0.0.1:${comparePort}${OCS_RULES}`,
          tokens: [token],
          headers: ocs,
        },
      );
    }
    // Some rules for the OCS list to return.
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`http://127.0.0.1:${port}${OCS_RULES}?format=json`, {
        method: 'POST',
        headers: { ...ocs, authorization: `token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          class: 'OCA\\FlowNotifications\\Flow\\Operation',
          name: `bench ${i}`,
          checks: [
            { class: 'OCA\\WorkflowEngine\\Check\\FileName', operator: 'matches', value: `/^bench-${i}/` },
          ],
          operation: '{"inscription":"bench"}',
          entity: 'OCA\\WorkflowEngine\\Entity\\File',
          events: ['OCP\\Files\\Events\\Node\\NodeCreatedEvent'],
        }),
      });
      if (!res.ok) process.stderr.write(`OCS rule ${i}: ${res.status} ${await res.text()}\n`);
    }
    for (const connections of connectionCounts) report(connections, await measure(targets, connections));
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (!embedded) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await admin.end().catch(() => undefined);
    await embedded?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const OCS_RULES = '/ocs/v2.php/apps/workflowengine/api/v1/workflows/user';

/**
 * Warms each target up (2 s under the same load, so the JIT has compiled the hot path and every
 * rotated token has been seen once), then measures round after round, alternating the targets, and
 * keeps each target's median round by throughput (a busy machine moves figures a lot).
 */
async function measure(targets: Target[], connections: number): Promise<Result[]> {
  for (const target of targets) await load(target, connections, 2);
  const measured: Result[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, target] of targets.entries()) measured[index]!.push(await load(target, connections));
  }
  return measured.map((runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!);
}

function report(connections: number, results: Result[]): void {
  const byName = (name: string): Result | undefined => results.find((r) => r.name === name);
  const floor = byName('floor Express+helmet+pino')!;
  const write = (line: string): boolean => process.stdout.write(`${line}\n`);
  write(
    `\ndevplane benchmark (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}, ${connections} connections, ${seconds}s each, median of ${rounds} round(s))`,
  );
  write(
    `${'target'.padEnd(40)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'p99.9'.padStart(7)} ${'non-2xx'.padStart(8)} ${'/floor'.padStart(7)} ${'p99/fl'.padStart(7)}`,
  );
  for (const r of results) {
    write(
      `${r.name.padEnd(40)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.p999).padStart(7)} ${String(r.non2xx).padStart(8)} ${(r.rps / floor.rps).toFixed(2).padStart(7)} ${(r.p99 / floor.p99).toFixed(2).padStart(7)}`,
    );
  }
  const user = byName('devplane GET /api/v1/user');
  const rotated = results.find((r) => r.name.startsWith('devplane /api/v1/user,'));
  for (const name of [
    'devplane GET /api/v1/user',
    'devplane GET /api/v2/users/me',
    'devplane OCS rule list',
  ]) {
    const r = byName(name);
    if (r)
      write(
        `${name} / floor at ${connections}: throughput ${(r.rps / floor.rps).toFixed(2)} (target ≥ 0.9), p99 ${(r.p99 / floor.p99).toFixed(2)}× (target ≤ 1.5)`,
      );
  }
  if (user && rotated)
    write(
      `${userCount} users in rotation / one token: ${(rotated.rps / user.rps).toFixed(2)} (target ≥ 0.9)`,
    );
  const compare = (name: string): string => {
    const mine = byName(`devplane ${name}`);
    const other = byName(`compare ${name}`);
    return mine && other ? (mine.rps / other.rps).toFixed(2) : '-';
  };
  if (byName('compare GET /api/v1/user'))
    write(
      `this build / compare build: /api/v1/user ${compare('GET /api/v1/user')}, /api/v2/users/me ${compare('GET /api/v2/users/me')}, OCS rule list ${compare('OCS rule list')}`,
    );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
