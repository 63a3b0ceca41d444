import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { WebSocket } from 'ws';
import { DesktopGateway, DesktopStreamGateway } from '../../src/modules/chats/controllers/desktop.gateway';
import type { CreatedUser } from '../helpers/factories';
import { isAlive, killAgents, type ProvisionerProcess, waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import {
  agentToken,
  coderClient,
  type Json,
  workspacesDirOf,
  workspaceWithAgent,
} from '../workspaces/helpers';
import { resolveIsolation } from '../../src/provisioner/sandbox/launcher';

/** Xvfb and x11vnc from Debian's packages (`.ci/run` installs them); else the minimal RFB server. */
const REAL_VNC =
  process.env.DESKTOP_TEST_VNC !== 'minimal' &&
  spawnSync('sh', ['-c', 'command -v Xvfb && command -v x11vnc']).status === 0;

/**
 * A pid the desktop command wrote is a pid of the workspace's own pid namespace when isolation is on
 * (bubblewrap): find the host process whose innermost namespace pid it is and whose command line
 * names the program. Without a namespace the pid is the host's. Null when no such process lives.
 */
function hostPidOf(namespacePid: number, program: string): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const nspid = /^NSpid:\s+(.+)$/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      const pids = nspid?.trim().split(/\s+/).map(Number) ?? [];
      if (pids[pids.length - 1] !== namespacePid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(program)) return Number(entry);
    } catch {
      // the process ended while we looked
    }
  }
  return null;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function freeDisplay(): number {
  for (;;) {
    const display = 100 + Math.floor(Math.random() * 800);
    if (!existsSync(`/tmp/.X11-unix/X${display}`) && !existsSync(`/tmp/.X${display}-lock`)) return display;
  }
}

function vncCommand(): string {
  if (!REAL_VNC)
    return `exec node ${JSON.stringify(path.resolve(__dirname, '../fixtures/minimal-rfb-server.mjs'))}`;
  const display = freeDisplay();
  return [
    'echo $$ > vnc.pid',
    `Xvfb :${display} -screen 0 320x240x24 -nolisten tcp >/dev/null 2>&1 & echo $! > xvfb.pid`,
    `i=0; while [ ! -e /tmp/.X11-unix/X${display} ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done`,
    `exec x11vnc -display :${display} -rfbport "$DEVPLANE_VNC_PORT" -localhost -forever -shared -nopw -quiet >/dev/null 2>&1`,
  ].join('\n');
}

/** Reads exact byte counts from a WebSocket's binary frames, whatever their boundaries. */
class FrameReader {
  private buffered = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  readonly kinds: boolean[] = [];
  closed = false;

  constructor(socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.kinds.push(isBinary);
      this.buffered = Buffer.concat([this.buffered, data]);
      this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }

  async read(length: number): Promise<Buffer> {
    const deadline = Date.now() + 15_000;
    while (this.buffered.length < length) {
      if (this.closed) throw new Error('the desktop stream closed');
      if (Date.now() > deadline) throw new Error(`timed out reading ${length} bytes`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const out = this.buffered.subarray(0, length);
    this.buffered = this.buffered.subarray(length);
    return out;
  }
}

/** The RFB 3.8 handshake through the relay: version, security None, ClientInit, ServerInit. */
async function rfbHandshake(socket: WebSocket, reader: FrameReader) {
  const version = (await reader.read(12)).toString('latin1');
  socket.send(Buffer.from('RFB 003.008\n'));
  const count = (await reader.read(1))[0]!;
  const types = [...(await reader.read(count))];
  socket.send(Buffer.from([1]));
  const result = (await reader.read(4)).readUInt32BE(0);
  socket.send(Buffer.from([1])); // shared
  const init = await reader.read(24);
  const name = (await reader.read(init.readUInt32BE(20))).toString('utf8');
  return { version, types, result, width: init.readUInt16BE(0), height: init.readUInt16BE(2), name };
}

function open(url: string, token: string): Promise<{ socket: WebSocket; reader: FrameReader }> {
  const socket = new WebSocket(url, { headers: { 'Service-Session-Token': token } });
  const reader = new FrameReader(socket);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, reader }));
    socket.once('error', reject);
  });
}

