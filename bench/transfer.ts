import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { freePort, ROOT, withPeakRss } from './harness';

/**
 * Large transfers through the built server against a copy of the same file on the same disk, shared by
 * bench/attachments.bench.ts and bench/packages.bench.ts (issue 34 item 4). Each round copies the file,
 * uploads it and downloads it, so the three alternate and share the machine's state; the medians are
 * compared. Uploads and downloads are made with curl (a client that is not itself the bottleneck on
 * two shared cores), the server's peak RSS growth is sampled during each.
 * BENCH_STORAGE=s3 runs the server on the S3 driver against s3rver (own process, own directory).
 */
export const MIB = 1024 * 1024;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function hasCurl(): boolean {
  return spawnSync('curl', ['--version']).status === 0;
}

/** Writes `mib` MiB of random bytes (incompressible: no store or transport can shortcut them). */
export async function sourceFile(file: string, mib: number): Promise<number> {
  const block = randomBytes(MIB);
  const out = createWriteStream(file);
  for (let i = 0; i < mib; i++)
    if (!out.write(block)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return (await stat(file)).size;
}

/** The limit: a stream copy of the file on the same disk (what `cp` does), page cache warm. */
export async function diskCopy(source: string, target: string): Promise<number> {
  const started = performance.now();
  await pipeline(createReadStream(source), createWriteStream(target));
  const ms = performance.now() - started;
  await rm(target);
  return ms;
}

function curl(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['-sS', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`curl: ${code} ${err}`))));
  });
}

/** Uploads `file` as the raw body (curl -T streams it) and answers the status line's code and the body. */
export async function curlUpload(
  url: string,
  method: 'PUT' | 'POST',
  authorization: string | null,
  file: string,
): Promise<{ status: number; body: string }> {
  const out = await curl([
    '-X',
    method,
    '-T',
    file,
    ...(authorization ? ['-H', `Authorization: ${authorization}`] : []),
    '-H',
    'Content-Type: application/octet-stream',
    // curl sends `Expect: 100-continue` for large bodies and waits up to a second for the answer.
    '-H',
    'Expect:',
    '-w',
    '\n%{http_code}',
    url,
  ]);
  const cut = out.lastIndexOf('\n');
  return { status: Number(out.slice(cut + 1)), body: out.slice(0, cut) };
}

/** `curl -o file`: resolves when the whole body is on disk. */
export async function curlDownload(url: string, authorization: string | null, file: string): Promise<void> {
  await curl(['-f', '-o', file, ...(authorization ? ['-H', `Authorization: ${authorization}`] : []), url]);
}

/** The same download with node:http writing the file (the bench's former client; its own cost included). */
export async function nodeDownload(url: string, authorization: string, file: string): Promise<void> {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get(url, { headers: { Authorization: authorization } }, resolve).on('error', reject),
  );
  if (res.statusCode !== 200) throw new Error(`download: HTTP ${res.statusCode}`);
  await pipeline(res, createWriteStream(file));
}

export type StorageDriver = 'local' | 's3';

export function storageDriver(): StorageDriver {
  const driver = process.env.BENCH_STORAGE ?? 'local';
  if (driver !== 'local' && driver !== 's3') throw new Error('BENCH_STORAGE is local or s3');
  return driver;
}

/**
 * The server environment for the driver: for s3, an s3rver process on its own directory under `work`
 * (what the tests use as the S3-compatible server), stopped with the other children.
 */
