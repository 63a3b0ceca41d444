import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runBench, stopAll } from './harness';
import {
  curlDownload,
  curlUpload,
  diskCopy,
  hasCurl,
  median,
  rate,
  sourceFile,
  storageEnv,
} from './transfer';

/**
 * The floor of the s3 rows of bench/packages.bench.ts and bench/attachments.bench.ts (issue 34 item 4):
 * s3rver alone, in its own process as there, receiving a PUT of the same file from curl and serving it
 * back, in rounds alternating with the same disk copy (bench/transfer.ts). No devplane in the path: when
 * s3rver alone is below a ratio target, so is devplane in front of it.
 * Env: BENCH_MIB (default 200), BENCH_ROUNDS (default 5).
 * Run: node -r @swc-node/register bench/s3rver-floor.bench.ts
 */
const sizeMib = Number(process.env.BENCH_MIB ?? 200);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);

async function main(): Promise<void> {
  if (!hasCurl()) throw new Error('the transfer benchmarks measure with curl: install it');
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplane-s3rver-floor-'));
  const children: ChildProcess[] = [];
  try {
    const source = path.join(work, 'source.bin');
    const size = await sourceFile(source, sizeMib);
    const env = await storageEnv('s3', work, children);
    const bucket = `${env.S3_ENDPOINT}/${env.S3_BUCKET}`;
    const timed = async (work: () => Promise<unknown>) => {
      const started = performance.now();
      await work();
      return performance.now() - started;
    };
    const measured: { copy: number; upload: number; download: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      const copy = await diskCopy(source, path.join(work, 'copy.bin'));
      // Anonymous: s3rver accepts unsigned requests, so curl sends the bytes as they are.
      const upload = await timed(async () => {
        const { status } = await curlUpload(`${bucket}/floor-${round}`, 'PUT', null, source);
        if (status !== 200) throw new Error(`s3rver PUT: HTTP ${status}`);
      });
      const target = path.join(work, 'download.bin');
      const download = await timed(() => curlDownload(`${bucket}/floor-${round}`, null, target));
      await rm(target);
      measured.push({ copy, upload, download });
    }
    const copyMs = median(measured.map((r) => r.copy));
    const uploadMs = median(measured.map((r) => r.upload));
    const downloadMs = median(measured.map((r) => r.download));
    process.stdout.write(
      [
        `s3rver alone: ${sizeMib} MiB with curl, median of ${rounds} rounds`,
        `  disk copy (limit)  ${copyMs.toFixed(0)} ms  ${rate(size, copyMs)}`,
        `  PUT (curl)         ${uploadMs.toFixed(0)} ms  ${rate(size, uploadMs)}  ratio ${(copyMs / uploadMs).toFixed(2)}`,
        `  GET (curl)         ${downloadMs.toFixed(0)} ms  ${rate(size, downloadMs)}  ratio ${(copyMs / downloadMs).toFixed(2)}`,
        `  rounds (copy / put / get ms): ${measured.map((r) => `${r.copy.toFixed(0)}/${r.upload.toFixed(0)}/${r.download.toFixed(0)}`).join(', ')}`,
      ].join('\n') + '\n',
    );
  } finally {
    await stopAll(children);
    await rm(work, { recursive: true, force: true });
  }
}

runBench(main);
