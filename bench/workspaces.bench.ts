import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SecretBox } from '../src/platform/crypto/secret-box';
import { benchDatabase, insertToken, ROOT, startDevplane, stopAll } from './harness';

/**
 * Issue 17 item 10, against the built server (dist/main.js) and the built provisioner
 * (dist/provisioner.js), two devplane instances on one database:
 * 1. claim → reinit: BENCH_CLAIMS (default 100) claims of a prebuilt workspace on instance A, each
 *    timed until the reinit event reaches a follower of the agent's stream on instance B (the claim
 *    build runs on a real provisioner; the reconciler refills the pool). p50 / p99.
 * 2. build throughput with two provisioner daemons: BENCH_WORKSPACES (default 10) workspaces,
 *    stopped and started BENCH_ROUNDS (default 3) times (every start runs a real agent): builds/min.
 * 3. BENCH_FOLLOWERS (default 1,000) reinit stream followers on one instance: memory per follower
 *    (RSS growth / followers).
 * Phases 1 and 2 run twice in the same run, with WORKSPACE_ISOLATION=none and =auto (issue 30: the
 * sandbox may cost at most 15 % of build throughput and 20 ms of claim → reinit p50); the last line
 * compares them.
 * With the embedded database (no DATABASE_URL) both instances are one: the reinit figure is then
 * in-process. Use a PostgreSQL server for the cross-instance figure.
 * Run: npm run build && node -r @swc-node/register bench/workspaces.bench.ts
 */
