import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startEmbeddedPostgres } from '../src/platform/database/embedded-postgres';

/**
 * The admin CLI's start-up (issue 51.5, target: `list-users` ≤ 1.5 s): `node dist/cli.js list-users`
 * against `node -e 0` in the same run, alternating, median of BENCH_ROUNDS (default 7) rounds; also
 * `list-tokens` (the light path) and `create-user` (the whole application, for comparison). The
 * database is DATABASE_URL, or an embedded database this script hosts and hands to the CLI as
 * DATABASE_URL (a server holding DATA_DIR: the CLI's usual case while `npm start` runs; a CLI that
 * has to open PGlite itself pays its WASM start, about 2 s of CPU, on top). Needs `npm run build`.
 */
const root = path.join(__dirname, '..');
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 7));

function run(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`)),
    );
  });
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  if (!existsSync(path.join(root, 'dist', 'cli.js'))) throw new Error('run `npm run build` first');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'devplane-cli-bench-'));
  const embedded = process.env.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres(path.join(dataDir, 'hosted-pglite'), 20);
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: process.env.DATABASE_URL ?? embedded!.url,
    ...(process.env.DATABASE_SCHEMA ? { DATABASE_SCHEMA: process.env.DATABASE_SCHEMA } : {}),
  };
  const cli = (...args: string[]) => run(['dist/cli.js', ...args], env);
  try {
    await cli('create-admin', '--username', 'bench', '--email', 'bench@example.com'); // migrates
    const times: Record<string, number[]> = {
      'node -e 0': [],
      'list-users': [],
      'list-tokens': [],
      'create-user': [],
    };
    for (let round = 0; round < rounds; round++) {
      times['node -e 0']!.push(await run(['-e', '0'], {}));
      times['list-users']!.push(await cli('list-users'));
      times['list-tokens']!.push(await cli('list-tokens', '--username', 'bench'));
      times['create-user']!.push(
        await cli('create-user', '--username', `u${round}`, '--email', `u${round}@example.com`),
      );
    }
    const floor = median(times['node -e 0']!);
    console.log(
      `admin CLI start-up, median of ${rounds} alternating rounds (${embedded ? 'embedded, hosted' : 'DATABASE_URL'})`,
    );
    for (const [name, values] of Object.entries(times)) {
      const value = median(values);
      console.log(
        `${name.padEnd(12)} ${value.toFixed(0).padStart(6)} ms   (+${(value - floor).toFixed(0)} ms over node -e 0; min ${Math.min(...values).toFixed(0)} ms)`,
      );
    }
    console.log(`target: list-users <= 1500 ms: ${median(times['list-users']!) <= 1500 ? 'met' : 'NOT met'}`);
  } finally {
    await embedded?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
