import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedProvisioners } from '../../src/embedded-provisioners';
import { AgentCallsService } from '../../src/modules/workspaces/agent-calls.service';
import { resolveIsolation } from '../../src/provisioner/sandbox/launcher';
import type { CreatedUser } from '../helpers/factories';
import { killAgents, waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient, createTemplate, workspacesDirOf } from './helpers';

const ROOT = path.join(__dirname, '..', '..');

/** Every probe prints `name=yes` when the action succeeded, `name=no` when it failed. */
const PROBE = `
P() { if sh -c "$2" >/dev/null 2>&1; then echo "$1=yes"; else echo "$1=no"; fi; }
echo "uid=$(id -u)"
P secrets_abs "cat $PROBE_DATA/secrets.key"
P secrets_rel "cat ../../secrets.key"
P repo_read "cat $PROBE_DATA/repositories/probe.git/HEAD"
P repo_write "touch $PROBE_DATA/repositories/probe.git/pwned"
P data_listed "ls $PROBE_DATA | grep -qv '^workspaces$'"
P siblings_visible "ls $PROBE_DATA/workspaces | grep -qv \\"^$(basename "$PWD")$\\""
P server_kill "kill -0 $PROBE_SERVER_PID"
P server_environ "cat /proc/$PROBE_SERVER_PID/environ"
P shadow "cat /etc/shadow"
P own_files "echo hi > mine.txt && grep -q hi mine.txt"
P git "rm -rf g && git init -q g && cd g && git -c user.email=a@b.c -c user.name=a commit -q --allow-empty -m x"
`;

function probes(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^(\w+)=(.*)$/.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1]!, match[2]!]),
  );
}

/**
 * Issue 30 acceptance: two members' workspaces built by the built-in provisioner (in the server),
 * probed through the template's startup script and through the agent call a chat's `run_command`
 * tool makes. Needs root and bubblewrap (CI runs as root with `bubblewrap` installed).
 */
const isolation = resolveIsolation('auto');
const describeSandboxed = isolation.mode === 'sandbox' ? describe : describe.skip;
if (isolation.mode !== 'sandbox')
  process.stdout.write(
    `SKIPPED isolation.e2e-spec.ts: needs root and bubblewrap (Debian package bubblewrap): ${isolation.detail}\n`,
  );

