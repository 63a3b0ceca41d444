import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { hashSecret, randomString } from '../src/modules/identity/api-token-codec';
import { startEmbeddedPostgres } from '../src/platform/database/embedded-postgres';

/**
 * `npm run bench`: the built server (dist/main.js) against DATABASE_URL (or an embedded database
 * this script hosts), loaded by autocannon on GET /api/v1/user and GET /api/v2/users/me with a token,
 * next to bench/bare-server.ts doing the same token lookup and user select with node:http + pg.
 * Prints requests/s, p50, p99 and the ratio devplane / bare. Loopback only, bounded in time.
 * Env: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 20).
 */
const execFileAsync = promisify(execFile);
const root = path.join(__dirname, '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timeout waiting for ${pattern}`)), timeoutMs);
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = buffer.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`process exited (${code}) before ${pattern}: ${buffer.slice(-2000)}`)));
  });
}

async function load(name: string, url: string, token: string): Promise<Result> {
  const bin = path.join(root, 'node_modules', '.bin', 'autocannon');
  const { stdout } = await execFileAsync(
    bin,
    ['--json', '-c', String(connections), '-d', String(seconds), '-H', `Authorization=token ${token}`, url],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const json = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number };
  return { name, rps: json.requests.average, p50: json.latency.p50, p99: json.latency.p99, non2xx: json.non2xx };
}

async function main(): Promise<void> {
  if (!existsSync(path.join(root, 'dist', 'main.js'))) throw new Error('run `npm run build` first (npm run bench does)');
  const embedded = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(undefined, 30);
  const url = process.env.DATABASE_URL ?? embedded!.url;
  // The embedded database has one shared session: use its public schema rather than a search_path.
  const schema = embedded ? 'public' : `bench_${randomBytes(4).toString('hex')}`;
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
    DATA_DIR: `/tmp/devplane-bench-${schema}`,
  };
  const children: ChildProcess[] = [];
  const admin = new Client({ connectionString: url });
  try {
    const server = spawn(process.execPath, [path.join(root, 'dist', 'main.js')], { env: { ...env, PORT: '0' }, stdio: 'pipe' });
    children.push(server);
    server.stdout.resume();
    const port = Number(
      (await waitForLine(server, /listening on port (\d+)/))[1] ?? '0',
    );
    const bare = spawn(process.execPath, ['-r', '@swc-node/register', path.join(root, 'bench', 'bare-server.ts')], {
      env: { ...env, PORT: '0' },
      stdio: 'pipe',
      cwd: root,
    });
    children.push(bare);
    const barePort = Number((await waitForLine(bare, /bare listening (\d+)/))[1]);

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

    const results: Result[] = [];
    // Warm up each target (2 s under the same load, so the JIT has compiled the hot path), then measure.
    for (const [name, target] of [
      ['bare node:http + pg', `http://127.0.0.1:${barePort}/`],
      ['devplane GET /api/v1/user', `http://127.0.0.1:${port}/api/v1/user`],
      ['devplane GET /api/v2/users/me', `http://127.0.0.1:${port}/api/v2/users/me`],
    ] as const) {
      await execFileAsync(path.join(root, 'node_modules', '.bin', 'autocannon'), [
        '-c',
        String(connections),
        '-d',
        '2',
        '-H',
        `Authorization=token ${token}`,
        target,
      ]);
      results.push(await load(name, target, token));
    }
    const baseline = results[0]!;
    process.stdout.write(
      `\ndevplane benchmark (${embedded ? 'embedded PGlite' : 'PostgreSQL'}, ${connections} connections, ${seconds}s each)\n`,
    );
    process.stdout.write(`${'target'.padEnd(34)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non-2xx'.padStart(8)} ${'ratio'.padStart(6)}\n`);
    for (const r of results) {
      process.stdout.write(
        `${r.name.padEnd(34)} ${r.rps.toFixed(0).padStart(9)} ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)} ${String(r.non2xx).padStart(8)} ${(r.rps / baseline.rps).toFixed(2).padStart(6)}\n`,
      );
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (!embedded) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await admin.end().catch(() => undefined);
    await embedded?.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
