import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BuiltinProvisioner } from '../../src/provisioner/builtin-provisioner';
import type { AcquiredJob, JobLog } from '../../src/provisioner/protocol';
import {
  isolationBanner,
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
