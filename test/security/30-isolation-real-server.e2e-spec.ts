import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { resolveIsolation } from '../../src/provisioner/sandbox/launcher';
import { fakeOpenAi, type FakeProvider } from '../helpers/fake-ai-providers';
import { waitFor } from '../helpers/provisioner-process';
import { coderClient, createTemplate, type Json } from '../workspaces/helpers';
import { type MainProcess, startMain } from './helpers/server-main';

jest.setTimeout(240_000);

const ADMIN = {
  ADMIN_USERNAME: 'root30a',
  ADMIN_EMAIL: 'root30a@example.com',
  ADMIN_PASSWORD: 'Root-30-Accept-Pass-x',
};

/** Every probe prints `name=yes` when the action succeeded, `name=no` when it failed. */
const PROBE = `
P() { if sh -c "$2" >/dev/null 2>&1; then echo "$1=yes"; else echo "$1=no"; fi; }
echo "uid=$(id -u)"
P secrets_abs "cat $PROBE_DATA/secrets.key"
P secrets_rel "cat ../../../secrets.key"
P node_works "node -e 0"
P repo_read "cat $PROBE_DATA/repositories/probe.git/HEAD"
P repo_write "touch $PROBE_DATA/repositories/probe.git/pwned"
P pglite_files "ls $PROBE_DATA/pglite | grep -q ."
P pglite_version "cat $PROBE_DATA/pglite/PG_VERSION"
P db_socket "node -e \\"require('net').connect(process.argv[1]).on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))\\" $PROBE_SOCKET"
P sibling_read "ls $PROBE_OTHER"
P sibling_write "touch $PROBE_OTHER/from-a-neighbour"
P server_kill "kill -0 $PROBE_SERVER_PID"
P server_environ "cat /proc/$PROBE_SERVER_PID/environ"
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

const EXPECTED = {
  node_works: 'yes',
  secrets_abs: 'no',
  secrets_rel: 'no',
  repo_read: 'no',
  repo_write: 'no',
  pglite_files: 'no',
  pglite_version: 'no',
  db_socket: 'no',
  sibling_read: 'no',
  sibling_write: 'no',
  server_kill: 'no',
  server_environ: 'no',
  own_files: 'yes',
  git: 'yes',
};

const hostIsolation = resolveIsolation('auto');
const describeSandboxed = hostIsolation.mode === 'sandbox' ? describe : describe.skip;
if (hostIsolation.mode !== 'sandbox')
  process.stdout.write(
    `SKIPPED 30-isolation-real-server.e2e-spec.ts: needs root and bubblewrap (Debian package bubblewrap): ${hostIsolation.detail}\n`,
  );

/**
 * Issue 30 acceptance on the real server (src/main.ts) as an operator starts it: the embedded
 * database in DATA_DIR (its files and its Unix socket there), the built-in provisioner on by
 * default, isolation `auto` (sandbox as root with bubblewrap, as in CI). Two members' workspaces are
 * probed through the template's startup script and through a chat whose model (a fake OpenAI
 * provider on loopback) calls the `run_command` tool.
 */
describeSandboxed('security 30: two members’ workspaces on the real server', () => {
  let root = '';
  let dataDir = '';
  let server: MainProcess | undefined;
  let provider: FakeProvider;
  let url = '';
  const client = coderClient(() => url);

  const login = async (email: string, password: string): Promise<string> =>
    (await client.json(await client.api('', 'POST', '/api/v2/users/login', { email, password }), 201))
      .session_token;

  beforeAll(async () => {
    provider = await fakeOpenAi();
    root = await mkdtemp(path.join(os.tmpdir(), 'dp-30-acc-'));
    dataDir = path.join(root, 'data');
    server = await startMain({
      ...ADMIN,
      DATA_DIR: dataDir,
      EXPERIMENTS: 'agents',
      AI_GATEWAY_PROVIDERS: JSON.stringify([
        { name: 'fake', type: 'openai', base_url: `${provider.url}/v1`, key: 'sk-fake' },
      ]),
      DEVPLANE_AGENT_HEARTBEAT_MS: '500',
    });
    url = server.url;
  });

  afterAll(async () => {
    await server?.stop('SIGTERM');
    // The agents are detached sandboxes: end them with their process groups.
    for (const entry of existsSync(path.join(dataDir, 'workspaces'))
      ? readdirSync(path.join(dataDir, 'workspaces'))
      : []) {
      try {
        const pid = Number(readFileSync(path.join(dataDir, 'workspace-state', entry, 'agent.pid'), 'utf8'));
        process.kill(-pid, 'SIGKILL');
      } catch {
        // not running
      }
    }
    await provider?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('each workspace has its own uid and reaches neither the server’s data nor the other; the server keeps serving', async () => {
    const serverPid = server!.pid;
    expect(server!.output()).toMatch(/workspace isolation: sandbox/);
    const adminToken = await login(ADMIN.ADMIN_EMAIL, ADMIN.ADMIN_PASSWORD);
    const defaultOrg = (
      await client.json(await client.api(adminToken, 'GET', '/api/v2/organizations/default'), 200)
    ).id as string;
    const member = async (name: string): Promise<string> => {
      await client.json(
        await client.api(adminToken, 'POST', '/api/v2/users', {
          email: `${name}@example.com`,
          username: name,
          password: `${name}-Pass-Word-30`,
          login_type: 'password',
          organization_ids: [defaultOrg],
        }),
        201,
      );
      return login(`${name}@example.com`, `${name}-Pass-Word-30`);
    };
    const alice = await member('alice30');
    const bob = await member('bob30');

    // What a workspace must never reach, beside the database the server made: a bare repository.
    mkdirSync(path.join(dataDir, 'repositories'), { recursive: true, mode: 0o700 });
    execFileSync('git', ['init', '-q', '--bare', path.join(dataDir, 'repositories', 'probe.git')]);
    expect(existsSync(path.join(dataDir, 'secrets.key'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
    const socket = path.join(dataDir, '.s.PGSQL.5432');
    expect(existsSync(socket)).toBe(true);

    // Each workspace probes the other's directory: the template names it by owner (written after both exist).
    const { templateId } = await createTemplate(client, adminToken, 'isolated30', {
      directory: 'w',
      files: { 'w/probe.sh': PROBE },
      env: { PROBE_DATA: dataDir, PROBE_SERVER_PID: String(serverPid), PROBE_SOCKET: socket },
      startup_script: 'sh probe.sh > probe-startup.txt 2>&1; echo done > probe-finished.txt',
    });
    const workspace = async (token: string, name: string): Promise<string> => {
      const created = await client.json(
        await client.api(token, 'POST', '/api/v2/users/me/workspaces', { name, template_id: templateId }),
        201,
      );
      await waitFor(
        async () => {
          const current = await client.json(
            await client.api(token, 'GET', `/api/v2/workspaces/${created.id}`),
            200,
          );
          const agent = current.latest_build.resources[0]?.agents[0];
          return agent?.lifecycle_state === 'ready' && agent.status === 'connected' ? true : undefined;
        },
        120_000,
        `${name} ready`,
      );
      return created.id as string;
    };
    const aliceWs = await workspace(alice, 'alice-ws');
    const bobWs = await workspace(bob, 'bob-ws');
    const dirOf = (id: string): string => path.join(dataDir, 'workspaces', id);
    const other = { [aliceWs]: dirOf(bobWs), [bobWs]: dirOf(aliceWs) };

    // Through the startup script (PROBE_OTHER is given per run below; the startup run used an empty one,
    // so its sibling probes are only the tool's).
    const startup: Record<string, Record<string, string>> = {};
    for (const [who, id] of [
      ['alice', aliceWs],
      ['bob', bobWs],
    ] as const) {
      await waitFor(
        async () => (existsSync(path.join(dirOf(id), 'w', 'probe-finished.txt')) ? true : undefined),
        60_000,
        `${who}'s startup script`,
      );
      startup[who] = probes(readFileSync(path.join(dirOf(id), 'w', 'probe-startup.txt'), 'utf8'));
      const { sibling_read: _read, sibling_write: _write, ...rest } = EXPECTED;
      expect({ who, ...startup[who] }).toMatchObject({ who, uid: expect.stringMatching(/^\d+$/), ...rest });
    }

    // Through a chat: the fake model calls run_command in the member's workspace.
    const configId = (
      await client.json(
        await client.api(adminToken, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'fake',
          model: 'fake-model',
          input_price_per_million_tokens: '1',
        }),
        201,
      )
    ).id;
    const viaChat = async (token: string, workspaceId: string): Promise<Record<string, string>> => {
      provider.script.push(
        {
          toolCalls: [
            {
              id: `call_${workspaceId.slice(0, 8)}`,
              name: 'run_command',
              arguments: JSON.stringify({ command: `PROBE_OTHER=${other[workspaceId]} sh probe.sh` }),
            },
          ],
        },
        { text: 'Probed.' },
      );
      const chat = await client.json(
        await client.api(token, 'POST', '/api/experimental/chats', {
          model_config_id: configId,
          workspace_id: workspaceId,
          content: [{ type: 'text', text: 'probe the sandbox' }],
        }),
        201,
      );
      await waitFor(
        async () => {
          const current = await client.json(
            await client.api(token, 'GET', `/api/experimental/chats/${chat.id}`),
            200,
          );
          if (current.status === 'error') throw new Error(`chat failed: ${JSON.stringify(current)}`);
          return current.status === 'waiting' ? true : undefined;
        },
        60_000,
        'chat turn',
      );
      const messages = (
        await client.json(await client.api(token, 'GET', `/api/experimental/chats/${chat.id}/messages`), 200)
      ).messages as Json[];
      const result = messages
        .flatMap((message: Json) => message.content as Json[])
        .find((part: Json) => part.type === 'tool-result');
      expect(result).toBeDefined();
      return probes(String(result.output));
    };
    const tool = { alice: await viaChat(alice, aliceWs), bob: await viaChat(bob, bobWs) };
    for (const who of ['alice', 'bob'] as const)
      expect({ who, ...tool[who] }).toEqual({ who, uid: startup[who]!.uid, ...EXPECTED });

    // A uid per workspace, neither the server's nor the other's.
    const aliceUid = Number(tool.alice.uid);
    const bobUid = Number(tool.bob.uid);
    expect(aliceUid).not.toBe(bobUid);
    for (const uid of [aliceUid, bobUid]) expect(uid).not.toBe(process.getuid!());

    // Outside any namespace too, alice's uid can neither read nor write bob's workspace, nor DATA_DIR.
    const asAlice = (command: string): number | null =>
      spawnSync(
        'setpriv',
        ['--reuid', String(aliceUid), '--regid', String(aliceUid), '--clear-groups', 'sh', '-c', command],
        { stdio: 'ignore' },
      ).status;
    expect(asAlice(`ls ${dirOf(bobWs)}`)).not.toBe(0);
    expect(asAlice(`touch ${dirOf(bobWs)}/from-alice`)).not.toBe(0);
    expect(asAlice(`cat ${path.join(dataDir, 'secrets.key')}`)).not.toBe(0);
    expect(asAlice(`cat ${path.join(dataDir, 'pglite', 'PG_VERSION')}`)).not.toBe(0);

    // The same server process served throughout.
    expect(server!.pid).toBe(serverPid);
    expect(() => process.kill(serverPid, 0)).not.toThrow();
    expect((await fetch(`${url}/api/v2/buildinfo`)).status).toBe(200);
    writeFileSync(path.join(root, 'done'), 'ok');
  });
});
