import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';

import os from 'node:os';
import path from 'node:path';
import { BuiltinProvisioner, processesOfUid } from '../../src/provisioner/builtin-provisioner';
import type { AcquiredJob, JobLog } from '../../src/provisioner/protocol';
import { resolveIsolation, strongestIsolation } from '../../src/provisioner/sandbox/launcher';

/**
 * Issue 53 item 1: the provisioner (root) never writes through a path the workspace controls. The three
 * channels of the attack run: `.devplane` swapped for a link before a restart, a template file swapped for a
 * link, and `.devplane` swapped by the template's provision script during the first build. A root-only
 * canary outside DATA_DIR must stay as it was.
 */
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const strongest = root ? strongestIsolation() : { mode: 'none', detail: 'not root' };
const runnable = root && strongest.mode !== 'none';
if (!runnable)
  process.stdout.write(
    `SKIPPED root-writes.e2e-spec.ts: needs root and bubblewrap or util-linux namespaces (${strongest.detail})\n`,
  );
const describeIf = runnable ? describe : describe.skip;

const CANARY = 'canary: root only\n';
const STATE_NAMES = [
  'workspace.json',
  'agent.log',
  'agent.pid',
  'owner.json',
  'agent-state.json',
  'README.md',
];

describeIf('the provisioner never writes through the workspace (issue 53)', () => {
  let base: string;
  let canaryDir: string;
  let workspacesDir: string;
  let provisioner: BuiltinProvisioner;
  const uid = 230_000 + (process.pid % 20_000);
  const workspaceId = '00000000-0000-4000-8000-00000000053a';
  const logs: JobLog[] = [];
  const log = async (line: JobLog): Promise<void> => void logs.push(line);

  function job(transition: 'start' | 'stop' | 'delete', provisionScript?: string): AcquiredJob {
    return {
      job_id: '00000000-0000-4000-8000-000000000053',
      type: 'workspace_build',
      lease_ms: 30_000,
      template_version: {
        id: 'v',
        name: 'v',
        definition: {
          directory: 'project',
          files: { 'project/README.md': '# template\n' },
          ...(provisionScript ? { provision_script: provisionScript } : {}),
        },
      },
      workspace_build: {
        id: 'b',
        build_number: 1,
        transition,
        workspace_id: workspaceId,
        workspace_name: 'w',
        owner_id: 'o',
        owner_name: 'member',
        claim: false,
        agent: { id: 'agent', token: 'token', name: 'main' },
        owner_site_owner: false,
        os_uid: uid,
      },
    } as AcquiredJob;
  }

  function expectCanaryUntouched(): void {
    for (const name of STATE_NAMES) {
      const file = path.join(canaryDir, name);
      expect(readFileSync(file, 'utf8')).toBe(CANARY);
      const stat = lstatSync(file);
      expect(stat.uid).toBe(0);
      expect(stat.mode & 0o777).toBe(0o600);
    }
    expect(lstatSync(canaryDir).uid).toBe(0);
    expect(lstatSync(canaryDir).mode & 0o777).toBe(0o700);
  }

  beforeAll(() => {
    base = mkdtempSync(path.join(os.tmpdir(), 'root-writes-'));
    // The canary lives outside the provisioner's data directory.
    canaryDir = path.join(base, 'canary');
    mkdirSync(canaryDir, { mode: 0o700 });
    chmodSync(canaryDir, 0o700);
    for (const name of STATE_NAMES) writeFileSync(path.join(canaryDir, name), CANARY, { mode: 0o600 });
    const dataDir = path.join(base, 'data');
    workspacesDir = path.join(dataDir, 'workspaces');
    provisioner = new BuiltinProvisioner({
      workspacesDir,
      serverUrl: 'http://127.0.0.1:1',
      // A stand-in agent: it says it connected and waits.
      agentCommand: ['sh', '-c', 'trap "exit 0" TERM; echo "connected to the server"; sleep 600 & wait'],
      isolation: resolveIsolation('auto'),
      hidden: [dataDir],
      agentConnectTimeoutMs: 60_000,
    });
  });

  afterAll(async () => {
    await provisioner.apply(job('delete'), log).catch(() => undefined);
    rmSync(base, { recursive: true, force: true });
  });

  it('channel 1: `.devplane` swapped for a link, then stop and start: nothing is written through it', async () => {
    await provisioner.apply(job('start'), log);
    const dir = provisioner.workspaceDir(workspaceId);
    expect(lstatSync(dir).uid).toBe(uid);
    expect(lstatSync(path.join(dir, 'project', 'README.md')).uid).toBe(uid);
    // The provisioner's own state is root's, outside the workspace.
    const state = provisioner.stateDir(workspaceId);
    expect(lstatSync(state).uid).toBe(0);
    expect(lstatSync(state).mode & 0o777).toBe(0o700);
    expect(readFileSync(path.join(state, 'agent.log'), 'utf8')).toContain('connected to the server');
    await provisioner.apply(job('stop'), log);
    rmSync(path.join(dir, '.devplane'), { recursive: true, force: true });
    symlinkSync(canaryDir, path.join(dir, '.devplane'));
    await provisioner.apply(job('start'), log);
    expectCanaryUntouched();
    await provisioner.apply(job('stop'), log);
    expect(processesOfUid(uid)).toEqual([]);
  });

  it('channel 2: a template file swapped for a link: the link is replaced, the target untouched', async () => {
    const dir = provisioner.workspaceDir(workspaceId);
    rmSync(path.join(dir, 'project', 'README.md'));
    symlinkSync(path.join(canaryDir, 'README.md'), path.join(dir, 'project', 'README.md'));
    await provisioner.apply(job('start'), log);
    expectCanaryUntouched();
    expect(lstatSync(path.join(dir, 'project', 'README.md')).isSymbolicLink()).toBe(false);
    expect(readFileSync(path.join(dir, 'project', 'README.md'), 'utf8')).toBe('# template\n');
    await provisioner.apply(job('stop'), log);
  });

  it('channel 3: the provision script swaps `.devplane` during the first build: nothing is written through it', async () => {
    await provisioner.apply(job('delete'), log);
    await provisioner.apply(
      job(
        'start',
        `mkdir -p .devplane && mv .devplane .old && ln -s ${canaryDir} .devplane && ln -s ${canaryDir}/agent.log agent.log`,
      ),
      log,
    );
    expectCanaryUntouched();
    expect(lstatSync(path.join(provisioner.workspaceDir(workspaceId), '.devplane')).isSymbolicLink()).toBe(
      true,
    );
  });

  it('stop and delete end every process of the workspace, also one that left the agent’s process group', async () => {
    // A process of the workspace's uid that is not in the agent's group (as a daemonizing script leaves).
    const { spawn } = await import('node:child_process');
    const stray = spawn('setsid', ['sleep', '600'], { uid, gid: uid, detached: true, stdio: 'ignore' });
    stray.unref();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesOfUid(uid).length).toBeGreaterThan(0);
    await provisioner.apply(job('delete'), log);
    expect(processesOfUid(uid)).toEqual([]);
    expect(() => lstatSync(provisioner.workspaceDir(workspaceId))).toThrow();
    expect(() => lstatSync(provisioner.stateDir(workspaceId))).toThrow();
    expectCanaryUntouched();
  });
});
