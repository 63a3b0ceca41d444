import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedProvisioners } from '../../src/embedded-provisioners';
import { AgentCallsService } from '../../src/modules/workspaces/agent-calls.service';
import { processesOfUid } from '../../src/provisioner/builtin-provisioner';
import { strongestIsolation } from '../../src/provisioner/sandbox/launcher';
import { detectCgroups } from '../../src/provisioner/sandbox/limits';
import type { CreatedUser } from '../helpers/factories';
import { killAgents, waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient, createTemplate, workspacesDirOf } from './helpers';

const ROOT = path.join(__dirname, '..', '..');

/**
 * Issue 53 item 3, as the attack run does it through a member's workspace on a running server: a fork bomb,
 * a 1 GiB write to `/tmp` and a 4 GiB allocation end inside the workspace while the server's `/healthz`
 * keeps answering; a workspace directory beyond `WORKSPACE_DISK_LIMIT_MB` is stopped (a `stop` build) and no
 * process of it remains. Runs in the strongest mode the machine has (`sandbox` with bubblewrap, else `user`).
 */
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const strongest = root ? strongestIsolation() : { mode: 'none', detail: 'not root' };
const cgroups = root && strongest.mode !== 'none' ? detectCgroups() : { version: 0 as const, parents: {} };
const runnable = strongest.mode !== 'none' && cgroups.parents.memory && cgroups.parents.pids;
if (!runnable)
  process.stdout.write(
    `SKIPPED containment.e2e-spec.ts: needs root, bubblewrap (Debian package bubblewrap) or util-linux namespaces, and writable memory and pids cgroups (${strongest.detail})\n`,
  );
const describeIf = runnable ? describe : describe.skip;

describeIf(`workspace containment on a running server (${strongest.mode} mode)`, () => {
  let t: TestApp;
  let admin: CreatedUser;
  let member: CreatedUser;
  let stop: () => Promise<void>;
  const client = coderClient(() => t.url!);

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        WORKSPACE_ISOLATION: 'auto',
        PROVISIONER_AGENT_COMMAND: JSON.stringify([
          process.execPath,
          '-r',
          require.resolve('@swc-node/register'),
          path.join(ROOT, 'src', 'agent.ts'),
        ]),
        DEVPLANE_AGENT_HEARTBEAT_MS: '500',
        WORKSPACE_MEMORY_LIMIT_MB: '1024',
        WORKSPACE_PIDS_LIMIT: '256',
        WORKSPACE_TMP_SIZE_MB: '256',
        WORKSPACE_DISK_LIMIT_MB: '200',
        WORKSPACE_DISK_CHECK_SECONDS: '1',
      },
    });
    const url = await t.listen();
    admin = await t.factories.admin({ username: 'boxadmin' });
    member = await t.factories.user({ username: 'boxmember' });
    stop = startEmbeddedProvisioners(
      t.app,
      { ...t.config, env: { ...t.config.env, PROVISIONER_DAEMONS: '1' } },
      false,
      Number(new URL(url).port),
    );
  }, 120_000);

  afterAll(async () => {
    await stop?.();
    killAgents(workspacesDirOf(t));
    await t.close();
  });

  it('a fork bomb, a full /tmp and a 4 GiB allocation stay inside; /healthz answers throughout; the disk limit stops the workspace', async () => {
    const { templateId } = await createTemplate(client, admin.token, 'hostile', {});
    const created = await client.json(
      await client.api(member.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'hostile',
        template_id: templateId,
      }),
      201,
    );
    const workspaceId = created.id as string;
    const latest = async () =>
      (await client.json(await client.api(member.token, 'GET', `/api/v2/workspaces/${workspaceId}`), 200))
        .latest_build;
    await waitFor(
      async () => {
        const agent = (await latest()).resources[0]?.agents[0];
        return agent?.lifecycle_state === 'ready' && agent.status === 'connected' ? true : undefined;
      },
      90_000,
      'agent ready',
    );
    const calls = t.app.get(AgentCallsService);
    const run = async (command: string): Promise<string> =>
      (await calls.call(workspaceId, 'run_command', { command }, 60_000)).output.trim();
    const uid = Number(await run('id -u'));
    expect(uid).toBeGreaterThan(0);

    // /healthz polled all along: every answer is a 200 (the slowest is printed, not asserted).
    let polling = true;
    let slowest = 0;
    const failures: string[] = [];
    const poller = (async () => {
      while (polling) {
        const started = Date.now();
        try {
          const response = await fetch(`${t.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
          if (response.status !== 200) failures.push(`status ${response.status}`);
          await response.body?.cancel();
        } catch (error) {
          failures.push(String(error));
        }
        slowest = Math.max(slowest, Date.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    // 1 GiB into /tmp stops at its 256 MiB.
    const tmp = await run(
      'dd if=/dev/zero of=/tmp/fill bs=1M count=1024 2>/dev/null; du -m /tmp/fill | cut -f1',
    );
    expect(Number(tmp)).toBeLessThanOrEqual(256);
    await run('rm -f /tmp/fill');
    // 4 GiB of memory in a 1 GiB workspace: the allocating process is killed (137), the agent lives on.
    const alloc = await run(
      `node -e 'const a = []; for (let i = 0; i < 64; i++) a.push(Buffer.alloc(64 * 1024 * 1024, 1)); console.log("allocated")' >/dev/null 2>&1; echo $?`,
    );
    expect(alloc).not.toBe('0');
    expect(await run('echo alive')).toBe('alive');
    // A fork bomb, left running: bounded by the workspace's 256 processes.
    await calls
      .call(
        workspaceId,
        'run_command',
        { command: "nohup sh -c 'b() { b | b & }; b' >/dev/null 2>&1 &" },
        30_000,
      )
      .catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(processesOfUid(uid).length).toBeLessThanOrEqual(256);

    // The workspace directory beyond 200 MiB: the disk watch stops the workspace (a `stop` build, autostop).
    const dir = path.join(workspacesDirOf(t), workspaceId);
    // Written from outside as the workspace would (the fork bomb holds every process slot inside).
    const { spawnSync } = await import('node:child_process');
    spawnSync('dd', ['if=/dev/zero', `of=${path.join(dir, 'big')}`, 'bs=1M', 'count=240'], {
      stdio: 'ignore',
    });
    spawnSync('chown', [`${uid}:${uid}`, path.join(dir, 'big')]);
    const stopped = await waitFor(
      async () => {
        const build = await latest();
        return build.transition === 'stop' && build.job.status === 'succeeded' ? build : undefined;
      },
      60_000,
      'stopped for the disk limit',
    );
    expect(stopped.reason).toBe('autostop');
    await waitFor(
      async () => (processesOfUid(uid).length === 0 ? true : undefined),
      30_000,
      'no process left',
    );
    const log = readFileSync(
      path.join(t.config.dataDir, 'workspace-state', workspaceId, 'agent.log'),
      'utf8',
    );
    expect(log).toMatch(/beyond WORKSPACE_DISK_LIMIT_MB=200: workspace stopped/);

    polling = false;
    await poller;
    process.stdout.write(
      `containment: slowest /healthz during the attacks ${slowest} ms (${strongest.mode} mode)\n`,
    );
    expect(failures).toEqual([]);
  }, 300_000);
});
