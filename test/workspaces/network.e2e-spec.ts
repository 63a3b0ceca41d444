import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startEmbeddedProvisioners } from '../../src/embedded-provisioners';
import { AgentCallsService } from '../../src/modules/workspaces/agent-calls.service';
import { resolveIsolation } from '../../src/provisioner/sandbox/launcher';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import {
  allowanceFrom,
  INSIDE_PORT,
  insideUrl,
  networkBanner,
  networkFrom,
  outboundRoutes,
} from '../../src/provisioner/sandbox/network';
import type { CreatedUser } from '../helpers/factories';
import { killAgents, waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient, createTemplate, workspacesDirOf } from './helpers';

const ROOT = path.join(__dirname, '..', '..');

/**
 * Issue 53 item 2: each sandbox has a network namespace of its own. From inside (the agent's command tool):
 * the host's loopback (the server's port, 5432, 6379) is out of reach, devplane is reached through
 * `$DEVPLANE_URL` (git clone with a token), and two workspaces listening on the same port do not see each other.
 */
const isolation = resolveIsolation('auto');
const slirp = spawnSync('slirp4netns', ['--version'], { stdio: 'ignore' });
const runnable = isolation.mode === 'sandbox' && !slirp.error && slirp.status === 0;
if (!runnable)
  process.stdout.write(
    `SKIPPED network.e2e-spec.ts: needs root, bubblewrap (Debian package bubblewrap) and slirp4netns (Debian package slirp4netns): ${
      isolation.mode === 'sandbox' ? 'slirp4netns is not installed' : isolation.detail
    }\n`,
  );
const describeIf = runnable ? describe : describe.skip;

/** Prints `open` when a TCP connection to host:port succeeds within 3 s, else `closed`. */
const connect = (host: string, port: number) =>
  `node -e "const s = require('net').connect(${port}, '${host}'); s.on('connect', () => { console.log('open'); process.exit(0); }); s.on('error', () => { console.log('closed'); process.exit(0); }); setTimeout(() => { console.log('closed'); process.exit(0); }, 3000);"`;

describe('workspace network settings', () => {
  it('outbound defaults on; false turns it off; nonsense is refused; the inside URL', () => {
    expect(networkFrom({}).outbound).toBe(true);
    expect(networkFrom({ WORKSPACE_NETWORK_OUTBOUND: 'false' }).outbound).toBe(false);
    expect(() => networkFrom({ WORKSPACE_NETWORK_OUTBOUND: 'maybe' })).toThrow(/WORKSPACE_NETWORK_OUTBOUND/);
    expect(insideUrl('http://127.0.0.1:3000')).toBe(`http://127.0.0.1:${INSIDE_PORT}/`);
    expect(insideUrl('http://[::1]:3000/dev/')).toBe(`http://127.0.0.1:${INSIDE_PORT}/dev/`);
  });

  it('closes every non-public range but what WEBHOOK_ALLOWED_HOST_LIST opens, and the host itself always', () => {
    const closed = outboundRoutes(allowanceFrom({}), ['192.0.2.10']);
    for (const range of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'])
      expect(closed).toContain(`route add unreachable ${range}`);
    expect(closed).toContain('route replace unreachable 192.0.2.10/32');
    expect(closed.some((line) => line.includes('127.0.0.0/8'))).toBe(false);

    const cidr = outboundRoutes(
      allowanceFrom({ WEBHOOK_ALLOWED_HOST_LIST: 'external, 10.20.0.0/16, *.example.com' }),
      [],
    );
    expect(cidr).toContain('route add unreachable 10.0.0.0/8');
    expect(cidr).toContain('route replace 10.20.0.0/16 via 10.0.2.2 dev tap0');

    for (const open of ['private', '*']) {
      const routes = outboundRoutes(allowanceFrom({ WEBHOOK_ALLOWED_HOST_LIST: open }), ['192.0.2.10']);
      expect(routes).toEqual(['route replace unreachable 192.0.2.10/32']);
    }
    const banner = networkBanner({ outbound: true, slirp: true, router: false, allowed: allowanceFrom({}) });
    expect(banner).toMatch(/ip\) or util-linux \(nsenter\) is missing.*no outbound/);
  });
});

