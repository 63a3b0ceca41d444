import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gitScan } from '../src/agent/agent';
import { fakeOpenAi } from '../test/helpers/fake-ai-providers';
import { benchDatabase, insertToken, startDevplane, stopAll } from './harness';

/**
 * Issue 19 item 11, against the built server (dist/main.js):
 * 1. Chats acquired and completed per minute: BENCH_CHATS (default 300) chats created through the API,
 *    answered by two runner instances (CHAT_ACQUIRE_BATCH_SIZE 10) against a fake OpenAI provider on
 *    loopback, every model call through the AI gateway.
 * 2. Git watch scan cost: the agent's scan of a repository with BENCH_FILES (default 10,000) files and
 *    a ~1 MB diff, BENCH_SCANS (default 10) times: ms per scan.
 * Env: DATABASE_URL (default: embedded PGlite, then one instance).
 * Run: npm run build && node -r @swc-node/register bench/chats.bench.ts
 */
const chatCount = Number(process.env.BENCH_CHATS ?? 300);
const fileCount = Number(process.env.BENCH_FILES ?? 10_000);
const scans = Number(process.env.BENCH_SCANS ?? 10);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function runnerThroughput(): Promise<void> {
  const provider = await fakeOpenAi();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplane-bench-chats-'));
  const db = await benchDatabase({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    EXPERIMENTS: 'agents',
    CHAT_ACQUIRE_BATCH_SIZE: '10',
    AI_GATEWAY_PROVIDERS: JSON.stringify([
      { name: 'fake', type: 'openai', base_url: `${provider.url}/v1`, key: 'sk-fake' },
    ]),
  });
  const children = [];
  try {
    const a = await startDevplane(db.env);
    children.push(a.child);
    const b = db.embedded ? a : await startDevplane(db.env);
    if (b !== a) children.push(b.child);
    const token = await insertToken(db, 'admin');
    const base = `http://127.0.0.1:${a.port}`;
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
    const config = await call('POST', '/api/experimental/chats/model-configs', {
      provider: 'fake',
      model: 'fake-model',
      input_price_per_million_tokens: '1',
      output_price_per_million_tokens: '2',
    });
    const q = (sql: string) => db.admin.query(sql.replaceAll('$S.', `"${db.schema}".`));
    const settled = async (): Promise<void> => {
      for (;;) {
        const { rows } = await q(
          `SELECT count(*) FILTER (WHERE status <> 'waiting')::int AS open FROM $S.chats`,
        );
        if (rows[0].open === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    // Ten chats through the API (the whole path), then BENCH_CHATS inserted at once as pending chats: the
    // figure is the runners' own (the API's creation rate would bound it otherwise).
    for (let i = 0; i < 10; i++)
      await call('POST', '/api/experimental/chats', {
        model_config_id: config.id,
        content: [{ type: 'text', text: `warm-up ${i}` }],
      });
    await settled();
    const seenBefore = provider.seen.length;
    await q(
      `WITH owner AS (SELECT u.uuid, o.uuid AS org FROM $S.users u, $S.users o WHERE u.lower_name = 'admin' AND o.lower_name = 'default'),
            made AS (
              INSERT INTO $S.chats (organization_id, owner_id, last_model_config_id, title, status)
              SELECT owner.org, owner.uuid, '${String(config.id)}', 'bench ' || g, 'pending' FROM owner, generate_series(1, ${chatCount}) g
              RETURNING id, title)
       INSERT INTO $S.chat_messages (chat_id, role, content)
       SELECT id, 'user', jsonb_build_array(jsonb_build_object('type', 'text', 'text', title)) FROM made`,
    );
    const started = performance.now();
    // One more through the API wakes every runner at once (they also poll every second).
    await call('POST', '/api/experimental/chats', {
      model_config_id: config.id,
      content: [{ type: 'text', text: 'go' }],
    });
    await settled();
    const seconds = (performance.now() - started) / 1000;
    const calls = provider.seen
      .slice(seenBefore)
      .filter((request) => request.path.endsWith('/chat/completions')).length;
    console.log(
      `chat runner, ${db.embedded ? 'one instance (embedded database)' : 'two instances'}, batch 10: ${chatCount + 1} pending chats acquired and answered in ${seconds.toFixed(1)} s = ${Math.round(((chatCount + 1) / seconds) * 60)} chats/min (${calls} model calls through the AI gateway)`,
    );
  } finally {
    await stopAll(children);
    await db.close();
    await provider.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function gitWatchScanCost(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'devplane-bench-git-'));
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    for (let i = 0; i < fileCount; i++) {
      const dir = path.join(root, `d${i % 100}`);
      if (i < 100) mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `f${i}.txt`), `file ${i}\n`);
    }
    git('add', '-A');
    git('-c', 'user.email=b@b', '-c', 'user.name=b', 'commit', '-q', '-m', 'init');
    // ~1 MB of diff: 200 files rewritten with 5 KB each.
    for (let i = 0; i < 200; i++)
      writeFileSync(path.join(root, `d${i % 100}`, `f${i}.txt`), `${'changed line\n'.repeat(400)}`);
    const times: number[] = [];
    let size = 0;
    for (let i = 0; i < scans; i++) {
      const started = performance.now();
      const [repository] = await gitScan(root, ['.']);
      times.push(performance.now() - started);
      size = repository?.unified_diff.length ?? 0;
    }
    console.log(
      `git watch scan, ${fileCount.toLocaleString()} files, ${(size / 1024 / 1024).toFixed(2)} MB diff: p50 ${percentile(times, 50).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms per scan (${scans} scans)`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  await gitWatchScanCost();
  await runnerThroughput();
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
