import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { benchDatabase, insertToken, startDevplane, stopAll } from './harness';
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
 * Issues 14 item 7 and 34 item 4: upload and download of one release attachment (default 200 MiB) through
 * the built server against copying the same file on the same disk (a read stream piped into a write
 * stream, what `cp` does), with the server's peak RSS growth during each transfer (read from /proc every
 * 20 ms). Targets (issue 34): upload >= 0.7 and download >= 0.9 of the copy's throughput, both with curl;
 * RSS growth < 64 MiB. BENCH_ROUNDS rounds (default 5) of copy, upload, download alternate; medians compared.
 * Env: DATABASE_URL (default: embedded PGlite), BENCH_MIB (default 200), BENCH_ROUNDS, BENCH_STORAGE
 * (local or s3: s3rver), BENCH_DIST (build directory, default dist).
 * Run: npm run build && node -r @swc-node/register bench/attachments.bench.ts
 */
const sizeMib = Number(process.env.BENCH_MIB ?? 200);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);

function request(url: string, options: http.RequestOptions, body?: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, options, resolve);
    req.on('error', reject);
    req.end(body);
  });
}

async function json(res: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  if ((res.statusCode ?? 0) >= 300) throw new Error(`HTTP ${res.statusCode}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function main(): Promise<void> {
  if (!hasCurl()) throw new Error('the transfer benchmarks measure with curl: install it');
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplane-attach-bench-'));
  const children: ChildProcess[] = [];
  const driver = storageDriver();
  const db = await benchDatabase({
    RELEASE_ATTACHMENT_MAX_SIZE_MB: String(sizeMib + 1),
    DATA_DIR: path.join(work, 'data'),
    ...(await storageEnv(driver, work, children)),
  });
  try {
    const source = path.join(work, 'source.bin');
    const size = await sourceFile(source, sizeMib);
    const { child, port } = await startDevplane(db.env);
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const authorization = `token ${await insertToken(db, 'admin')}`;
    const auth = { Authorization: authorization };
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
    const figures = await transferRounds({
      pid: child.pid!,
      work,
      source,
      size,
      rounds,
      authorization,
      nodeClient: process.env.BENCH_NODE_CLIENT === '1',
      upload: async (round) => {
        const { status, body } = await curlUpload(
          `${base}/api/v1/repos/admin/bench/releases/${String(release.id)}/assets?name=big-${round}.bin`,
          'POST',
          authorization,
          source,
        );
        if (status !== 201) throw new Error(`upload: HTTP ${status} ${body}`);
        const asset = JSON.parse(body) as { size: number; uuid: string };
        if (asset.size !== size) throw new Error(`uploaded ${asset.size} bytes, expected ${size}`);
        return `${base}/attachments/${asset.uuid}`;
      },
    });
    const lines = transferLines(
      `attachments: ${sizeMib} MiB release attachment, median of ${rounds} rounds, on ${db.embedded ? 'embedded PGlite' : 'PostgreSQL'}, ${driver} blob store`,
      size,
      figures,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
    if (process.env.BENCH_RESULTS)
      await writeFile(process.env.BENCH_RESULTS, `${lines.join('\n')}\n`, { flag: 'a' });
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
