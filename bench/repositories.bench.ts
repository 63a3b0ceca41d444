import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchDatabase, insertToken, startDevplane, stopAll, withPeakRss } from './harness';

/**
 * Issue 12 item 10, against the built server (dist/main.js):
 * - a repository of BENCH_COMMITS (default 2,000) commits and about BENCH_MB (default 50) MB of
 *   incompressible objects, written with `git fast-import`;
 * - its push to devplane (smart HTTP, hooks included), timed;
 * - BENCH_CLONES (default 10) concurrent `git clone --bare` from devplane and from `git http-backend`
 *   behind a bare node:http CGI wrapper serving the same bare directory (the limit), in the same run:
 *   wall time, throughput ratio (target ≥ 0.9) and devplane's peak RSS growth (target < 100 MB).
 * Branch listing over 10,000 branches is measured by bench/branches.bench.ts.
 * Env: DATABASE_URL (default: embedded PGlite). Run: npm run build && node -r @swc-node/register bench/repositories.bench.ts
 */
const commits = Number(process.env.BENCH_COMMITS ?? 2000);
const megabytes = Number(process.env.BENCH_MB ?? 50);
const clones = Number(process.env.BENCH_CLONES ?? 10);
const MIB = 1024 * 1024;

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  input?: NodeJS.ReadableStream | string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: cwd,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
        ...env,
      },
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} failed (${code}): ${err.slice(-500)}`)),
    );
    if (typeof input === 'string') child.stdin.end(input);
    else if (input) input.pipe(child.stdin);
    else child.stdin.end();
  });
}

/** A fast-import stream: `commits` commits, each adding one file of incompressible bytes. */
function* fastImport(): Generator<Buffer> {
  const perFile = Math.floor((megabytes * MIB) / commits);
  const time = 1_700_000_000;
  for (let i = 1; i <= commits; i++) {
    const data = randomBytes(perFile);
    const message = `commit ${i}\n`;
    yield Buffer.from(`blob\nmark :${i * 2}\ndata ${data.length}\n`);
    yield data;
    yield Buffer.from(
      `\ncommit refs/heads/main\nmark :${i * 2 + 1}\ncommitter Bench <bench@example.com> ${time + i} +0000\ndata ${Buffer.byteLength(message)}\n${message}` +
        (i > 1 ? `from :${i * 2 - 1}\n` : '') +
        `M 100644 :${i * 2} files/${String(i).padStart(5, '0')}.bin\n\n`,
    );
  }
}

/** `git http-backend` as CGI behind node:http (what a minimal git server does). */
function httpBackend(projectRoot: string): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        ...(req.headers['content-encoding']
          ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) }
          : {}),
      },
    });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        if (!res.write(chunk)) {
          child.stdout.pause();
          res.once('drain', () => child.stdout.resume());
        }
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    child.stdout.on('end', () => res.end());
    child.on('error', () => res.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

async function concurrentClones(url: string, work: string, label: string): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clones }, (_, i) =>
      run('git', ['clone', '--bare', '--quiet', url, path.join(work, `${label}-${i}.git`)], work),
    ),
  );
  const ms = performance.now() - started;
  await Promise.all(
    Array.from({ length: clones }, (_, i) =>
      rm(path.join(work, `${label}-${i}.git`), { recursive: true, force: true }),
    ),
  );
  return ms;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplane-repo-bench-'));
  const dataDir = path.join(work, 'data');
  const db = await benchDatabase({ DATA_DIR: dataDir, LOG_LEVEL: 'error' });
  const children = [];
  let backend: http.Server | undefined;
  try {
    const source = path.join(work, 'source.git');
    await run('git', ['init', '--bare', '--quiet', '--initial-branch=main', source], work);
    const { Readable } = await import('node:stream');
    let started = performance.now();
    await run('git', ['fast-import', '--quiet'], source, { GIT_DIR: source }, Readable.from(fastImport()));
    await run('git', ['gc', '--quiet'], source, { GIT_DIR: source });
    const generateMs = performance.now() - started;

    const { child, port } = await startDevplane(db.env);
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const token = await insertToken(db, 'admin');
    const created = await fetch(`${base}/api/v1/user/repos`, {
      method: 'POST',
      headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'big' }),
    });
    if (created.status !== 201) throw new Error(`create: ${created.status}`);
    const pushUrl = new URL(`${base}/admin/big.git`);
    pushUrl.username = 'admin';
    pushUrl.password = token;
    started = performance.now();
    await run('git', ['push', '--quiet', pushUrl.toString(), 'main'], source, { GIT_DIR: source });
    const pushMs = performance.now() - started;

    const served = await httpBackend(path.join(dataDir, 'repositories'));
    backend = served.server;
    // Warm both (page cache, pack bitmaps absent in both).
    await concurrentClones(`${base}/admin/big.git`, work, 'warm-devplane');
    await concurrentClones(`${served.url}/admin/big.git`, work, 'warm-backend');

    const { result: devplaneMs, growth } = await withPeakRss(child.pid!, () =>
      concurrentClones(`${base}/admin/big.git`, work, 'devplane'),
    );
    const backendMs = await concurrentClones(`${served.url}/admin/big.git`, work, 'backend');

    const lines = [
      `repositories: ${commits} commits, ~${megabytes} MB of objects (generated in ${(generateMs / 1000).toFixed(1)} s) on ${db.embedded ? 'embedded PGlite' : 'PostgreSQL'}`,
      `  push to devplane                 ${(pushMs / 1000).toFixed(2)} s`,
      `  ${clones} concurrent clones, git http-backend (limit)  ${(backendMs / 1000).toFixed(2)} s`,
      `  ${clones} concurrent clones, devplane                  ${(devplaneMs / 1000).toFixed(2)} s  ratio ${(backendMs / devplaneMs).toFixed(2)} (target >= 0.9)  peak RSS growth ${(growth / MIB).toFixed(1)} MiB (target < 100)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    backend?.close();
    await stopAll(children);
    await db.close();
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
