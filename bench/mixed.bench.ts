import http from 'node:http';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { benchDatabase, freePort, insertToken, runBench, startDevplane, stopAll } from './harness';

/**
 * Issue 10 item 14: tail latency under a mixed load. The built server (dist/main.js) on
 * DATABASE_URL (or an embedded database), BENCH_USERS (20) users with tokens, BENCH_CONNECTIONS (50)
 * keep-alive connections each cycling through the mix below for BENCH_SECONDS (15) after a 3 s
 * warm-up. Prints p50/p99/max overall and per request kind; the target is p99 ≤ 150 ms overall (issue 37;
 * it was < 250 ms in issue 10). Also prints the server's pool waiting count and event-loop delay.
 * Run: npm run build && DATABASE_URL=... node -r @swc-node/register bench/mixed.bench.ts
 * Profile the server: BENCH_SERVER_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (one .cpuprofile per run).
 */
const USERS = Number(process.env.BENCH_USERS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const WF = '/ocs/v2.php/apps/workflowengine/api/v1/workflows';

interface MixRequest {
  kind: string;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Administrator routes use the administrator's token. */
  admin?: boolean;
}

let counter = 0;
const OCS = { 'OCS-APIRequest': 'true' };

/** The mix of the issue, in the order each connection cycles through it. */
function mix(): MixRequest[] {
  return [
    { kind: 'coder users/me', method: 'GET', path: '/api/v2/users/me' },
    { kind: 'gitea user', method: 'GET', path: '/api/v1/user' },
    { kind: 'ocs cloud/user', method: 'GET', path: '/ocs/v2.php/cloud/user?format=json', headers: OCS },
    { kind: 'ocs rule index', method: 'GET', path: `${WF}/user?format=json`, headers: OCS },
    { kind: 'coder inbox', method: 'GET', path: '/api/v2/notifications/inbox' },
    {
      kind: 'coder authcheck',
      method: 'POST',
      path: '/api/v2/authcheck',
      body: {
        checks: {
          readWorkspaces: { object: { resource_type: 'workspace', owner_id: 'me' }, action: 'read' },
          updateUsers: { object: { resource_type: 'user' }, action: 'update' },
          readTemplates: { object: { resource_type: 'template' }, action: 'read' },
        },
      },
    },
    {
      kind: 'coder custom notification',
      method: 'POST',
      path: '/api/v2/notifications/custom',
      body: () => ({ content: { title: `bench ${++counter}`, message: 'mixed load' } }),
    },
    {
      kind: 'ocs rule create',
      method: 'POST',
      path: `${WF}/user?format=json`,
      headers: OCS,
      body: () => ({
        class: 'OCA\\FlowNotifications\\Flow\\Operation',
        name: `bench ${++counter}`,
        checks: [{ class: 'OCA\\WorkflowEngine\\Check\\FileName', operator: 'matches', value: '/\\.pdf$/i' }],
        operation: '{"inscription":"bench"}',
        entity: 'OCA\\WorkflowEngine\\Entity\\File',
        events: ['OCP\\Files\\Events\\Node\\NodeCreatedEvent'],
      }),
    },
    {
      kind: 'gitea admin user search',
      method: 'GET',
      path: '/api/v1/admin/users?q=bench&limit=10',
      admin: true,
    },
  ].map((request) => ({ ...request })) as MixRequest[];
}

function send(agent: http.Agent, port: number, request: MixRequest, token: string): Promise<number> {
  const raw = typeof request.body === 'function' ? (request.body as () => unknown)() : request.body;
  const payload = raw === undefined ? undefined : Buffer.from(JSON.stringify(raw));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.path,
        headers: {
          Authorization: `token ${token}`,
          ...(payload
            ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) }
            : {}),
          ...request.headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Reads the server's pool-waiting gauge and event-loop delay p99 every 250 ms until `stopped()`. */
async function sampleServer(
  metricsPort: number,
  stopped: () => boolean,
): Promise<{ waiting: number[]; lagP99: number[] }> {
  const waiting: number[] = [];
  const lagP99: number[] = [];
  while (!stopped()) {
    const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      .then((response) => response.text())
      .catch(() => '');
    const wait = /^devplane_db_pool_connections\{state="waiting"\} (\S+)/m.exec(text)?.[1];
    const lag = /^devplane_nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(text)?.[1];
    if (wait !== undefined) waiting.push(Number(wait));
    if (lag !== undefined && Number.isFinite(Number(lag))) lagP99.push(Number(lag));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { waiting, lagP99 };
}

async function main(): Promise<void> {
  const db = await benchDatabase();
  const children = [];
  try {
    // The server's own view, read from /metrics on its metrics port while the load runs: requests
    // waiting for a database connection, and the event-loop delay.
    const metricsPort = await freePort();
    const { child, port } = await startDevplane({ ...db.env, METRICS_PORT: String(metricsPort) });
    children.push(child);
    const adminToken = await insertToken(db, 'admin');
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const tokens: string[] = [];
    for (let i = 0; i < USERS; i++) {
      const status = await send(
        agent,
        port,
        {
          kind: 'setup',
          method: 'POST',
          path: '/api/v1/admin/users',
          body: {
            username: `bench${i}`,
            email: `bench${i}@example.com`,
            password: 'Bench-User-Password-1',
            must_change_password: false,
          },
        },
        adminToken,
      );
      if (status !== 201) throw new Error(`creating bench${i}: HTTP ${status}`);
      tokens.push(await insertToken(db, `bench${i}`));
    }

    const requests = mix();
    const histograms = new Map<string, RecordableHistogram>(requests.map((r) => [r.kind, createHistogram()]));
    const all = createHistogram();
    const failures = new Map<string, number>();
    let measuring = false;
    let done = false;
    const connection = async (index: number): Promise<void> => {
      const token = tokens[index % tokens.length]!;
      for (let step = index; !done; step++) {
        const request = requests[step % requests.length]!;
        const started = process.hrtime.bigint();
        const status = await send(agent, port, request, request.admin ? adminToken : token).catch(() => 0);
        const micros = Number((process.hrtime.bigint() - started) / 1000n);
        if (!measuring) continue;
        histograms.get(request.kind)!.record(Math.max(1, micros));
        all.record(Math.max(1, micros));
        if (status < 200 || status >= 300)
          failures.set(`${request.kind} ${status}`, (failures.get(`${request.kind} ${status}`) ?? 0) + 1);
      }
    };
    const loops = Array.from({ length: CONNECTIONS }, (_, index) => connection(index));
    await new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000));
    measuring = true;
    const server = sampleServer(metricsPort, () => done);
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    done = true;
    await Promise.all(loops);
    const seen = await server;
    agent.destroy();

    const ms = (h: RecordableHistogram, p: number) => (h.percentile(p) / 1000).toFixed(1);
    process.stdout.write(
      `\nmixed load (${db.embedded ? 'embedded PGlite' : 'PostgreSQL'}, ${USERS} users, ${CONNECTIONS} connections, ${SECONDS}s after ${WARMUP_SECONDS}s warm-up)\n`,
    );
    process.stdout.write(
      `${'request'.padEnd(28)} ${'count'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}\n`,
    );
    for (const [kind, h] of [
      ...histograms,
      ['ALL (req/s ' + (all.count / SECONDS).toFixed(0) + ')', all] as const,
    ]) {
      process.stdout.write(
        `${kind.padEnd(28)} ${String(h.count).padStart(7)} ${ms(h, 50).padStart(8)} ${ms(h, 99).padStart(8)} ${(h.max / 1000).toFixed(1).padStart(8)}\n`,
      );
    }
    const avg = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    process.stdout.write(
      `server (${seen.waiting.length} samples of /metrics): requests waiting for a database connection avg ${avg(seen.waiting).toFixed(1)} max ${Math.max(0, ...seen.waiting)}; event-loop delay p99 avg ${(avg(seen.lagP99) * 1000).toFixed(1)} ms max ${(Math.max(0, ...seen.lagP99) * 1000).toFixed(1)} ms\n`,
    );
    if (failures.size > 0)
      process.stdout.write(`non-2xx: ${[...failures].map(([k, n]) => `${k} ×${n}`).join(', ')}\n`);
    process.stdout.write(
      `target: overall p99 ≤ 150 ms → ${Number(ms(all, 99)) <= 150 ? 'met' : 'NOT met'}\n`,
    );
  } finally {
    await stopAll(children);
    await db.close();
  }
}

runBench(main);