describeIf('workspace network namespace (sandbox mode)', () => {
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
        // One private range opened for workspaces (the webhooks' rule): routed, not unreachable.
        WEBHOOK_ALLOWED_HOST_LIST: '198.18.0.0/15',
      },
    });
    const url = await t.listen();
    admin = await t.factories.admin({ username: 'netadmin' });
    alice = await t.factories.user({ username: 'netalice' });
    bob = await t.factories.user({ username: 'netbob' });
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

  it('keeps the host loopback and other workspaces out of reach; devplane answers at $DEVPLANE_URL, git clone works', async () => {
    const serverPort = Number(new URL(t.url!).port);
    const { templateId } = await createTemplate(client, admin.token, 'networked', {
      // Each workspace listens on the same port 7000 and answers with its owner's name.
      startup_script: `nohup node -e "require('net').createServer((s) => s.end(process.env.DEVPLANE_WORKSPACE_OWNER + '\\n')).listen(7000, '127.0.0.1')" >/dev/null 2>&1 &`,
    });
    expect(
      (
        await fetch(`${t.url}/api/v1/user/repos`, {
          method: 'POST',
          headers: { Authorization: `token ${alice.token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'netapp', auto_init: true, default_branch: 'main', private: true }),
        })
      ).status,
    ).toBe(201);
    const aliceWs = await readyWorkspace(alice, templateId, 'alice-net');
    const bobWs = await readyWorkspace(bob, templateId, 'bob-net');
    const calls = t.app.get(AgentCallsService);
    const run = async (id: string, command: string): Promise<string> => {
      const result = await calls.call(id, 'run_command', { command }, 30_000);
      return result.output.trim();
    };

    expect(await run(aliceWs, 'echo "$DEVPLANE_URL"')).toBe(`http://127.0.0.1:${INSIDE_PORT}/`);
    // The host's loopback: the server's own port, PostgreSQL, Redis; also through slirp4netns' host address.
    for (const port of [serverPort, 5432, 6379]) {
      expect([port, await run(aliceWs, connect('127.0.0.1', port))]).toEqual([port, 'closed']);
      expect([port, await run(aliceWs, connect('10.0.2.2', port))]).toEqual([port, 'closed']);
    }
    // The rest of the host: its own addresses (a listener on 0.0.0.0) and the private ranges are unreachable.
    const hostAddress = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
    if (hostAddress) {
      const listener: Server = createServer((socket) => socket.end('host\n'));
      await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve));
      const port = (listener.address() as { port: number }).port;
      try {
        expect(await run(aliceWs, connect(hostAddress, port))).toBe('closed');
      } finally {
        listener.close();
      }
    }
    const errorOf = (host: string) =>
      `node -e "const s = require('net').connect(80, '${host}'); s.on('connect', () => { console.log('open'); process.exit(0); }); s.on('error', (e) => { console.log(e.code); process.exit(0); }); setTimeout(() => { console.log('timeout'); process.exit(0); }, 3000);"`;
    for (const host of ['192.168.255.254', '10.255.0.1', '172.31.255.254', '169.254.169.254'])
      expect([host, await run(aliceWs, errorOf(host))]).toEqual([host, 'EHOSTUNREACH']);
    // 198.18.0.0/15 is opened by the setting: routed to slirp4netns (this closed host then has no route either).
    expect(await run(aliceWs, 'ip route get 198.18.0.1 2>&1')).toMatch(/via 10\.0\.2\.2 dev tap0/);
    expect(await run(aliceWs, 'ip route get 198.20.0.1 2>&1')).toMatch(/via 10\.0\.2\.2 dev tap0/);
    expect(await run(aliceWs, 'ip route get 10.255.0.1 2>&1 || true')).not.toMatch(/via 10\.0\.2\.2/);
    // Devplane through the forwarder: the API and git over HTTP with a token.
    expect(
      await run(
        aliceWs,
        'node -e "fetch(process.env.DEVPLANE_URL + \'api/v2/buildinfo\').then((r) => console.log(r.status))"',
      ),
    ).toBe('200');
    const clone = await run(
      aliceWs,
      `git clone -q "$(echo "$DEVPLANE_URL" | sed "s#://#://netalice:${alice.token}@#")netalice/netapp.git" netapp && git -C netapp log --oneline | wc -l`,
    );
    expect(clone).toBe('1');
    // The repository is private: a wrong token is refused (the forwarder carries the credentials as they are).
    const refused = await calls.call(
      aliceWs,
      'run_command',
      {
        command: `GIT_TERMINAL_PROMPT=0 git clone -q "$(echo "$DEVPLANE_URL" | sed "s#://#://netalice:wrong@#")netalice/netapp.git" other`,
      },
      30_000,
    );
    expect(refused.ok).toBe(false);
    // Two workspaces on the same port: each sees its own listener only.
    expect(
      await run(aliceWs, `node -e "require('net').connect(7000, '127.0.0.1').pipe(process.stdout)"`),
    ).toBe('netalice');
    expect(await run(bobWs, `node -e "require('net').connect(7000, '127.0.0.1').pipe(process.stdout)"`)).toBe(
      'netbob',
    );
    // The server kept serving.
    expect((await fetch(`${t.url}/api/v2/buildinfo`)).status).toBe(200);
  }, 300_000);
});
