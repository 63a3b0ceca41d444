import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { hashSecret, randomString } from '../src/modules/identity/api-token-codec';
import { startEmbeddedPostgres } from '../src/platform/database/embedded-postgres';

/** Shared plumbing of the benchmarks that load the built server (dist/main.js) from another process. */
export const ROOT = path.join(__dirname, '..');

export function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 60_000,
): Promise<RegExpMatchArray> {
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
    child.once('exit', (code) =>
      reject(new Error(`process exited (${code}) before ${pattern}: ${buffer.slice(-2000)}`)),
    );
  });
}

export interface BenchDatabase {
  url: string;
  schema: string;
  embedded: boolean;
  /** Environment for a devplane process (or a baseline server) on this database. */
  env: NodeJS.ProcessEnv;
  admin: Client;
  close(): Promise<void>;
}

/** DATABASE_URL with a fresh schema, or an embedded PGlite this process hosts. */
export async function benchDatabase(extraEnv: Record<string, string> = {}): Promise<BenchDatabase> {
  const embedded = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(undefined, 30);
  const url = process.env.DATABASE_URL ?? embedded!.url;
  // The embedded database has one shared session: use its public schema rather than a search_path.
  const schema = embedded ? 'public' : `bench_${randomBytes(4).toString('hex')}`;
  // A unique folder of this run's own, removed by close() (issue 36 item 13).
  const dataDir = extraEnv.DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'devplane-bench-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    ...(embedded ? {} : { DATABASE_SCHEMA: schema }),
    DATABASE_EMBEDDED: embedded ? 'true' : 'false',
    ...(embedded ? { DATABASE_POOL_SIZE: '1' } : {}),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ENABLED: 'false',
    ADMIN_PASSWORD: 'Bench-Admin-Password-1',
    DATA_DIR: dataDir,
    ...extraEnv,
  };
  const admin = new Client({ connectionString: url });
  await admin.connect();
  return {
    url,
    schema,
    embedded: embedded !== undefined,
    env,
    admin,
    async close() {
      if (!embedded) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
      await admin.end().catch(() => undefined);
      await embedded?.stop();
      if (!extraEnv.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts dist/main.js (on a free port unless `listenPort` is given); resolves once it listens. Node
 * options default to BENCH_SERVER_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
export async function startDevplane(
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean),
  listenPort = 0,
): Promise<{ child: ChildProcess; port: number }> {
  // BENCH_DIST: another build directory (compare two builds of the tree in one session).
  const main = path.join(ROOT, process.env.BENCH_DIST ?? 'dist', 'main.js');
  if (!existsSync(main)) throw new Error('run `npm run build` first');
  const child = spawn(process.execPath, [...nodeArgs, main], {
    env: { ...env, PORT: String(listenPort) },
    stdio: 'pipe',
  });
  child.stdout?.resume();
  if (process.env.BENCH_SERVER_STDERR) child.stderr?.pipe(process.stderr);
  const port = Number((await waitForLine(child, /listening on \S+:(\d+) /))[1] ?? '0');
  return { child, port };
}

/** A token for `username`, written the way ApiTokensService writes one (scopes `all`, one day). */
export async function insertToken(db: BenchDatabase, username: string): Promise<string> {
  const id = randomString(10);
  const secret = randomString(22);
  const { rowCount } = await db.admin.query(
    `INSERT INTO "${db.schema}".api_tokens (id, hashed_secret, user_id, name, scopes, login_type, lifetime_seconds, expires_at)
     SELECT $1, $2, id, $3, '{all}', 'token', 86400, now() + interval '1 day' FROM "${db.schema}".users WHERE lower_name = $4`,
    [id, hashSecret(secret), `bench-${id}`, username.toLowerCase()],
  );
  if (rowCount !== 1) throw new Error(`no user ${username}`);
  return `${id}-${secret}`;
}

export async function stopAll(children: ChildProcess[]): Promise<void> {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
}

export { freePort } from '../test/helpers/free-port';

async function rssOf(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

/** Runs `work` while sampling a process's RSS every 20 ms; `growth` is the peak minus the RSS before. */
export async function withPeakRss<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; growth: number }> {
  const before = await rssOf(pid);
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssOf(pid).catch(() => 0));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    return { result: await work(), growth: peak - before };
  } finally {
    sampling = false;
    await sampler;
  }
}

/** The value at percentile `p` (0-100) of an ascending array (NaN when empty). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Runs a benchmark's main; a failure prints its stack and exits 1. */
export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
