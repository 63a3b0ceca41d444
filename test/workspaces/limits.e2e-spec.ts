import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BuiltinProvisioner } from '../../src/provisioner/builtin-provisioner';
import type { AcquiredJob, JobLog } from '../../src/provisioner/protocol';
import { resolveIsolation, strongestIsolation } from '../../src/provisioner/sandbox/launcher';
import { DiskWatch } from '../../src/provisioner/sandbox/disk-watch';
import { detectCgroups, limitsBanner, limitsFrom } from '../../src/provisioner/sandbox/limits';

/** Issue 53 item 3: a full /tmp, a big allocation and a fork bomb end inside the workspace. */
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const strongest = root ? strongestIsolation() : { mode: 'none', detail: 'not root' };
const cgroups = root && strongest.mode !== 'none' ? detectCgroups() : { version: 0 as const, parents: {} };
const runnable = root && strongest.mode !== 'none' && cgroups.parents.memory && cgroups.parents.pids;
if (!runnable)
  process.stdout.write(
    `SKIPPED limits.e2e-spec.ts: needs root, bubblewrap or util-linux namespaces, and writable memory and pids cgroups (${strongest.detail})\n`,
  );
const describeIf = runnable ? describe : describe.skip;

describe('workspace limits settings', () => {
  it('defaults, explicit values and refusals', () => {
    expect(limitsFrom({})).toEqual({
      memoryBytes: 2048 * 1024 * 1024,
      pids: 512,
      cpuWeight: 100,
      tmpBytes: 512 * 1024 * 1024,
      diskBytes: 10_240 * 1024 * 1024,
      diskCheckMs: 60_000,
    });
    expect(limitsFrom({ WORKSPACE_PIDS_LIMIT: '64', WORKSPACE_TMP_SIZE_MB: '16' })).toMatchObject({
      pids: 64,
      tmpBytes: 16 * 1024 * 1024,
    });
    expect(() => limitsFrom({ WORKSPACE_MEMORY_LIMIT_MB: '-1' })).toThrow(/WORKSPACE_MEMORY_LIMIT_MB/);
    expect(() => limitsFrom({ WORKSPACE_PIDS_LIMIT: 'many' })).toThrow(/WORKSPACE_PIDS_LIMIT/);
    expect(limitsBanner(limitsFrom({}), { version: 0, parents: {} })).toMatch(
      /workspace limits: \/tmp 512 MiB \(tmpfs\); not enforced \(no writable cgroup controller\): memory, pids, cpu/,
    );
  });
});

describe('workspace directory size watch', () => {
  it('hands over the running workspaces beyond the limit only, and refuses a bad setting', async () => {
    const state = mkdtempSync(path.join(os.tmpdir(), 'diskwatch-'));
    const ids = ['00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000a2'];
    const stopped = '00000000-0000-4000-8000-0000000000a3';
    try {
      for (const id of [...ids, stopped, 'not-a-workspace']) mkdirSync(path.join(state, id));
      const sizes: Record<string, number> = { [ids[0]!]: 50, [ids[1]!]: 150, [stopped]: 500 };
      const over: [string, number][] = [];
      const watch = new DiskWatch({
        workspacesDir: '/workspaces',
        stateDir: state,
        limitBytes: 100,
        intervalMs: 1000,
        running: (id) => id !== stopped,
        measure: async (dir) => sizes[path.basename(dir)] ?? null,
        onOver: async (id, used) => void over.push([id, used]),
      });
      expect(await watch.check()).toEqual([ids[1]]);
      expect(over).toEqual([[ids[1], 150]]);
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
    expect(limitsFrom({ WORKSPACE_DISK_LIMIT_MB: '64', WORKSPACE_DISK_CHECK_SECONDS: '5' })).toMatchObject({
      diskBytes: 64 * 1024 * 1024,
      diskCheckMs: 5000,
    });
    expect(() => limitsFrom({ WORKSPACE_DISK_LIMIT_MB: 'lots' })).toThrow(/WORKSPACE_DISK_LIMIT_MB/);
    expect(limitsBanner(limitsFrom({ WORKSPACE_DISK_LIMIT_MB: '0' }), { version: 0, parents: {} })).toMatch(
      /workspace directory size: not limited \(WORKSPACE_DISK_LIMIT_MB=0\)/,
    );
  });
});

describeIf('workspace limits (issue 53)', () => {
  let base: string;
  const uid = 250_000 + (process.pid % 10_000);
  const workspaceId = '00000000-0000-4000-8000-00000000053b';

  beforeAll(() => {
    base = mkdtempSync(path.join(os.tmpdir(), 'limits-'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('a full /tmp, a 400 MB allocation and a fork bomb end inside the workspace', async () => {
    const dataDir = path.join(base, 'data');
    const limits = {
      memoryBytes: 192 * 1024 * 1024,
      pids: 48,
      cpuWeight: 100,
      tmpBytes: 16 * 1024 * 1024,
      diskBytes: 0,
      diskCheckMs: 60_000,
    };
    const provisioner = new BuiltinProvisioner({
      workspacesDir: path.join(dataDir, 'workspaces'),
      serverUrl: 'http://127.0.0.1:1',
      agentCommand: ['true'],
      isolation: resolveIsolation('auto'),
      hidden: [dataDir],
      limits,
      cgroups,
    });
    const logs: JobLog[] = [];
    const script = [
      'dd if=/dev/zero of=/tmp/big bs=1M count=64 2>/dev/null; echo "tmp $(( $(stat -c %s /tmp/big) / 1048576 ))"',
      `${process.execPath} -e 'const a = []; for (let i = 0; i < 40; i++) a.push(Buffer.alloc(1e7, 1))' >/dev/null 2>&1; echo "alloc $?"`,
      // Without a limit every fork succeeds (0); in the workspace's pids cgroup the shell cannot fork (2).
      '( for i in $(seq 200); do sleep 20 & done ) 2>/dev/null; echo "bomb $?"',
    ].join('\n');
    const job = {
      job_id: '00000000-0000-4000-8000-000000000054',
      type: 'workspace_build',
      lease_ms: 30_000,
      template_version: { id: 'v', name: 'v', definition: { provision_script: script } },
      workspace_build: {
        id: 'b',
        build_number: 1,
        transition: 'start',
        workspace_id: workspaceId,
        workspace_name: 'w',
        owner_id: 'o',
        owner_name: 'member',
        claim: false,
        agent: null,
        owner_site_owner: false,
        os_uid: uid,
      },
    } as unknown as AcquiredJob;
    // The script ends; the build then fails for the missing agent.
    await provisioner.apply(job, async (line) => void logs.push(line)).catch(() => undefined);
    const output = logs.filter((line) => line.stage === 'Provision script' && line.level === 'info');
    const value = (name: string) =>
      Number(output.find((line) => line.output.startsWith(`${name} `))?.output.split(' ')[1]);
    expect(value('tmp')).toBeLessThanOrEqual(16);
    expect(value('alloc')).not.toBe(0);
    expect(value('bomb')).not.toBe(0);
    job.workspace_build!.transition = 'delete';
    await provisioner.apply(job, async () => undefined);
  });
});