const claims = Number(process.env.BENCH_CLAIMS ?? 100);
const workspaceCount = Number(process.env.BENCH_WORKSPACES ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const followers = Number(process.env.BENCH_FOLLOWERS ?? 1000);
const SECRETS_KEY = '1'.repeat(64);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function rss(pid: number): Promise<number> {
  return Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'devplane-bench-ws-'));
  const workspacesDir = path.join(dataDir, 'workspaces');
  const db = await benchDatabase({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    SECRETS_KEY,
    PROVISIONER_DAEMONS: '0',
    PREBUILDS_RECONCILE_INTERVAL_MS: '200',
  });
  const children: ChildProcess[] = [];
  const box = new SecretBox(Buffer.from(SECRETS_KEY, 'hex'));
  const q = (sql: string, params: unknown[] = []) =>
    db.admin.query(sql.replaceAll('$S.', `"${db.schema}".`), params);
  try {
    const a = await startDevplane(db.env);
    children.push(a.child);
    const b = db.embedded ? a : await startDevplane(db.env);
    if (b !== a) children.push(b.child);
    const urlA = `http://127.0.0.1:${a.port}`;
    const urlB = `http://127.0.0.1:${b.port}`;
    const token = await insertToken(db, 'admin');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of the Coder API
    const call = async (base: string, method: string, route: string, body?: unknown): Promise<any> => {
      const response = await fetch(base + route, {
        method,
        headers: { 'Service-Session-Token': token, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    };
    const { key } = await call(urlA, 'POST', '/api/v2/organizations/default/provisionerkeys', {
      name: 'bench',
    });
    // Issue 30: the same two phases with workspace isolation off and on (the strongest this host allows), in one run.
    const throughput: Record<string, number> = {};
    const claimP50: Record<string, number> = {};
    let pooled = { id: '', version: '' };
    for (const isolation of ['none', 'auto']) {
      const provisioner = spawn(process.execPath, [path.join(ROOT, 'dist', 'provisioner.js')], {
        env: {
          ...process.env,
          DEVPLANE_URL: urlB,
          DEVPLANE_PROVISIONER_KEY: key,
          PROVISIONER_DAEMONS: '2',
          PROVISIONER_WORKSPACES_DIR: workspacesDir,
          DEVPLANE_AGENT_HEARTBEAT_MS: '5000',
          DEVPLANE_AGENT_REINIT_RETRY_MS: '60000',
          WORKSPACE_ISOLATION: isolation,
        },
        stdio: 'ignore',
      });
      children.push(provisioner);
      const waitJob = async (jobId: string): Promise<void> => {
        for (;;) {
          const { rows } = await q('SELECT status, error FROM $S.provisioner_jobs WHERE id = $1', [jobId]);
          if (rows[0]?.status === 'succeeded') return;
          if (rows[0]?.status === 'failed') throw new Error(`job ${jobId} failed: ${rows[0]?.error}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const template = async (
        name: string,
        definition: unknown,
      ): Promise<{ id: string; version: string }> => {
        const version = await call(urlA, 'POST', '/api/v2/organizations/default/templateversions', {
          definition,
        });
        await waitJob(version.job.id);
        const made = await call(urlA, 'POST', '/api/v2/organizations/default/templates', {
          name,
          template_version_id: version.id,
        });
        return { id: made.id, version: version.id };
      };

      // 2. Build throughput first (the pool of 1. would share the daemons).
      const plain = await template(`bench-plain-${isolation}`, { directory: 'w' });
      const ids: string[] = [];
      for (let i = 0; i < workspaceCount; i++)
        ids.push(
          (
            await call(urlA, 'POST', '/api/v2/users/me/workspaces', {
              name: `tp${i}-${isolation}`,
              template_id: plain.id,
            })
          ).id,
        );
      const latestJobs = async () =>
        (
          await q(
            `SELECT DISTINCT ON (workspace_id) job_id FROM $S.workspace_builds WHERE workspace_id = ANY($1::uuid[]) ORDER BY workspace_id, build_number DESC`,
            [ids],
          )
        ).rows.map((row: { job_id: string }) => row.job_id);
      for (const job of await latestJobs()) await waitJob(job);
      let builds = 0;
      const started = performance.now();
      for (let round = 0; round < rounds; round++) {
        for (const transition of ['stop', 'start']) {
          for (const id of ids) await call(urlA, 'POST', `/api/v2/workspaces/${id}/builds`, { transition });
          for (const job of await latestJobs()) await waitJob(job);
          builds += ids.length;
        }
      }
      const minutes = (performance.now() - started) / 60_000;
      throughput[isolation] = builds / minutes;
      console.log(
        `[WORKSPACE_ISOLATION=${isolation}] build throughput, 2 daemons: ${builds} builds (stop/start, real agents) in ${(minutes * 60).toFixed(1)} s = ${Math.round(builds / minutes)} builds/min`,
      );
      for (const id of ids)
        await call(urlA, 'POST', `/api/v2/workspaces/${id}/builds`, { transition: 'delete' });

      // 1. Claim → reinit on the other instance.
      pooled = await template(`bench-pool-${isolation}`, {
        directory: 'w',
        presets: [{ name: 'warm', prebuilds: { instances: 4 } }],
      });
      const presets = await call(urlA, 'GET', `/api/v2/templateversions/${pooled.version}/presets`);
      const presetId = presets[0].ID as string;
      const latencies: number[] = [];
      let late = 0;
      for (let i = 0; i < claims; i++) {
        // Every ready prebuilt workspace's agent stream is followed (the claim takes one of them).
        let agents: { workspace_id: string; id: string; sealed_token: string }[] = [];
        while (agents.length === 0) {
          const { rows } = await q(
            `SELECT w.id AS workspace_id, a.id, a.sealed_token FROM $S.workspaces w
               JOIN LATERAL (SELECT * FROM $S.workspace_builds WHERE workspace_id = w.id ORDER BY build_number DESC LIMIT 1) lb ON true
               JOIN $S.provisioner_jobs j ON j.id = lb.job_id AND j.status = 'succeeded'
               JOIN $S.workspace_resources r ON r.job_id = lb.job_id
               JOIN $S.workspace_agents a ON a.resource_id = r.id AND a.lifecycle_state = 'ready'
              WHERE w.owner_id = 'c42fdf75-3097-471c-8c33-fb52454d81c0' AND w.deleted = false AND lb.transition = 'start'
                AND lb.template_version_id = $1`,
            [pooled.version],
          );
          agents = rows;
          if (agents.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const requests: http.ClientRequest[] = [];
        let subscribed = 0;
        let follow: (agent: { workspace_id: string; id: string; sealed_token: string }) => void = () =>
          undefined;
        const event = new Promise<{ at: number; workspaceId: string }>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`claim ${i}: no reinit event within 30 s`)),
            30_000,
          );
          follow = (agent) => {
            const agentToken = box.openText(agent.sealed_token, `workspace-agent:${agent.id}`);
            const request = http.get(
              `${urlB}/api/v2/workspaceagents/me/reinit`,
              { headers: { 'Service-Session-Token': agentToken } },
              (response) => {
                subscribed++;
                response.on('data', (chunk: Buffer) => {
                  if (chunk.toString().includes('event: data')) {
                    clearTimeout(timer);
                    resolve({ at: performance.now(), workspaceId: agent.workspace_id });
                  }
                });
              },
            );
            request.on('error', () => undefined);
            requests.push(request);
          };
          for (const agent of agents) follow(agent);
        });
        while (subscribed < agents.length) await new Promise((resolve) => setTimeout(resolve, 5));
        const t0 = performance.now();
        const claimed = await call(urlA, 'POST', '/api/v2/users/me/workspaces', {
          name: `claim${i}-${isolation}`,
          template_version_id: pooled.version,
          template_version_preset_id: presetId,
        });
        if (!agents.some((agent) => agent.workspace_id === claimed.id)) {
          // It became ready after the list was read: follow it now (the stream's opening still sees the claim).
          late++;
          for (;;) {
            const { rows } = await q(
              'SELECT workspace_id, id, sealed_token FROM $S.workspace_agents WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 1',
              [claimed.id],
            );
            if (rows[0]) {
              follow(rows[0]);
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
        const arrived = await event;
        if (arrived.workspaceId !== claimed.id) throw new Error('the event reached another workspace');
        latencies.push(arrived.at - t0);
        for (const request of requests) request.destroy();
        // The claimed workspace's agent is not needed any more: keep the machine's process count flat.
        const pidText = await readFile(
          path.join(path.dirname(workspacesDir), 'workspace-state', claimed.id, 'agent.pid'),
          'utf8',
        ).catch(() => '');
        if (pidText) {
          try {
            process.kill(-Number(pidText), 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
      // Where a claim's time goes: waiting for a daemon, then the claim build on it.
      const { rows: phases } = await q(
        `SELECT extract(epoch FROM j.started_at - j.created_at) * 1000 AS queued,
                extract(epoch FROM j.completed_at - j.started_at) * 1000 AS ran
           FROM $S.workspace_builds b JOIN $S.provisioner_jobs j ON j.id = b.job_id
          WHERE b.is_claim AND b.template_version_id = $1 AND j.status = 'succeeded'`,
        [pooled.version],
      );
      const queued = phases.map((row: { queued: string }) => Number(row.queued));
      const ran = phases.map((row: { ran: string }) => Number(row.ran));
      console.log(
        `[WORKSPACE_ISOLATION=${isolation}] claim builds: queued p50 ${percentile(queued, 50).toFixed(1)} ms, on the daemon p50 ${percentile(ran, 50).toFixed(1)} ms`,
      );
      claimP50[isolation] = percentile(latencies, 50);
      console.log(
        `[WORKSPACE_ISOLATION=${isolation}] claim → reinit on ${db.embedded ? 'the same instance (embedded database)' : 'another instance'}, ${claims} claims: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (includes the claim build on a real provisioner; ${late} claims took a workspace that became ready after the followers opened)`,
      );
      provisioner.kill('SIGTERM');
      await new Promise((resolve) => provisioner.once('exit', resolve));
      // This mode's workspaces are done: end their agents before the next mode runs.
      for (const entry of await readdir(workspacesDir).catch(() => [] as string[])) {
        const pidText = await readFile(
          path.join(path.dirname(workspacesDir), 'workspace-state', entry, 'agent.pid'),
          'utf8',
        ).catch(() => '');
        if (pidText) {
          try {
            process.kill(-Number(pidText), 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
    }
    console.log(
      `isolation cost: build throughput ${(100 * (1 - throughput.auto! / throughput.none!)).toFixed(1)} % lower (limit 15 %), claim → reinit p50 +${(claimP50.auto! - claimP50.none!).toFixed(1)} ms (limit 20 ms)`,
    );

    // 3. Reinit followers on one instance: prebuilt-looking workspaces inserted directly, one stream each.
    const [org] = (await q(`SELECT uuid FROM $S.users WHERE lower_name = 'default'`)).rows;
    const tokens: string[] = [];
    await q('BEGIN');
    for (let i = 0; i < followers; i++) {
      const workspaceId = randomUUID();
      const jobId = randomUUID();
      const buildId = randomUUID();
      const resourceId = randomUUID();
      const agentId = randomUUID();
      const agentToken = randomUUID();
      tokens.push(agentToken);
      await q(
        `INSERT INTO $S.workspaces (id, owner_id, organization_id, template_id, name, lower_name)
         VALUES ($1, 'c42fdf75-3097-471c-8c33-fb52454d81c0', $2, $3, $4, $4)`,
        [workspaceId, org.uuid, pooled.id, `follow${i}`],
      );
      await q(
        `INSERT INTO $S.provisioner_jobs (id, organization_id, type, status, input, initiator_id)
         VALUES ($1, $2, 'workspace_build', 'succeeded', $3, 'c42fdf75-3097-471c-8c33-fb52454d81c0')`,
        [jobId, org.uuid, JSON.stringify({ workspace_build_id: buildId })],
      );
      await q(
        `INSERT INTO $S.workspace_builds (id, workspace_id, template_version_id, build_number, transition, initiator_id, job_id)
         VALUES ($1, $2, $3, 1, 'start', 'c42fdf75-3097-471c-8c33-fb52454d81c0', $4)`,
        [buildId, workspaceId, pooled.version, jobId],
      );
      await q(
        `INSERT INTO $S.workspace_resources (id, job_id, transition, type, name) VALUES ($1, $2, 'start', 'devplane_workspace', 'w')`,
        [resourceId, jobId],
      );
      await q(
        `INSERT INTO $S.workspace_agents (id, resource_id, workspace_id, token_hash, sealed_token) VALUES ($1, $2, $3, $4, 'unused')`,
        [agentId, resourceId, workspaceId, createHash('sha256').update(agentToken).digest('hex')],
      );
    }
    await q('COMMIT');
    const pid = b.child.pid!;
    const agentPool = new http.Agent({ keepAlive: true, maxSockets: followers + 10 });
    const before = await rss(pid);
    const open: http.ClientRequest[] = [];
    let opened = 0;
    await Promise.all(
      tokens.map(
        (agentToken) =>
          new Promise<void>((resolve, reject) => {
            const request = http.get(
              `${urlB}/api/v2/workspaceagents/me/reinit`,
              { headers: { 'Service-Session-Token': agentToken }, agent: agentPool },
              (response) => {
                if (response.statusCode !== 200) reject(new Error(`follower: HTTP ${response.statusCode}`));
                opened++;
                response.resume();
                resolve();
              },
            );
            request.on('error', reject);
            open.push(request);
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await rss(pid);
    console.log(
      `${opened} reinit followers on one instance: RSS +${((after - before) / 1024 / 1024).toFixed(1)} MiB = ${((after - before) / opened / 1024).toFixed(1)} KiB per follower`,
    );
    for (const request of open) request.destroy();
    agentPool.destroy();
  } finally {
    await stopAll(children);
    for (const entry of await readdir(workspacesDir).catch(() => [] as string[])) {
      const pidText = await readFile(
        path.join(path.dirname(workspacesDir), 'workspace-state', entry, 'agent.pid'),
        'utf8',
      ).catch(() => '');
      if (pidText) {
        try {
          process.kill(Number(pidText), 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
