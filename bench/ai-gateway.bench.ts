import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fakeOpenAi } from '../test/helpers/fake-ai-providers';
import { benchDatabase, insertToken, startDevplane, stopAll } from './harness';

/**
 * Issue 18 item 8, against the built server (dist/main.js): BENCH_STREAMS (default 50) concurrent
 * streamed chat completions for BENCH_SECONDS (default 10), against a fake OpenAI-compatible
 * provider on loopback (10 chunks, BENCH_CHUNK_MS apart), once directly and once through the
 * gateway, interleaved in rounds. Prints p50/p99 of the time to the first streamed byte and to the
 * full response, the added latency (target: < 5 ms at p50), and the interceptions recorded per second.
 * BENCH_CHUNK_MS (default `20,2`) runs one round per value: 20 ms is a model streaming 50 tokens a
 * second, the case the target describes; 2 ms is a stress case in which the 50 closed-loop streams
 * ask for more than two shared cores can proxy, so its added latency is queueing (Little's law:
 * 50 streams / throughput) and its figure to watch is the proxied streams per second.
 * Env: DATABASE_URL (default: embedded PGlite), BENCH_NODE_ARGS (for the server, e.g. `--cpu-prof`).
 * Run: npm run build && node -r @swc-node/register bench/ai-gateway.bench.ts
 */
const streams = Number(process.env.BENCH_STREAMS ?? 50);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const chunkSpacings = (process.env.BENCH_CHUNK_MS ?? '20,2').split(',').map(Number);

interface Sample {
  firstByte: number;
  total: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function load(url: string, headers: Record<string, string>, durationMs: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  const deadline = performance.now() + durationMs;
  const body = JSON.stringify({
    model: 'bench-model',
    stream: true,
    messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }],
  });
  await Promise.all(
    Array.from({ length: streams }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body,
        });
        const reader = res.body!.getReader();
        let firstByte = 0;
        for (;;) {
          const { done } = await reader.read();
          if (!firstByte) firstByte = performance.now() - started;
          if (done) break;
        }
        samples.push({ firstByte, total: performance.now() - started });
      }
    }),
  );
  return samples;
}

async function main(): Promise<void> {
  const fake = await fakeOpenAi();
  // Every request gets the same script: text only, chunks spaced out like a model's tokens.
  const script = { chunkDelayMs: chunkSpacings[0]! };
  Object.defineProperty(fake, 'script', { get: () => [script] });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplane-bench-ai-'));
  const db = await benchDatabase({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    AI_GATEWAY_PROVIDERS: JSON.stringify([
      { name: 'fake', type: 'openai', base_url: fake.url, key: 'sk-bench' },
    ]),
  });
  const children = [];
  try {
    const { child, port } = await startDevplane(
      db.env,
      process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [],
    );
    children.push(child);
    const token = await insertToken(db, 'admin');
    const direct = `${fake.url}/v1/chat/completions`;
    const gateway = `http://127.0.0.1:${port}/api/v2/aigateway/fake/v1/chat/completions`;
    for (const chunkMs of chunkSpacings) {
      script.chunkDelayMs = chunkMs;
      await load(gateway, { Authorization: `Bearer ${token}` }, 1000); // warm-up
      const half = (seconds * 1000) / 2;
      const directSamples = [...(await load(direct, { Authorization: 'Bearer sk-bench' }, half))];
      const before = Number(
        (await db.admin.query(`SELECT count(*) FROM "${db.schema}".ai_gateway_interceptions`)).rows[0].count,
      );
      const started = performance.now();
      const gatewaySamples = await load(gateway, { Authorization: `Bearer ${token}` }, half);
      directSamples.push(...(await load(direct, { Authorization: 'Bearer sk-bench' }, half)));
      const elapsed = (performance.now() - started) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 1000)); // the last records are written after their responses
      const after = Number(
        (
          await db.admin.query(
            `SELECT count(*) FROM "${db.schema}".ai_gateway_interceptions WHERE ended_at IS NOT NULL`,
          )
        ).rows[0].count,
      );
      const row = (name: string, samples: Sample[]) =>
        `${name}: ${samples.length} streams, first byte p50 ${percentile(
          samples.map((s) => s.firstByte),
          50,
        ).toFixed(1)} ms / p99 ${percentile(
          samples.map((s) => s.firstByte),
          99,
        ).toFixed(1)} ms, full response p50 ${percentile(
          samples.map((s) => s.total),
          50,
        ).toFixed(1)} ms / p99 ${percentile(
          samples.map((s) => s.total),
          99,
        ).toFixed(1)} ms`;
      console.log(`${streams} concurrent streams, 10 chunks ${chunkMs} ms apart`);
      console.log(row('direct to the fake provider', directSamples));
      console.log(row('through the gateway', gatewaySamples));
      const added = (pick: (s: Sample) => number, p: number) =>
        (percentile(gatewaySamples.map(pick), p) - percentile(directSamples.map(pick), p)).toFixed(1);
      console.log(
        `added by the gateway: first byte p50 +${added((s) => s.firstByte, 50)} ms, p99 +${added((s) => s.firstByte, 99)} ms; full response p50 +${added((s) => s.total, 50)} ms, p99 +${added((s) => s.total, 99)} ms (target < 5 ms at p50)`,
      );
      console.log(
        `interceptions recorded: ${after - before} in ${elapsed.toFixed(1)} s window (${Math.round(gatewaySamples.length / (half / 1000))}/s proxied, ${after - before} of ${gatewaySamples.length} recorded)`,
      );
    }
  } finally {
    await stopAll(children);
    await db.close();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
