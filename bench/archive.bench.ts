import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { benchDatabase, insertToken, startDevplane, stopAll } from './harness';

/**
 * Issue 49 bench: `GET /repos/{o}/{r}/archive/main.zip` of a BENCH_ARCHIVE_MB (default 50) MB
 * repository (incompressible files) streamed to a file, against `git archive --format=zip` of the
 * same commit to a file, in the same run, alternating, BENCH_ROUNDS (default 5) each; the median
 * of each and devplane's throughput as a share of git's (target ≥ 0.8).
 * Run: npm run build && node -r @swc-node/register bench/archive.bench.ts
 */
const megabytes = Number(process.env.BENCH_ARCHIVE_MB ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: cwd,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
        GIT_AUTHOR_NAME: 'Bench',
        GIT_AUTHOR_EMAIL: 'bench@example.com',
        GIT_COMMITTER_NAME: 'Bench',
        GIT_COMMITTER_EMAIL: 'bench@example.com',
        ...env,
      },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} failed (${code}): ${err}`)),
    );
  });
}

/** `git archive` of the same commit straight into a file (the floor). */
function gitArchiveToFile(gitDir: string, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['archive', '--format=zip', '--prefix=big/', 'main'], {
      env: {
        PATH: process.env.PATH,
        GIT_DIR: gitDir,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const done = pipeline(child.stdout, createWriteStream(target));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? done.then(() => resolve(), reject) : reject(new Error(`git archive failed (${code})`)),
    );
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplane-archive-bench-'));
  const dataDir = path.join(work, 'data');
  const db = await benchDatabase({ DATA_DIR: dataDir, LOG_LEVEL: 'error' });
  const children = [];
  try {
    const { child, port } = await startDevplane(db.env);
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const token = await insertToken(db, 'admin');
    const headers = { Authorization: `token ${token}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${base}/api/v1/user/repos`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'big', auto_init: true }),
    });
    if (created.status !== 201) throw new Error(`create: ${created.status}`);

    // BENCH_ARCHIVE_MB of random files in 1 MB pieces, pushed with the real git client.
    const wc = path.join(work, 'wc');
    const url = new URL(`${base}/admin/big.git`);
    url.username = 'admin';
    url.password = token;
    await run('git', ['clone', '--quiet', url.toString(), wc], work);
    await mkdir(path.join(wc, 'data'));
    for (let i = 0; i < megabytes; i++)
      await writeFile(path.join(wc, 'data', `part-${i}.bin`), randomBytes(1 << 20));
    await run('git', ['add', '.'], wc);
    await run('git', ['commit', '--quiet', '-m', 'data'], wc);
    await run('git', ['push', '--quiet', 'origin', 'main'], wc);
    const gitDir = path.join(dataDir, 'repositories', 'admin', 'big.git');

    const served: number[] = [];
    const floor: number[] = [];
    let servedBytes = 0;
    let floorBytes = 0;
    for (let i = 0; i < rounds; i++) {
      const target = path.join(work, `served-${i}.zip`);
      let started = performance.now();
      // node:http straight into a file (a client as cheap as curl; fetch's web streams cost CPU of their own).
      const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get(`${base}/api/v1/repos/admin/big/archive/main.zip`, { headers }, resolve).on('error', reject),
      );
      if (res.statusCode !== 200) throw new Error(`archive: ${res.statusCode}`);
      await pipeline(res, createWriteStream(target));
      served.push(performance.now() - started);
      servedBytes = (await stat(target)).size;
      await rm(target);

      const floorTarget = path.join(work, `floor-${i}.zip`);
      started = performance.now();
      await gitArchiveToFile(gitDir, floorTarget);
      floor.push(performance.now() - started);
      floorBytes = (await stat(floorTarget)).size;
      await rm(floorTarget);
    }
    const servedMs = median(served);
    const floorMs = median(floor);
    const mbps = (bytes: number, ms: number) => bytes / (1 << 20) / (ms / 1000);
    const lines = [
      `archive: ${megabytes} MB repository (random files), zip, median of ${rounds} alternating rounds`,
      `  devplane GET archive/main.zip  ${servedMs.toFixed(0)} ms  ${mbps(servedBytes, servedMs).toFixed(1)} MB/s  (${servedBytes} bytes)`,
      `  git archive to a file          ${floorMs.toFixed(0)} ms  ${mbps(floorBytes, floorMs).toFixed(1)} MB/s  (${floorBytes} bytes)`,
      `  devplane / git archive throughput: ${(floorMs / servedMs).toFixed(2)} (target >= 0.8)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stopAll(children);
    await db.close();
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
