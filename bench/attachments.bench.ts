import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { benchDatabase, insertToken, startDevplane, stopAll, withPeakRss } from './harness';

/**
 * Issue 14 item 7: upload and download of one release attachment (default 200 MiB) through the built
 * server against copying the same file on the same disk (a read stream piped into a write stream, what
 * `cp` does), with the server's peak RSS growth during each transfer (read from /proc every 20 ms).
 * Targets: upload ≥ 0.5 and download ≥ 0.8 of the copy's throughput; RSS growth < 64 MiB.
 * Each transfer runs BENCH_ROUNDS times (default 3); the medians are compared, the RSS growth is the largest seen.
 * Env: DATABASE_URL (default: embedded PGlite), BENCH_MIB (default 200), BENCH_ROUNDS.
 * Run: npm run build && node -r @swc-node/register bench/attachments.bench.ts
 */
const MIB = 1024 * 1024;
const sizeMib = Number(process.env.BENCH_MIB ?? 200);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function request(
  url: string,
  options: http.RequestOptions,
  body?: NodeJS.ReadableStream | string,
): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, options, resolve);
    req.on('error', reject);
    if (body === undefined) req.end();
    else if (typeof body === 'string') req.end(body);
    else body.pipe(req);
  });
}

async function json(res: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  if ((res.statusCode ?? 0) >= 300) throw new Error(`HTTP ${res.statusCode}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

function rate(bytes: number, ms: number): string {
  return `${(bytes / MIB / (ms / 1000)).toFixed(0)} MiB/s`;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplane-attach-bench-'));
  const db = await benchDatabase({
    RELEASE_ATTACHMENT_MAX_SIZE_MB: String(sizeMib + 1),
    DATA_DIR: path.join(work, 'data'),
  });
  const children = [];
  try {
    const source = path.join(work, 'source.bin');
    // Incompressible-looking bytes, written once.
    const block = Buffer.alloc(MIB);
    for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24;
    const out = createWriteStream(source);
    for (let i = 0; i < sizeMib; i++)
      if (!out.write(block)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    await new Promise<void>((resolve) => out.end(() => resolve()));
    const size = (await stat(source)).size;

    const copies: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      await pipeline(createReadStream(source), createWriteStream(path.join(work, 'copy.bin')));
      copies.push(performance.now() - started);
      await rm(path.join(work, 'copy.bin'));
    }
    const copyMs = median(copies);

    const { child, port } = await startDevplane(db.env);
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const auth = { Authorization: `token ${await insertToken(db, 'admin')}` };
    await json(
      await request(
        `${base}/api/v1/user/repos`,
        { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' } },
        JSON.stringify({ name: 'bench', auto_init: true }),
      ),
    );
    const release = await json(
      await request(
        `${base}/api/v1/repos/admin/bench/releases`,
        { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' } },
        JSON.stringify({ tag_name: 'v1' }),
      ),
    );

    const uploads: number[] = [];
    const downloads: number[] = [];
    const nodeDownloads: number[] = [];
    const curl = spawnSync('curl', ['--version']).status === 0;
    let uploadGrowth = 0;
    let downloadGrowth = 0;
    for (let round = 0; round < rounds; round++) {
      let started = performance.now();
      const upload = await withPeakRss(child.pid!, async () =>
        json(
          await request(
            `${base}/api/v1/repos/admin/bench/releases/${String(release.id)}/assets?name=big-${round}.bin`,
            {
              method: 'POST',
              headers: {
                ...auth,
                'Content-Type': 'application/octet-stream',
                'Content-Length': String(size),
              },
            },
            createReadStream(source),
          ),
        ),
      );
      uploads.push(performance.now() - started);
      uploadGrowth = Math.max(uploadGrowth, upload.growth);
      if (upload.result.size !== size)
        throw new Error(`uploaded ${String(upload.result.size)} bytes, expected ${size}`);

      started = performance.now();
      const download = await withPeakRss(child.pid!, async () => {
        const res = await request(`${base}/attachments/${String(upload.result.uuid)}`, { headers: auth });
        if (res.statusCode !== 200) throw new Error(`download: HTTP ${res.statusCode}`);
        await pipeline(res, createWriteStream(path.join(work, 'downloaded.bin')));
      });
      nodeDownloads.push(performance.now() - started);
      downloadGrowth = Math.max(downloadGrowth, download.growth);
      if ((await stat(path.join(work, 'downloaded.bin'))).size !== size)
        throw new Error('download size differs');
      await rm(path.join(work, 'downloaded.bin'));

      // The same download with curl: a client that is not itself the bottleneck on two shared cores.
      if (curl) {
        started = performance.now();
        const fetched = await withPeakRss(child.pid!, () =>
          curlDownload(
            `${base}/attachments/${String(upload.result.uuid)}`,
            auth.Authorization,
            path.join(work, 'curl.bin'),
          ),
        );
        downloads.push(performance.now() - started);
        downloadGrowth = Math.max(downloadGrowth, fetched.growth);
        if ((await stat(path.join(work, 'curl.bin'))).size !== size)
          throw new Error('curl download size differs');
        await rm(path.join(work, 'curl.bin'));
      }
    }
    const uploadMs = median(uploads);
    const nodeDownloadMs = median(nodeDownloads);
    const downloadMs = curl ? median(downloads) : nodeDownloadMs;

    const uploadRatio = copyMs / uploadMs;
    const downloadRatio = copyMs / downloadMs;
    const lines = [
      `attachments: ${sizeMib} MiB release attachment, median of ${rounds} rounds, on ${db.embedded ? 'embedded PGlite' : 'PostgreSQL'}, local blob store`,
      `  disk copy (limit)  ${copyMs.toFixed(0)} ms  ${rate(size, copyMs)}`,
      `  upload             ${uploadMs.toFixed(0)} ms  ${rate(size, uploadMs)}  ratio ${uploadRatio.toFixed(2)} (target >= 0.5)  peak RSS growth ${(uploadGrowth / MIB).toFixed(1)} MiB (target < 64)`,
      `  download (${curl ? 'curl' : 'node:http'})${curl ? '    ' : ''} ${downloadMs.toFixed(0)} ms  ${rate(size, downloadMs)}  ratio ${downloadRatio.toFixed(2)} (target >= 0.8)  peak RSS growth ${(downloadGrowth / MIB).toFixed(1)} MiB (target < 64)`,
      ...(curl
        ? [
            `  download (node:http client writing the file) ${nodeDownloadMs.toFixed(0)} ms  ${rate(size, nodeDownloadMs)}  ratio ${(copyMs / nodeDownloadMs).toFixed(2)} (the client's own cost included)`,
          ]
        : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (process.env.BENCH_RESULTS)
      await writeFile(process.env.BENCH_RESULTS, `${lines.join('\n')}\n`, { flag: 'a' });
  } finally {
    await stopAll(children);
    await db.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** `curl -o file` with the token: resolves when the whole body is on disk. */
function curlDownload(url: string, authorization: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['-sSf', '-o', file, '-H', `Authorization: ${authorization}`, url], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`curl: ${code} ${err}`))));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