describeSandboxed('workspace isolation (sandbox mode)', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let stop: () => Promise<void>;
  const client = coderClient(() => t.url!);

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        WORKSPACE_ISOLATION: 'sandbox',
        PROVISIONER_AGENT_COMMAND: JSON.stringify([
          process.execPath,
          '-r',
          require.resolve('@swc-node/register'),
          path.join(ROOT, 'src', 'agent.ts'),
        ]),
        DEVPLANE_AGENT_HEARTBEAT_MS: '500',
      },
    });
    const url = await t.listen();
    admin = await t.factories.admin({ username: 'isoadmin' });
    alice = await t.factories.user({ username: 'isoalice' });
    bob = await t.factories.user({ username: 'isobob' });
    // What a workspace must never reach: the secrets key file and a bare repository in DATA_DIR.
    mkdirSync(t.config.dataDir, { recursive: true });
    writeFileSync(path.join(t.config.dataDir, 'secrets.key'), 'SENTINEL-KEY\n', { mode: 0o600 });
    mkdirSync(path.join(t.config.dataDir, 'repositories'), { recursive: true });
    execFileSync('git', ['init', '-q', '--bare', path.join(t.config.dataDir, 'repositories', 'probe.git')]);
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

  async function readyWorkspace(owner: CreatedUser, templateId: string, name: string): Promise<string> {
    const created = await client.json(
      await client.api(owner.token, 'POST', '/api/v2/users/me/workspaces', { name, template_id: templateId }),
      201,
    );
    await waitFor(
      async () => {
        const current = await client.json(
          await client.api(owner.token, 'GET', `/api/v2/workspaces/${created.id}`),
          200,
        );
        const agent = current.latest_build.resources[0]?.agents[0];
        return agent?.lifecycle_state === 'ready' && agent.status === 'connected' ? true : undefined;
      },
      90_000,
      `${name} ready`,
    );
    return created.id as string;
  }

  it('runs each workspace as its own uid in a namespace without the server data, and the workspace still works', async () => {
    const serverPid = process.pid;
    const { templateId } = await createTemplate(client, admin.token, 'isolated', {
      files: { 'probe.sh': PROBE },
      env: { PROBE_DATA: t.config.dataDir, PROBE_SERVER_PID: String(serverPid) },
      startup_script: 'sh probe.sh > probe-startup.txt 2>&1',
    });
    const aliceWs = await readyWorkspace(alice, templateId, 'alice-ws');
    const bobWs = await readyWorkspace(bob, templateId, 'bob-ws');
    const dirOf = (id: string) => path.join(workspacesDirOf(t), id);

    const calls = t.app.get(AgentCallsService);
    const results: Record<string, Record<string, string>> = {};
    for (const [who, id] of [
      ['alice', aliceWs],
      ['bob', bobWs],
    ] as const) {
      results[`${who}-startup`] = probes(readFileSync(path.join(dirOf(id), 'probe-startup.txt'), 'utf8'));
      const viaTool = await calls.call(id, 'run_command', { command: 'sh probe.sh' }, 30_000);
      results[`${who}-tool`] = probes(viaTool.output);
    }
    const uids = new Set<string>();
    for (const [where, result] of Object.entries(results)) {
      expect({ where, ...result }).toEqual({
        where,
        uid: expect.stringMatching(/^\d+$/),
        secrets_abs: 'no',
        secrets_rel: 'no',
        repo_read: 'no',
        repo_write: 'no',
        data_listed: 'no',
        siblings_visible: 'no',
        server_kill: 'no',
        server_environ: 'no',
        shadow: 'no',
        own_files: 'yes',
        git: 'yes',
      });
      expect(Number(result.uid)).not.toBe(process.getuid!());
      uids.add(`${where.split('-')[0]}:${result.uid}`);
    }
    // One uid per workspace, the same through the startup script and the tool call.
    const aliceUid = Number(results['alice-startup']!.uid);
    const bobUid = Number(results['bob-startup']!.uid);
    expect(aliceUid).not.toBe(bobUid);
    expect(results['alice-tool']!.uid).toBe(String(aliceUid));
    expect(results['bob-tool']!.uid).toBe(String(bobUid));
    expect(aliceUid).toBeGreaterThanOrEqual(200000);

    // The directories are the workspaces' own, private (0700).
    const aliceStat = statSync(dirOf(aliceWs));
    expect(aliceStat.uid).toBe(aliceUid);
    expect(aliceStat.mode & 0o777).toBe(0o700);
    expect(statSync(dirOf(bobWs)).uid).toBe(bobUid);

    // Outside any namespace too, alice's uid cannot read or write bob's workspace.
    const asAlice = (command: string) =>
      spawnSync(
        'setpriv',
        ['--reuid', String(aliceUid), '--regid', String(aliceUid), '--clear-groups', 'sh', '-c', command],
        {
          stdio: 'ignore',
        },
      ).status;
    expect(asAlice(`ls ${dirOf(bobWs)}`)).not.toBe(0);
    expect(asAlice(`touch ${dirOf(bobWs)}/from-alice`)).not.toBe(0);
    // From alice's workspace (tool call) bob's directory does not even exist.
    const cross = await calls.call(aliceWs, 'run_command', { command: `ls ${dirOf(bobWs)}` }, 30_000);
    expect(cross.ok).toBe(false);

    // The uid is kept: the database holds it for each workspace.
    const rows = (await t.dataSource.query(
      'SELECT workspace_id, uid FROM workspace_os_identities WHERE workspace_id = ANY($1) ORDER BY uid',
      [[aliceWs, bobWs]],
    )) as { workspace_id: string; uid: number }[];
    expect(Object.fromEntries(rows.map((row) => [row.workspace_id, row.uid]))).toEqual({
      [aliceWs]: aliceUid,
      [bobWs]: bobUid,
    });
    // The server kept serving throughout (it is this process).
    expect((await fetch(`${t.url}/api/v2/buildinfo`)).status).toBe(200);
  }, 240_000);
});

describe('workspace isolation settings', () => {
  it('an unknown mode or uid range is refused at boot with the setting named', () => {
    const { loadWorkspacesConfig } = jest.requireActual<
      typeof import('../../src/modules/workspaces/workspaces.config')
    >('../../src/modules/workspaces/workspaces.config');
    expect(() => loadWorkspacesConfig({ WORKSPACE_ISOLATION: 'docker' })).toThrow(/WORKSPACE_ISOLATION/);
    expect(() => loadWorkspacesConfig({ WORKSPACE_UID_RANGE: '10-5' })).toThrow(/WORKSPACE_UID_RANGE/);
    expect(loadWorkspacesConfig({}).uidRange).toEqual({ first: 200000, last: 265535 });
    expect(loadWorkspacesConfig({ WORKSPACE_ISOLATION: 'none' }).isolation).toBe('none');
  });
});
