import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { benchDatabase, freePort, insertToken, ROOT, startDevplane, stopAll, withPeakRss } from './harness';

/**
 * Issue 15 item 7, against the built server (dist/main.js):
 * 1. `npm install` (cold cache) of a project whose BENCH_DEPS (default 200) dependencies are served by
 *    devplane, and the same 200 packages served by Verdaccio (devDependency) in the same run: wall time
 *    ratio (target: devplane no slower) and the packument p99 under 50 concurrent clients on both.
 * 2. The generic registry: upload and download of a BENCH_MIB (default 200) MiB file against a stream
 *    copy on the same disk, with devplane's peak RSS growth (target < 64 MiB).
 * Env: DATABASE_URL (default: embedded PGlite). Run: npm run build && node -r @swc-node/register bench/packages.bench.ts
 */
const depCount = Number(process.env.BENCH_DEPS ?? 200);
const sizeMib = Number(process.env.BENCH_MIB ?? 200);
/**
 * Measured installs per registry, alternating; the best and the median of each are compared (a single
 * install moves by ±15 % on a busy 2-core VM, where npm itself keeps both cores busy).
 */
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const MIB = 1024 * 1024;

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

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplane-pkg-bench-'));
  const db = await benchDatabase({ DATA_DIR: path.join(work, 'data'), LOG_LEVEL: 'error' });
  const children: ReturnType<typeof spawn>[] = [];
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

    // Generic registry: 200 MiB up and down against a disk copy.
    const source = path.join(work, 'big.bin');
    const block = randomBytes(MIB);
    const out = createWriteStream(source);
    for (let i = 0; i < sizeMib; i++)
      if (!out.write(block)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    await new Promise<void>((resolve) => out.end(() => resolve()));
    let started = performance.now();
    await pipeline(createReadStream(source), createWriteStream(path.join(work, 'copy.bin')));
    const copyMs = performance.now() - started;
    await rm(path.join(work, 'copy.bin'));
    started = performance.now();
    const upload = await withPeakRss(
      child.pid!,
      () =>
        new Promise<number>((resolve, reject) => {
          const req = http.request(
            `${base}/api/packages/admin/generic/big/1.0.0/big.bin`,
            {
              method: 'PUT',
              headers: { Authorization: `token ${token}`, 'Content-Length': String(sizeMib * MIB) },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', reject);
          createReadStream(source).pipe(req);
        }),
    );
    const uploadMs = performance.now() - started;
    if (upload.result !== 201) throw new Error(`generic upload: ${upload.result}`);
    started = performance.now();
    const download = await withPeakRss(child.pid!, async () => {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get(`${base}/api/packages/admin/generic/big/1.0.0/big.bin`, resolve).on('error', reject),
      );
      await pipeline(res, createWriteStream(path.join(work, 'down.bin')));
    });
    const downloadMs = performance.now() - started;
    if ((await stat(path.join(work, 'down.bin'))).size !== sizeMib * MIB)
      throw new Error('download size differs');
    const rate = (ms: number) => `${((sizeMib * MIB) / MIB / (ms / 1000)).toFixed(0)} MiB/s`;

    const lines = [
      `packages: ${depCount} npm packages (published to both in ${(publishMs / 1000).toFixed(1)} s) on ${db.embedded ? 'embedded PGlite' : 'PostgreSQL'}`,
      `  npm install, cold cache, Verdaccio (limit)  best of ${rounds}: ${(verdaccioInstall / 1000).toFixed(2)} s, median ${(verdaccioMedian / 1000).toFixed(2)} s`,
      `  npm install, cold cache, devplane           best of ${rounds}: ${(devplaneInstall / 1000).toFixed(2)} s, median ${(devplaneMedian / 1000).toFixed(2)} s  ratio best ${(verdaccioInstall / devplaneInstall).toFixed(2)}, median ${(verdaccioMedian / devplaneMedian).toFixed(2)} (target >= 1.0)`,
      `  one request at a time (mean): abbreviated packument Verdaccio ${oneAtATime.verdaccio.packument.toFixed(2)} ms, devplane ${oneAtATime.devplane.packument.toFixed(2)} ms; tarball Verdaccio ${oneAtATime.verdaccio.tarball.toFixed(2)} ms, devplane ${oneAtATime.devplane.tarball.toFixed(2)} ms`,
      `  packument, 50 clients: Verdaccio ${packumentVerdaccio.requests.average.toFixed(0)} req/s p99 ${packumentVerdaccio.latency.p99} ms; devplane ${packumentDevplane.requests.average.toFixed(0)} req/s p99 ${packumentDevplane.latency.p99} ms`,
      `  generic ${sizeMib} MiB: disk copy ${rate(copyMs)}; upload ${rate(uploadMs)} (ratio ${(copyMs / uploadMs).toFixed(2)}, RSS +${(upload.growth / MIB).toFixed(1)} MiB); download ${rate(downloadMs)} (ratio ${(copyMs / downloadMs).toFixed(2)}, RSS +${(download.growth / MIB).toFixed(1)} MiB)`,
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