/** An upgrade refused with an HTTP error: its status and Coder's message. */
function refusal(url: string, token: string): Promise<{ status: number; message: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { 'Service-Session-Token': token } });
    socket.once('open', () => {
      socket.close();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('error', () => undefined);
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, message: (JSON.parse(body) as Json).message }),
      );
    });
  });
}

/**
 * The desktop stream (issue 19.9): the RFB bytes of a real VNC server in the chat's workspace, started
 * by the agent from the template's VNC command, relayed through the agent as binary frames.
 */
describe('chat desktop stream', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let provisioner: ProvisionerProcess;
  let workspaceId: string;
  let chatId: string;
  let configId: string;
  const client = coderClient(() => t.url!);
  const desktopUrl = (chat: string, tail = 'desktop') =>
    `${t.url!.replace('http', 'ws')}/api/experimental/chats/${chat}/${tail}`;
  const workspaceDir = () => path.join(workspacesDirOf(t), workspaceId, 'desk');
  const PID_FILES = {
    'vnc.pid': 'x11vnc',
    'xvfb.pid': 'Xvfb',
    'minimal-rfb.pid': 'minimal-rfb-server',
  } as const;
  /** The host pid of the process a pid file names (null when it is gone): see hostPidOf. */
  const pidFromFile = (file: keyof typeof PID_FILES): number | null => {
    const pidFile = path.join(workspaceDir(), file);
    if (!existsSync(pidFile)) return null;
    return hostPidOf(Number(readFileSync(pidFile, 'utf8')), PID_FILES[file]);
  };
  const killVnc = () => {
    for (const file of Object.keys(PID_FILES) as (keyof typeof PID_FILES)[]) {
      const pid = pidFromFile(file);
      if (pid !== null && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  };

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        EXPERIMENTS: 'agents',
        CHAT_RUNNER_ENABLED: 'false',
        AI_GATEWAY_PROVIDERS: JSON.stringify([
          { name: 'fake', type: 'openai', base_url: 'http://127.0.0.1:9/v1', key: 'sk-fake' },
        ]),
      },
    });
    await t.listen();
    admin = await t.factories.admin({ username: 'deskadmin' });
    alice = await t.factories.user({ username: 'deskalice' });
    ({ provisioner, workspaceId } = await workspaceWithAgent(t, {
      adminToken: admin.token,
      ownerToken: alice.token,
      name: 'desk',
      definition: {
        directory: 'desk',
        env: { DEVPLANE_VNC_PORT: String(await freePort()) },
        vnc_command: vncCommand(),
      },
    }));
    configId = (
      await client.json(
        await client.api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'fake',
          model: 'fake-model',
        }),
        201,
      )
    ).id;
    chatId = (
      await client.json(
        await client.api(alice.token, 'POST', '/api/experimental/chats', {
          model_config_id: configId,
          workspace_id: workspaceId,
          content: [{ type: 'text', text: 'show me the desktop' }],
        }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    killVnc();
    await provisioner?.kill('SIGKILL');
    killAgents(workspacesDirOf(t));
    await t?.close();
  });

  it(`relays the RFB handshake of ${REAL_VNC ? 'x11vnc on Xvfb' : 'the minimal RFB server'} in binary frames, both ways, and again on a second connection`, async () => {
    const gateway = t.app.get(DesktopGateway);
    const streamGateway = t.app.get(DesktopStreamGateway);
    // Issue 30: with isolation on (root with bubblewrap, as in CI) the desktop runs in the sandbox, as the workspace's uid.
    if (resolveIsolation('auto').mode !== 'none')
      expect(statSync(workspaceDir()).uid).not.toBe(process.getuid!());
    for (const tail of ['desktop', 'stream/desktop']) {
      const { socket, reader } = await open(desktopUrl(chatId, tail), alice.token);
      const handshake = await rfbHandshake(socket, reader);
      expect(handshake.version).toBe('RFB 003.008\n');
      expect(handshake.types).toContain(1);
      expect(handshake.result).toBe(0);
      expect({ width: handshake.width, height: handshake.height }).toEqual({ width: 320, height: 240 });
      expect(handshake.name.length).toBeGreaterThan(0);
      expect(reader.kinds.length).toBeGreaterThan(0);
      expect(reader.kinds.every(Boolean)).toBe(true);
      expect(gateway.open + streamGateway.open).toBe(1);
      socket.close();
      await waitFor(() => (reader.closed ? true : undefined), 5_000, 'the client socket closed');
      await waitFor(
        () => (gateway.open + streamGateway.open === 0 ? true : undefined),
        5_000,
        'the relay ended',
      );
    }
  });

  it("Coder's preconditions before the upgrade: no workspace 400, another user 404, a narrow token 403", async () => {
    const plain = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        content: [{ type: 'text', text: 'no workspace' }],
      }),
      201,
    );
    expect(await refusal(desktopUrl(plain.id), alice.token)).toEqual({
      status: 400,
      message: 'Chat has no workspace.',
    });
    const bob = await t.factories.user({ username: 'deskbob' });
    expect((await refusal(desktopUrl(chatId), bob.token)).status).toBe(404);
    // A key that may read the chat and the workspace but not connect to it: 403; one that cannot see the workspace: 400.
    const narrow = await t.factories.token(alice.user, { scopes: ['chat:read', 'workspace:read'] });
    expect(await refusal(desktopUrl(chatId), narrow)).toEqual({ status: 403, message: 'Forbidden.' });
    const chatOnly = await t.factories.token(alice.user, { scopes: ['chat:read'] });
    expect(await refusal(desktopUrl(chatId), chatOnly)).toEqual({
      status: 400,
      message: 'Chat workspace not found.',
    });
    const agentRoute = `${t.url!.replace('http', 'ws')}/api/v2/workspaceagents/me/desktop/00000000-0000-4000-8000-000000000000`;
    // The agents' side of the stream takes only agent tokens (devplane's socket convention: close 4401).
    const userOnAgentRoute = new WebSocket(agentRoute, { headers: { 'Service-Session-Token': alice.token } });
    const code = await new Promise<number>((resolve) => userOnAgentRoute.once('close', resolve));
    expect(code).toBe(4401);
    // An agent token for a session nobody waits for: 404.
    const token = await agentToken(t, workspaceId);
    expect((await refusal(agentRoute, token)).status).toBe(404);
  });

  it('a stopped workspace has no eligible agent (400); the agent ended the desktop it started', async () => {
    const pidFile = REAL_VNC ? 'vnc.pid' : 'minimal-rfb.pid';
    const vncPid = pidFromFile(pidFile);
    expect(vncPid).not.toBeNull();
    expect(isAlive(vncPid!)).toBe(true);
    await client.json(
      await client.api(alice.token, 'POST', `/api/v2/workspaces/${workspaceId}/builds`, {
        transition: 'stop',
      }),
      201,
    );
    await waitFor(
      async () => {
        const workspace = await client.json(
          await client.api(alice.token, 'GET', `/api/v2/workspaces/${workspaceId}`),
          200,
        );
        return workspace.latest_build.job.status === 'succeeded' ? true : undefined;
      },
      60_000,
      'the stop build',
    );
    expect(await refusal(desktopUrl(chatId), alice.token)).toEqual({
      status: 400,
      message: 'No eligible agent found for chat workspace.',
    });
    await waitFor(
      () => (pidFromFile(pidFile) === null ? true : undefined),
      15_000,
      'the VNC server ended with its agent',
    );
  });
});
