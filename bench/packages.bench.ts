import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { benchDatabase, freePort, insertToken, ROOT, startDevplane, stopAll } from './harness';
import {
  curlUpload,
  hasCurl,
  sourceFile,
  storageDriver,
  storageEnv,
  transferLines,
  transferRounds,
} from './transfer';

/**
 * Issue 15 item 7, against the built server (dist/main.js):
 * 1. `npm install` (cold cache) of a project whose BENCH_DEPS (default 200) dependencies are served by
 *    devplane, and the same 200 packages served by Verdaccio (devDependency) in the same run: wall time
 *    ratio (target: devplane no slower) and the packument p99 under 50 concurrent clients on both.
 * 2. The generic registry: upload and download (curl) of a BENCH_MIB (default 200) MiB file against a
 *    stream copy on the same disk, with devplane's peak RSS growth (issue 34: upload >= 0.7, download
 *    >= 0.9 of the copy, RSS < 64 MiB).
 * Env: DATABASE_URL (default: embedded PGlite), BENCH_PARTS=generic (part 2 only), BENCH_STORAGE (local
 * or s3: s3rver), BENCH_TRANSFER_ROUNDS, BENCH_DIST (build directory, default dist). Run: npm run build && node -r @swc-node/register bench/packages.bench.ts
 */
const depCount = Number(process.env.BENCH_DEPS ?? 200);
const sizeMib = Number(process.env.BENCH_MIB ?? 200);
/**
 * Measured installs per registry, alternating; the best and the median of each are compared (a single
 * install moves by ±15 % on a busy 2-core VM, where npm itself keeps both cores busy).
 */
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);

interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
}
const autocannon = createRequire(__filename)('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
}) => Promise<LoadResult>;

/** A minimal ustar archive with `package/package.json` and `package/index.js`, gzipped (what npm pack makes). */
function tarball(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const body = Buffer.from(content);
    const header = Buffer.alloc(512);
    header.write(`package/${name}`, 0, 100);
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write(`${(1_700_000_000).toString(8).padStart(11, '0')}\0`, 136);
    header.write('        ', 148);
    header.write('0', 156);
    header.write('ustar\0', 257);
    header.write('00', 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

function publishDocument(
  name: string,
  version: string,
  dependencies: Record<string, string>,
  registry: string,
): Record<string, unknown> {
  const manifest = { name, version, main: 'index.js', description: `bench package ${name}`, dependencies };
  const tgz = tarball({
    'package.json': JSON.stringify(manifest, null, 2),
    'index.js': `module.exports = ${JSON.stringify(name)};\n`,
  });
  const file = `${name}-${version}.tgz`;
  return {
    _id: name,
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
          shasum: createHash('sha1').update(tgz).digest('hex'),
          tarball: `${registry}${name}/-/${file}`,
        },
      },
    },
    _attachments: {
      [file]: { content_type: 'application/octet-stream', data: tgz.toString('base64'), length: tgz.length },
    },
  };
}

async function put(url: string, token: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`PUT ${url}: ${res.status} ${await res.text()}`);
}

function npmInstall(dir: string, registry: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'node_modules', 'npm', 'bin', 'npm-cli.js'),
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-online',
        `--registry=${registry}`,
      ],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          npm_config_cache: path.join(dir, '.cache'),
          npm_config_update_notifier: 'false',
          npm_config_userconfig: path.join(dir, '.npmrc'),
        },
      },
    );
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`npm install failed: ${err.slice(-1000)}`)),
    );
  });
}

async function project(work: string, name: string): Promise<string> {
  const dir = path.join(work, name);
  await mkdir(dir, { recursive: true });
  const dependencies = Object.fromEntries(
    Array.from({ length: depCount }, (_, i) => [`bench-dep-${i}`, '^1.0.0']),
  );
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: `project-${name}`, version: '0.0.0', private: true, dependencies }),
  );
  await writeFile(path.join(dir, '.npmrc'), '');
  return dir;
}

