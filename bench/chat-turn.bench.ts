import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fakeOpenAi } from '../test/helpers/fake-ai-providers';
import { benchDatabase, insertToken, startDevplane, stopAll } from './harness';

/**
 * Issue 47 item 1: the latency of one chat turn against the built server (dist/main.js), with the
 * runner calling the AI gateway in process (the ModelGateway port) and a fake OpenAI provider on
 * loopback. BENCH_TURNS (default 40) turns one after another in one chat: each posts a user message
 * (the API wakes the runner) and waits until the chat is `waiting` again with the answer stored.
 * Figures: p50 / p95 / mean ms from the POST to the stored answer, and the POST alone.
 * Env: DATABASE_URL (default: embedded PGlite).
 * Run: npm run build && node -r @swc-node/register bench/chat-turn.bench.ts
 */
const turns = Number(process.env.BENCH_TURNS ?? 40);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const provider = await fakeOpenAi();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplane-bench-turn-'));
  const db = await benchDatabase({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    EXPERIMENTS: 'agents',
    AI_GATEWAY_PROVIDERS: JSON.stringify([
      { name: 'fake', type: 'openai', base_url: `${provider.url}/v1`, key: 'sk-fake' },
    ]),
  });
  const children = [];
  try {
    const server = await startDevplane(db.env);
    children.push(server.child);
    const token = await insertToken(db, 'admin');
    const base = `http://127.0.0.1:${server.port}`;
    const call = async (method: string, route: string, body?: unknown): Promise<Record<string, unknown>> => {
      const response = await fetch(base + route, {
        method,
        headers: { 'Service-Session-Token': token, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${route}: ${response.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const status = async (chatId: string): Promise<string> => {
      const { rows } = await db.admin.query(`SELECT status FROM "${db.schema}".chats WHERE id = $1`, [
        chatId,
      ]);
      return (rows[0] as { status: string }).status;
    };
    const settled = async (chatId: string): Promise<void> => {
      // A turn is over when the chat waits again (the answer is stored in the same transaction).
      while ((await status(chatId)) !== 'waiting') await new Promise((resolve) => setTimeout(resolve, 2));
    };
    const config = await call('POST', '/api/experimental/chats/model-configs', {
      provider: 'fake',
      model: 'fake-model',
      input_price_per_million_tokens: '1',
      output_price_per_million_tokens: '2',
    });
    const chat = await call('POST', '/api/experimental/chats', {
      model_config_id: config.id,
      content: [{ type: 'text', text: 'warm-up' }],
    });
    const chatId = String(chat.id);
    await settled(chatId);
    const total: number[] = [];
    const posts: number[] = [];
    for (let i = 0; i < turns; i++) {
      const started = performance.now();
      await call('POST', `/api/experimental/chats/${chatId}/messages`, {
        content: [{ type: 'text', text: `turn ${i}` }],
      });
      posts.push(performance.now() - started);
      await settled(chatId);
      total.push(performance.now() - started);
    }
    const mean = total.reduce((sum, value) => sum + value, 0) / total.length;
    console.log(
      `chat turn (POST message → answer stored; in-process model gateway, fake OpenAI on loopback, ${db.embedded ? 'embedded database' : 'PostgreSQL'}), ${turns} turns: p50 ${percentile(total, 50).toFixed(1)} ms, p95 ${percentile(total, 95).toFixed(1)} ms, mean ${mean.toFixed(1)} ms; the POST alone p50 ${percentile(posts, 50).toFixed(1)} ms; ${provider.seen.length} provider calls`,
    );
  } finally {
    await stopAll(children);
    await db.close();
    await provider.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
