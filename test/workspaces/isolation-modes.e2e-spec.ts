import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BuiltinProvisioner } from '../../src/provisioner/builtin-provisioner';
import type { AcquiredJob, JobLog } from '../../src/provisioner/protocol';
import { spawnSync } from 'node:child_process';
import {
  isolationBanner,
  launch,
  resolveIsolation,
  type ResolvedIsolation,
} from '../../src/provisioner/sandbox/launcher';

/** Issue 30 item 4: the refusal without isolation and the boot log line naming the mode. */
describe('workspace isolation modes', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'iso-modes-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function startJob(siteOwner: boolean, uid?: number): AcquiredJob {
    return {
      job_id: '00000000-0000-4000-8000-000000000001',
      type: 'workspace_build',
      lease_ms: 30_000,
      template_version: { id: 'v', name: 'v', definition: { files: { 'a.txt': 'a' } } },
      workspace_build: {
        id: 'b',
        build_number: 1,
        transition: 'stop',
        workspace_id: '00000000-0000-4000-8000-0000000000aa',
        workspace_name: 'w',
        owner_id: 'o',
        owner_name: 'member',
        claim: false,
        agent: null,
        owner_site_owner: siteOwner,
        os_uid: uid,
      },
    };
  }

  it('without any isolation (not chosen) a member build is refused naming WORKSPACE_ISOLATION; a site owner and `none` pass', async () => {
    const noIsolation: ResolvedIsolation = {
      setting: 'auto',
      mode: 'none',
      detail: 'the server does not run as root',
      ownersOnly: true,
    };
    const provisioner = new BuiltinProvisioner({
      workspacesDir: dir,
      serverUrl: 'http://127.0.0.1:1',
      agentCommand: ['true'],
      isolation: noIsolation,
    });
    const logs: JobLog[] = [];
    const log = async (line: JobLog) => void logs.push(line);
    const member = startJob(false);
    member.workspace_build!.transition = 'start';
    await expect(provisioner.apply(member, log)).rejects.toThrow(/WORKSPACE_ISOLATION=none/);
    // Nothing was written for the refused build.
    expect(() => statSync(path.join(dir, member.workspace_build!.workspace_id))).toThrow();
    // A site owner's start build gets past the refusal (it then fails only for the missing agent).
    const owner = startJob(true);
    owner.workspace_build!.transition = 'start';
    await expect(provisioner.apply(owner, log)).rejects.toThrow(/without an agent/);
    const chosen = new BuiltinProvisioner({
      workspacesDir: dir,
      serverUrl: 'http://127.0.0.1:1',
      agentCommand: ['true'],
      isolation: resolveIsolation('none'),
    });
    const again = startJob(false);
    again.workspace_build!.transition = 'start';
    await expect(chosen.apply(again, log)).rejects.toThrow(/without an agent/);
  });

  it('the boot log line names the mode; none warns loudly', () => {
    expect(isolationBanner(resolveIsolation('none'))).toMatch(
      /WARNING: workspace isolation: none \(WORKSPACE_ISOLATION=none\)/,
    );
    expect(isolationBanner({ setting: 'auto', mode: 'none', detail: 'not root', ownersOnly: true })).toMatch(
      /WARNING: workspace isolation: none \(not root\).*site owners only/,
    );
    const auto = resolveIsolation('auto');
    // This host (CI runs as root with bubblewrap): the strongest mode, named in the line.
    expect(isolationBanner(auto)).toContain(`workspace isolation: ${auto.mode} (`);
    if (process.getuid?.() === 0) expect(auto.mode).not.toBe('none');
  });

  it('an explicit mode the host cannot give is an error naming the setting', () => {
    if (process.getuid?.() === 0) {
      expect(resolveIsolation('user').mode).toBe('user');
      return;
    }
    expect(() => resolveIsolation('user')).toThrow(/WORKSPACE_ISOLATION=user is not possible/);
  });
});

const unshareWorks =
  typeof process.getuid === 'function' &&
  process.getuid() === 0 &&
  spawnSync('unshare', ['--mount', '--pid', '--fork', '--mount-proc', 'true'], { stdio: 'ignore' }).status ===
    0;
if (!unshareWorks)
  process.stdout.write(
    'SKIPPED isolation-modes.e2e-spec.ts (user mode reaping): needs root and util-linux unshare\n',
  );

(unshareWorks ? describe : describe.skip)('the user mode', () => {
  it('reaps orphans inside the namespace (the workspace code is not PID 1), keeps stdin and the exit code', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'reap-'));
    try {
      // An orphan (its parent exits at once) ends 300 ms later; a second later no zombie may be left.
      const script = [
        "const cp = require('child_process');",
        'cp.execSync("sh -c \'sleep 0.3 & exit\'");',
        'setTimeout(() => {',
        '  const zombies = cp.execSync("grep -l \'State:.*Z\' /proc/[0-9]*/status 2>/dev/null | wc -l").toString().trim();',
        "  let input = ''; process.stdin.on('data', (c) => (input += c)).on('end', () => {",
        '    console.log(`pid ${process.pid} zombies ${zombies} stdin ${input.trim()}`); process.exit(7);',
        '  });',
        '}, 1300);',
      ].join('\n');
      const child = launch({
        command: process.execPath,
        args: ['-e', script],
        cwd: dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdio: ['pipe', 'pipe', 'pipe'],
        sandbox: { mode: 'user', workspaceDir: dir, identity: { uid: 0, gid: 0 }, dieWithParent: true },
      });
      child.stdin!.end('hello\n');
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      const [, pid, rest] = /^pid (\d+) (.*)$/.exec(out.trim()) ?? [];
      expect(Number(pid)).toBeGreaterThan(1);
      expect(rest).toBe('zombies 0 stdin hello');
      expect(code).toBe(7);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