async function startVerdaccio(
  work: string,
): Promise<{ child: ReturnType<typeof spawn>; url: string; token: string }> {
  const storage = path.join(work, 'verdaccio-storage');
  const config = path.join(work, 'verdaccio.yaml');
  await writeFile(
    config,
    [
      `storage: ${storage}`,
      'auth:',
      '  htpasswd:',
      `    file: ${path.join(work, 'htpasswd')}`,
      '    max_users: 1000',
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      'logs: { type: stdout, format: pretty, level: warn }',
      'max_body_size: 100mb',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'verdaccio', 'bin', 'verdaccio'),
      '--config',
      config,
      '--listen',
      `127.0.0.1:${port}`,
    ],
    { stdio: 'pipe' },
  );
  child.stdout?.resume();
  child.stderr?.resume();
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${url}-/ping`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) break;
    if (i > 300) throw new Error('verdaccio did not start');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const res = await fetch(`${url}-/user/org.couchdb.user:bench`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'bench', password: 'bench-password-1' }),
  });
  const body = (await res.json()) as { token?: string };
  if (!body.token) throw new Error(`verdaccio user: ${res.status} ${JSON.stringify(body)}`);
  return { child, url, token: body.token };
}

/**
 * Part 2: a generic package file of BENCH_MIB MiB uploaded (`PUT`, raw body) and downloaded with curl,
 * BENCH_TRANSFER_ROUNDS (default 5) alternating rounds against a disk copy (bench/transfer.ts).
 */
async function genericTransfer(base: string, token: string, pid: number, work: string): Promise<string[]> {
  const source = path.join(work, 'big.bin');
  const size = await sourceFile(source, sizeMib);
  const transferRoundCount = Number(process.env.BENCH_TRANSFER_ROUNDS ?? 5);
  const authorization = `token ${token}`;
  const figures = await transferRounds({
    pid,
    work,
    source,
    size,
    rounds: transferRoundCount,
    authorization,
    upload: async (round) => {
      const url = `${base}/api/packages/admin/generic/big/1.0.${round}/big.bin`;
      const { status, body } = await curlUpload(url, 'PUT', authorization, source);
      if (status !== 201) throw new Error(`generic upload: HTTP ${status} ${body}`);
      return url;
    },
  });
  return transferLines(
    `  generic ${sizeMib} MiB, median of ${transferRoundCount} rounds, ${storageDriver()} blob store:`,
    size,
    figures,
  ).map((line) => `  ${line}`);
}

/** BENCH_PARTS=generic: only the generic transfer (no npm, no Verdaccio). */
async function genericOnly(): Promise<void> {
  if (!hasCurl()) throw new Error('the transfer benchmarks measure with curl: install it');
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplane-pkg-bench-'));
  const children: ChildProcess[] = [];
  const db = await benchDatabase({
    DATA_DIR: path.join(work, 'data'),
    LOG_LEVEL: 'error',
    ...(await storageEnv(storageDriver(), work, children)),
  });
  try {
    const { child, port } = await startDevplane(db.env);
    children.push(child);
    const lines = await genericTransfer(
      `http://127.0.0.1:${port}`,
      await insertToken(db, 'admin'),
      child.pid!,
      work,
    );
    process.stdout.write(
      `packages (generic only) on ${db.embedded ? 'embedded PGlite' : 'PostgreSQL'}\n${lines.join('\n')}\n`,
    );
  } finally {
    await stopAll(children);
    await db.close();
    await rm(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_PARTS === 'generic') return genericOnly();
  if (!hasCurl()) throw new Error('the transfer benchmarks measure with curl: install it');
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplane-pkg-bench-'));
  const children: ChildProcess[] = [];
  const db = await benchDatabase({
    DATA_DIR: path.join(work, 'data'),
    LOG_LEVEL: 'error',
    ...(await storageEnv(storageDriver(), work, children)),
  });
  try {
    // Tarball URLs are absolute under PUBLIC_URL: it must name the port devplane listens on.
    const port = await freePort();
    const { child } = await startDevplane(
      { ...db.env, PUBLIC_URL: `http://127.0.0.1:${port}/` },
      undefined,
      port,
    );
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const token = await insertToken(db, 'admin');
    const verdaccio = await startVerdaccio(work);
    children.push(verdaccio.child);
    const devplaneRegistry = `${base}/api/packages/admin/npm/`;

    // 200 packages, each depending on the previous one's major (a chain keeps the tree resolution real).
    const published = performance.now();
    for (let i = 0; i < depCount; i++) {
      const name = `bench-dep-${i}`;
      const dependencies = i > 0 && i % 10 !== 0 ? { [`bench-dep-${i - 1}`]: '^1.0.0' } : {};
      await put(
        `${devplaneRegistry}${name}`,
        token,
        publishDocument(name, '1.0.0', dependencies, devplaneRegistry),
      );
      await put(
        `${verdaccio.url}${name}`,
        verdaccio.token,
        publishDocument(name, '1.0.0', dependencies, verdaccio.url),
      );
    }
    const publishMs = performance.now() - published;

    // One unmeasured install from each registry first: "cold cache" is npm's cache (every measured install
    // starts with an empty one); the servers are measured in their steady state, not in the first
    // requests after the publish emptied devplane's document caches.
    const installs: { devplane: number[]; verdaccio: number[] } = { devplane: [], verdaccio: [] };
    for (const [name, registry] of [
      ['verdaccio', verdaccio.url],
      ['devplane', devplaneRegistry],
    ] as const) {
      const dir = await project(work, `${name}-warm-up`);
      await npmInstall(dir, registry);
      await rm(dir, { recursive: true, force: true });
    }
    for (let round = 0; round < rounds; round++) {
      for (const [name, registry] of [
        ['verdaccio', verdaccio.url],
        ['devplane', devplaneRegistry],
      ] as const) {
        const dir = await project(work, `${name}-${round}`);
        installs[name].push(await npmInstall(dir, registry));
        await rm(dir, { recursive: true, force: true });
      }
    }
    const devplaneInstall = Math.min(...installs.devplane);
    const verdaccioInstall = Math.min(...installs.verdaccio);
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const middle = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
    };
    const devplaneMedian = median(installs.devplane);
    const verdaccioMedian = median(installs.verdaccio);
    const packumentDevplane = await autocannon({
      url: `${devplaneRegistry}bench-dep-100`,
      connections: 50,
      duration: 5,
    });
    const packumentVerdaccio = await autocannon({
      url: `${verdaccio.url}bench-dep-100`,
      connections: 50,
      duration: 5,
    });

    // One client, one request at a time, as npm resolves a tree: abbreviated packuments and tarballs.
    const sequential = async (
      registry: string,
      tarballPath: (name: string) => string,
    ): Promise<{ packument: number; tarball: number }> => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const get = (url: string, accept: string) =>
        new Promise<void>((resolve, reject) =>
          http
            .get(url, { agent, headers: { Accept: accept, 'Accept-Encoding': 'gzip, deflate' } }, (res) => {
              res.resume();
              res.on('end', () =>
                res.statusCode === 200 ? resolve() : reject(new Error(`${url}: ${res.statusCode}`)),
              );
            })
            .on('error', reject),
        );
      const timeOf = async (urls: string[], accept: string) => {
        for (const url of urls.slice(0, 20)) await get(url, accept); // warm-up
        const started = performance.now();
        for (const url of urls) await get(url, accept);
        return (performance.now() - started) / urls.length;
      };
      const names = Array.from({ length: depCount }, (_, i) => `bench-dep-${i}`);
      const result = {
        packument: await timeOf(
          names.map((name) => `${registry}${name}`),
          'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*',
        ),
        tarball: await timeOf(
          names.map((name) => `${registry}${tarballPath(name)}`),
          '*/*',
        ),
      };
      agent.destroy();
      return result;
    };
    const oneAtATime = {
      devplane: await sequential(devplaneRegistry, (name) => `${name}/-/1.0.0/${name}-1.0.0.tgz`),
      verdaccio: await sequential(verdaccio.url, (name) => `${name}/-/${name}-1.0.0.tgz`),
    };

    const generic = await genericTransfer(base, token, child.pid!, work);

    const lines = [
      `packages: ${depCount} npm packages (published to both in ${(publishMs / 1000).toFixed(1)} s) on ${db.embedded ? 'embedded PGlite' : 'PostgreSQL'}`,
      `  npm install, cold cache, Verdaccio (limit)  best of ${rounds}: ${(verdaccioInstall / 1000).toFixed(2)} s, median ${(verdaccioMedian / 1000).toFixed(2)} s`,
      `  npm install, cold cache, devplane           best of ${rounds}: ${(devplaneInstall / 1000).toFixed(2)} s, median ${(devplaneMedian / 1000).toFixed(2)} s  ratio best ${(verdaccioInstall / devplaneInstall).toFixed(2)}, median ${(verdaccioMedian / devplaneMedian).toFixed(2)} (target >= 1.0)`,
      `  one request at a time (mean): abbreviated packument Verdaccio ${oneAtATime.verdaccio.packument.toFixed(2)} ms, devplane ${oneAtATime.devplane.packument.toFixed(2)} ms; tarball Verdaccio ${oneAtATime.verdaccio.tarball.toFixed(2)} ms, devplane ${oneAtATime.devplane.tarball.toFixed(2)} ms`,
      `  packument, 50 clients: Verdaccio ${packumentVerdaccio.requests.average.toFixed(0)} req/s p99 ${packumentVerdaccio.latency.p99} ms; devplane ${packumentDevplane.requests.average.toFixed(0)} req/s p99 ${packumentDevplane.latency.p99} ms`,
      ...generic,
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
