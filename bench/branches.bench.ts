import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchDatabase, insertToken, startDevplane, stopAll } from './harness';

/**
 * Issue 13 item 7, against the built server (dist/main.js):
 * 1. GET /repos/{o}/{r}/branches on a repository with BENCH_BRANCHES (default 10,000) branches and 50
 *    protection rules (25 plain, 25 globs): requests/s, p50, p99 (autocannon, pages of 50 spread
 *    over the whole list; each page computes the effective rule of its branches from one rule set).
 * 2. `git push` of one commit to a repository with 50 glob rules (the pushed branch governed by the
 *    last one, with protected file patterns to check) against the same push to an identical
 *    repository with none: the median over BENCH_PUSHES (default 15) pushes each, and the added
 *    latency of the hook's checks (target < 50 ms).
 * Env: DATABASE_URL (default: embedded PGlite), BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 10).
 * Run: npm run build && node -r @swc-node/register bench/branches.bench.ts
 */
interface LoadOptions {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  requests?: { path: string }[];
}
interface LoadResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(__filename)('autocannon') as (options: LoadOptions) => Promise<LoadResult>;

const branchCount = Number(process.env.BENCH_BRANCHES ?? 10_000);
const pushes = Number(process.env.BENCH_PUSHES ?? 15);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  input?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: cwd,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
        GIT_AUTHOR_NAME: 'Bench',
        GIT_AUTHOR_EMAIL: 'bench@example.com',
        GIT_COMMITTER_NAME: 'Bench',
        GIT_COMMITTER_EMAIL: 'bench@example.com',
        ...env,
      },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} failed (${code}): ${err}`)),
    );
    child.stdin.end(input);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'devplane-branch-bench-'));
  const dataDir = path.join(work, 'data');
  const db = await benchDatabase({ DATA_DIR: dataDir, LOG_LEVEL: 'error' });
  const children = [];
  try {
    const { child, port } = await startDevplane(db.env);
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    const token = await insertToken(db, 'admin');
    const headers = { Authorization: `token ${token}`, 'Content-Type': 'application/json' };
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}/api/v1${url}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
      return res.status === 204 ? null : ((await res.json()) as Record<string, unknown>);
    };

    // 1. The branch list.
    await api('POST', '/user/repos', { name: 'many', auto_init: true });
    const manyDir = path.join(dataDir, 'repositories', 'admin', 'many.git');
    const tip = (await run('git', ['rev-parse', 'refs/heads/main'], manyDir, { GIT_DIR: manyDir })).trim();
    const creates = Array.from(
      { length: branchCount },
      (_, i) => `create refs/heads/feature/b-${String(i).padStart(5, '0')} ${tip}`,
    ).join('\n');
    await run('git', ['update-ref', '--stdin'], manyDir, { GIT_DIR: manyDir }, `${creates}\n`);
    for (let i = 0; i < 25; i++)
      await api('POST', '/repos/admin/many/branch_protections', {
        rule_name: `feature/b-${String(i * 400).padStart(5, '0')}`,
        enable_push: true,
      });
    for (let i = 0; i < 25; i++)
      await api('POST', '/repos/admin/many/branch_protections', {
        rule_name: `feature/b-${i}*`,
        enable_push: true,
      });
    const pages = Math.ceil(branchCount / 50);
    const requests = Array.from({ length: 20 }, (_, i) => ({
      path: `/api/v1/repos/admin/many/branches?limit=50&page=${1 + Math.floor((i * pages) / 20)}`,
    }));
    const single = performance.now();
    const first = await fetch(`${base}${requests[0]!.path}`, { headers });
    if (first.status !== 200) throw new Error(`branch list: ${first.status} ${await first.text()}`);
    const firstMs = performance.now() - single;
    // One page in the middle of the list (every page costs the same: the whole ref list is read and sorted).
    const middle = `${base}${requests[10]!.path}`;
    await autocannon({ url: middle, connections: 2, duration: 1, headers }); // warm-up
    const list = await autocannon({ url: middle, connections, duration: seconds, headers });
    if (list.non2xx || list.errors)
      throw new Error(`branch list: ${list.non2xx} non-2xx, ${list.errors} errors`);

    // 2. Push latency with and without rules.
    const pushFor = async (repo: string, withRules: boolean): Promise<number[]> => {
      await api('POST', '/user/repos', { name: repo, auto_init: true });
      if (withRules) {
        for (let i = 0; i < 49; i++)
          await api('POST', `/repos/admin/${repo}/branch_protections`, {
            rule_name: `release-${i}/**`,
            enable_push: false,
          });
        await api('POST', `/repos/admin/${repo}/branch_protections`, {
          rule_name: 'work/*',
          enable_push: true,
          protected_file_patterns: 'docs/**;*.lock',
        });
      }
      const wc = path.join(work, `${repo}-wc`);
      const url = new URL(`${base}/admin/${repo}.git`);
      url.username = 'admin';
      url.password = token;
      await run('git', ['clone', '--quiet', url.toString(), wc], work);
      await run('git', ['checkout', '--quiet', '-b', 'work/bench'], wc);
      const times: number[] = [];
      for (let i = 0; i <= pushes; i++) {
        await writeFile(path.join(wc, 'file.txt'), `round ${i}\n`);
        await run('git', ['commit', '--quiet', '-am', `round ${i}`], wc).catch(async () => {
          await run('git', ['add', 'file.txt'], wc);
          await run('git', ['commit', '--quiet', '-m', `round ${i}`], wc);
        });
        const started = performance.now();
        await run('git', ['push', '--quiet', 'origin', 'work/bench'], wc);
        if (i > 0) times.push(performance.now() - started); // the first push creates the branch
      }
      return times;
    };
    const plain = median(await pushFor('plain', false));
    const ruled = median(await pushFor('ruled', true));

    const lines = [
      `branches: ${branchCount} branches, 50 rules, on ${db.embedded ? 'embedded PGlite' : 'PostgreSQL'}; ${connections} connections, ${seconds} s`,
      `  GET branches (pages of 50)   first ${firstMs.toFixed(0)} ms; ${list.requests.average.toFixed(0)} req/s  p50 ${list.latency.p50} ms  p99 ${list.latency.p99} ms`,
      `  push, no rules               median ${plain.toFixed(1)} ms over ${pushes} pushes`,
      `  push, 50 glob rules          median ${ruled.toFixed(1)} ms  added ${(ruled - plain).toFixed(1)} ms (target < 50)`,
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