export async function storageEnv(
  driver: StorageDriver,
  work: string,
  children: ChildProcess[],
): Promise<Record<string, string>> {
  if (driver === 'local') return { STORAGE_TYPE: 'local' };
  const dir = path.join(work, 's3rver');
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const child = spawn(
    path.join(ROOT, 'node_modules', '.bin', 's3rver'),
    ['-d', dir, '-a', '127.0.0.1', '-p', String(port), '-s', '--configure-bucket', 'blobs'],
    { stdio: 'ignore' },
  );
  children.push(child);
  for (let i = 0; ; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (i > 100) throw new Error('s3rver did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    STORAGE_TYPE: 's3',
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_BUCKET: 'blobs',
    S3_ACCESS_KEY: 'S3RVER',
    S3_SECRET_KEY: 'S3RVER',
    S3_REGION: 'us-east-1',
  };
}

export interface TransferFigures {
  copyMs: number;
  uploadMs: number;
  downloadMs: number;
  nodeDownloadMs?: number;
  uploadGrowth: number;
  downloadGrowth: number;
  rounds: { copy: number; upload: number; download: number }[];
}

/**
 * `rounds` times: disk copy, upload (round number given, so each lands under a new name), download.
 * `upload` answers the URL to download from.
 */
export async function transferRounds(options: {
  pid: number;
  work: string;
  source: string;
  size: number;
  rounds: number;
  authorization: string;
  upload: (round: number) => Promise<string>;
  nodeClient?: boolean;
}): Promise<TransferFigures> {
  const { pid, work, source, size, authorization } = options;
  const rounds: TransferFigures['rounds'] = [];
  const nodeDownloads: number[] = [];
  let uploadGrowth = 0;
  let downloadGrowth = 0;
  for (let round = 0; round < options.rounds; round++) {
    const copy = await diskCopy(source, path.join(work, 'copy.bin'));
    let started = performance.now();
    const uploaded = await withPeakRss(pid, () => options.upload(round));
    const upload = performance.now() - started;
    uploadGrowth = Math.max(uploadGrowth, uploaded.growth);
    const target = path.join(work, 'downloaded.bin');
    started = performance.now();
    const fetched = await withPeakRss(pid, () => curlDownload(uploaded.result, authorization, target));
    const download = performance.now() - started;
    downloadGrowth = Math.max(downloadGrowth, fetched.growth);
    if ((await stat(target)).size !== size) throw new Error('download size differs');
    await rm(target);
    if (options.nodeClient) {
      started = performance.now();
      await nodeDownload(uploaded.result, authorization, target);
      nodeDownloads.push(performance.now() - started);
      await rm(target);
    }
    rounds.push({ copy, upload, download });
  }
  return {
    copyMs: median(rounds.map((r) => r.copy)),
    uploadMs: median(rounds.map((r) => r.upload)),
    downloadMs: median(rounds.map((r) => r.download)),
    ...(options.nodeClient ? { nodeDownloadMs: median(nodeDownloads) } : {}),
    uploadGrowth,
    downloadGrowth,
    rounds,
  };
}

export function rate(bytes: number, ms: number): string {
  return `${(bytes / MIB / (ms / 1000)).toFixed(0)} MiB/s`;
}

/** The report lines of a transfer benchmark (targets of issue 34 item 4). */
export function transferLines(title: string, size: number, figures: TransferFigures): string[] {
  const { copyMs, uploadMs, downloadMs } = figures;
  return [
    title,
    `  disk copy (limit)  ${copyMs.toFixed(0)} ms  ${rate(size, copyMs)}`,
    `  upload (curl)      ${uploadMs.toFixed(0)} ms  ${rate(size, uploadMs)}  ratio ${(copyMs / uploadMs).toFixed(2)} (target >= 0.7)  peak RSS growth ${(figures.uploadGrowth / MIB).toFixed(1)} MiB (target < 64)`,
    `  download (curl)    ${downloadMs.toFixed(0)} ms  ${rate(size, downloadMs)}  ratio ${(copyMs / downloadMs).toFixed(2)} (target >= 0.9)  peak RSS growth ${(figures.downloadGrowth / MIB).toFixed(1)} MiB (target < 64)`,
    ...(figures.nodeDownloadMs !== undefined
      ? [
          `  download (node:http client writing the file) ${figures.nodeDownloadMs.toFixed(0)} ms  ${rate(size, figures.nodeDownloadMs)}  ratio ${(copyMs / figures.nodeDownloadMs).toFixed(2)}`,
        ]
      : []),
    `  rounds (copy / up / down ms): ${figures.rounds.map((r) => `${r.copy.toFixed(0)}/${r.upload.toFixed(0)}/${r.download.toFixed(0)}`).join(', ')}`,
  ];
}
