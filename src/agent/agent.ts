import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import { createWebSocketStream, WebSocket } from 'ws';
import { launch } from '../provisioner/sandbox/launcher';
import { AgentStreams } from './agent-streams';
import { AppHealthRunner, type HealthcheckedApp } from './app-health';
import { listeningPorts } from './listening-ports';
import { type MetadataItem, MetadataRunner } from './metadata';

export interface AgentOptions {
  url: string;
  token: string;
  directory: string;
  heartbeatMs: number;
  /** Wait before following the reinit stream again after it ended. */
  reinitRetryMs: number;
  /** A port-forward style listener (0 = any free port); off when undefined. */
  listenPort?: number;
  /** Where the agent writes what it is doing (tests and operators read it). */
  stateFile?: string;
  log: (message: string) => void;
}

interface Manifest {
  agent_id: string;
  workspace_id: string;
  owner_id: string;
  owner_name: string;
  environment_variables: Record<string, string>;
  startup_script: string;
  apps: ({ slug: string; url?: string } & HealthcheckedApp)[];
  /** The template's command that starts a VNC server on DEVPLANE_VNC_PORT (empty: no desktop). */
  vnc_command?: string;
  /** The template's metadata items (metadata.ts). */
  metadata?: MetadataItem[];
}

/** Where the desktop's VNC server listens unless the workspace's environment sets DEVPLANE_VNC_PORT. */
export const DEFAULT_VNC_PORT = 5900;
const VNC_START_MS = 15_000;

function connectTcp(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      // Until the relay takes it over, an error only ends the connection (never the agent).
      socket.on('error', () => socket.destroy());
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

export const AGENT_VERSION = '0.1.0';

/**
 * The workspace agent: reports its start-up and lifecycle, heartbeats, serves sessions (a TCP
 * port-forward listener whose sessions go to the connection log) and follows the reinit stream: a
 * new owner re-runs the start steps, the same owner again is ignored, 409 ends the following (the
 * agent keeps running).
 */
export class WorkspaceAgent {
  private owner: string | null = null;
  private readonly state = {
    pid: process.pid,
    owner_id: null as string | null,
    owner_name: null as string | null,
    initializations: 0,
    reinit_events: 0,
    ignored_reinit_events: 0,
    reinit_connections: 0,
    following_reinit: true,
    lifecycle: 'created',
    listen_port: null as number | null,
  };
  private readonly stopping = new AbortController();
  private heartbeat: NodeJS.Timeout | undefined;
  private server: net.Server | undefined;
  private manifestData: Manifest | undefined;
  /** The desktop's VNC server, started on the first desktop stream (a process group: killed with the agent). */
  private vnc: ChildProcess | undefined;
  private readonly appHealth: AppHealthRunner;
  /** Sessions the server opens into the workspace (reconnecting PTYs): agent-streams.ts. */
  private readonly streams: AgentStreams;
  private readonly metadata: MetadataRunner;

  constructor(private readonly options: AgentOptions) {
    this.streams = new AgentStreams({
      url: options.url,
      token: options.token,
      directory: options.directory,
      env: () => this.manifestData?.environment_variables ?? {},
      log: options.log,
      ptyIdleMs: Number.parseInt(process.env.DEVPLANE_AGENT_PTY_IDLE_MS ?? '', 10) || undefined,
    });
    this.appHealth = new AppHealthRunner(
      (healths) => this.send('/api/v2/workspaceagents/me/app-health', { healths }),
      options.log,
    );
    this.metadata = new MetadataRunner(
      options.directory,
      () => this.manifestData?.environment_variables ?? {},
      (metadata) => this.send('/api/v2/workspaceagents/me/metadata', { metadata }),
      options.log,
    );
  }

  private async call(method: string, route: string, body?: unknown): Promise<Response> {
    return fetch(new URL(route, this.options.url), {
      method,
      headers: {
        'Service-Session-Token': this.options.token,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: this.stopping.signal,
    });
  }

  private async send(route: string, body: unknown): Promise<void> {
    const response = await this.call('POST', route, body);
    await response.body?.cancel();
    if (!response.ok) throw new Error(`${route}: HTTP ${response.status}`);
  }

  private save(): void {
    if (!this.options.stateFile) return;
    try {
      mkdirSync(path.dirname(this.options.stateFile), { recursive: true });
      writeFileSync(this.options.stateFile, JSON.stringify(this.state, null, 2));
    } catch {
      // the state file is informational
    }
  }

  private async retrying<T>(what: string, work: () => Promise<T>): Promise<T> {
    let delay = 200;
    for (;;) {
      try {
        return await work();
      } catch (error) {
        if (this.stopping.signal.aborted) throw error;
        this.options.log(`${what} failed: ${String(error)}; retrying in ${delay} ms`);
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 10_000);
      }
    }
  }

  async start(): Promise<void> {
    await this.retrying('startup report', () =>
      this.send('/api/v2/workspaceagents/me/startup', {
        version: AGENT_VERSION,
        operating_system: process.platform,
        architecture: process.arch,
        directory: this.options.directory,
      }),
    );
    // The provisioner waits for this line in the agent's log (a build never says `running` with a dead agent).
    this.options.log('connected to the server: start-up reported');
    const manifest = await this.retrying('manifest', () => this.manifest());
    await this.initialize(manifest);
    this.heartbeat = setInterval(() => {
      this.send('/api/v2/workspaceagents/me/heartbeat', {}).catch((error: unknown) =>
        this.options.log(`heartbeat failed: ${String(error)}`),
      );
    }, this.options.heartbeatMs);
    if (this.options.listenPort !== undefined) await this.listen(this.options.listenPort);
    void this.followReinit();
    void this.serveCalls();
  }

  /** Long-polls the calls the server sends into the workspace (chat tools) and answers each. */
  private async serveCalls(): Promise<void> {
    let delay = 500;
    while (!this.stopping.signal.aborted) {
      try {
        const response = await this.call('GET', '/api/v2/workspaceagents/me/calls?wait_ms=25000');
        if (!response.ok) throw new Error(`calls: HTTP ${response.status}`);
        const calls = (await response.json()) as {
          id: string;
          tool: string;
          arguments: Record<string, unknown>;
        }[];
        delay = 500;
        for (const call of calls) {
          const route = `/api/v2/workspaceagents/me/calls/${call.id}/result`;
          // Issue 53: output with NUL or other control bytes arrives escaped; a result the server still
          // refuses is answered with the reason, so the chat never waits out its timeout.
          const answer = (result: { ok: boolean; output: string; exit_code?: number }) =>
            this.send(route, { ...result, output: escapeControlBytes(result.output) }).catch(
              (error: unknown) => {
                this.options.log(`call result not delivered: ${String(error)}`);
                return this.send(route, {
                  ok: false,
                  output: `the tool's result was not accepted: ${String(error)}`,
                }).catch(() => undefined);
              },
            );
          // A desktop may take seconds to start: it does not hold up the calls behind it.
          if (call.tool === 'desktop_open') void this.openDesktop(call.arguments).then(answer);
          else if (call.tool === 'stream_open') void this.streams.open(call.arguments).then(answer);
          else if (call.tool === 'listening_ports')
            await answer({ ok: true, output: JSON.stringify(await listeningPorts()) });
          else await answer(await runTool(this.options.directory, call.tool, call.arguments));
        }
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        this.options.log(`calls: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 15_000);
      }
    }
  }

  private async manifest(): Promise<Manifest> {
    const response = await this.call('GET', '/api/v2/workspaceagents/me/manifest');
    if (!response.ok) throw new Error(`manifest: HTTP ${response.status}`);
    this.manifestData = (await response.json()) as Manifest;
    return this.manifestData;
  }

  private vncPort(): number {
    const raw =
      this.manifestData?.environment_variables?.DEVPLANE_VNC_PORT ?? process.env.DEVPLANE_VNC_PORT ?? '';
    const port = Number.parseInt(raw, 10);
    return port > 0 && port < 65_536 ? port : DEFAULT_VNC_PORT;
  }

  /** A TCP connection to the desktop's VNC server, started with the template's vnc_command when nothing listens yet. */
  private async desktopConnection(): Promise<net.Socket> {
    const port = this.vncPort();
    try {
      return await connectTcp(port);
    } catch {
      // nothing listens yet
    }
    const command = this.manifestData?.vnc_command ?? '';
    if (command.trim() === '')
      throw new Error(`the template sets no vnc_command and nothing listens on the VNC port ${port}`);
    if (!this.vnc || this.vnc.exitCode !== null || this.vnc.signalCode !== null) {
      this.options.log(`starting the desktop (VNC port ${port})`);
      // The agent runs in the workspace's sandbox as its uid: its children inherit both.
      this.vnc = launch({
        command: 'sh',
        args: ['-c', command],
        cwd: this.options.directory,
        env: {
          ...process.env,
          ...this.manifestData?.environment_variables,
          DEVPLANE_VNC_PORT: String(port),
        },
        stdio: 'ignore',
        detached: true,
      });
      this.vnc.once('error', (error) => this.options.log(`the VNC command failed: ${error.message}`));
    }
    const vnc = this.vnc;
    const deadline = Date.now() + VNC_START_MS;
    for (;;) {
      try {
        return await connectTcp(port);
      } catch {
        if (vnc.exitCode !== null)
          throw new Error(
            `the VNC command exited with code ${vnc.exitCode} before listening on port ${port}`,
          );
        if (Date.now() > deadline)
          throw new Error(`the desktop did not listen on port ${port} within ${VNC_START_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    }
  }

  /**
   * `desktop_open`: connects to the desktop's VNC server and dials the server's WebSocket for the
   * session, then relays bytes both ways (binary frames) until either side closes.
   */
  private async openDesktop(args: Record<string, unknown>): Promise<{ ok: boolean; output: string }> {
    const session = typeof args.session === 'string' ? args.session : '';
    if (!/^[0-9a-f-]{36}$/i.test(session)) return { ok: false, output: 'the desktop session is not valid' };
    let tcp: net.Socket;
    try {
      tcp = await this.desktopConnection();
    } catch (error) {
      return { ok: false, output: error instanceof Error ? error.message : String(error) };
    }
    const url = new URL(`/api/v2/workspaceagents/me/desktop/${session}`, this.options.url);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(url, { headers: { 'Service-Session-Token': this.options.token } });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
        socket.once('unexpected-response', (_request, response) =>
          reject(new Error(`the server refused the desktop stream: HTTP ${response.statusCode}`)),
        );
      });
    } catch (error) {
      tcp.destroy();
      socket.terminate();
      return { ok: false, output: error instanceof Error ? error.message : String(error) };
    }
    const stream = createWebSocketStream(socket);
    const end = (): void => {
      tcp.destroy();
      stream.destroy();
    };
    tcp.on('error', end).on('close', end);
    stream.on('error', end).on('close', end);
    tcp.pipe(stream).pipe(tcp);
    return { ok: true, output: `desktop on port ${this.vncPort()}` };
  }

  /** The start steps: lifecycle starting, the owner's marker, the startup script, lifecycle ready. */
  private async initialize(manifest: Manifest): Promise<void> {
    this.owner = manifest.owner_id;
    this.appHealth.start(manifest.apps ?? []);
    this.metadata.start(manifest.metadata ?? []);
    await this.lifecycle('starting');
    // The owner marker lives beside the agent's state (the workspace's `.devplane`).
    if (this.options.stateFile) {
      try {
        mkdirSync(path.dirname(this.options.stateFile), { recursive: true });
        writeFileSync(
          path.join(path.dirname(this.options.stateFile), 'owner.json'),
          JSON.stringify({ owner_id: manifest.owner_id, owner_name: manifest.owner_name }) + '\n',
        );
      } catch (error) {
        this.options.log(`owner marker not written: ${String(error)}`);
      }
    }
    let ok = true;
    if (manifest.startup_script.trim() !== '') ok = await this.runScript(manifest);
    this.state.owner_id = manifest.owner_id;
    this.state.owner_name = manifest.owner_name;
    this.state.initializations++;
    await this.lifecycle(ok ? 'ready' : 'start_error', manifest.owner_id);
  }

  private runScript(manifest: Manifest): Promise<boolean> {
    return new Promise((resolve) => {
      const child = launch({
        command: 'sh',
        args: ['-c', manifest.startup_script],
        cwd: this.options.directory,
        env: {
          ...process.env,
          ...manifest.environment_variables,
          DEVPLANE_WORKSPACE_OWNER: manifest.owner_name,
        },
        stdio: 'inherit',
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5 * 60_000);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code === 0);
      });
      child.once('error', () => resolve(false));
    });
  }

  private async lifecycle(state: string, ownerId?: string): Promise<void> {
    this.state.lifecycle = state;
    this.save();
    await this.retrying(`lifecycle ${state}`, () =>
      this.send('/api/v2/workspaceagents/me/lifecycle', ownerId ? { state, owner_id: ownerId } : { state }),
    );
  }

  /** Follows `GET /workspaceagents/me/reinit` until 409 or shutdown. */
  private async followReinit(): Promise<void> {
    let delay = this.options.reinitRetryMs;
    while (!this.stopping.signal.aborted) {
      try {
        this.state.reinit_connections++;
        this.save();
        const response = await this.call('GET', '/api/v2/workspaceagents/me/reinit?wait=true');
        if (response.status === 409) {
          await response.body?.cancel();
          this.options.log('not a prebuilt workspace: no reinitialization to follow');
          this.state.following_reinit = false;
          this.save();
          return;
        }
        if (!response.ok || !response.body) throw new Error(`reinit: HTTP ${response.status}`);
        const events: string[] = [];
        const parser = createParser({
          onEvent: (event) => (event.event === 'data' ? events.push(event.data) : undefined),
        });
        const decoder = new TextDecoder();
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
          while (events.length > 0) await this.onReinit(events.shift()!);
        }
        delay = this.options.reinitRetryMs;
      } catch (error) {
        if (this.stopping.signal.aborted) return;
        this.options.log(`reinit stream: ${String(error)}`);
        delay = Math.min(delay * 2, 30_000);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  private async onReinit(data: string): Promise<void> {
    let event: { user_id?: string; owner_id?: string; reason?: string };
    try {
      event = JSON.parse(data) as typeof event;
    } catch {
      return;
    }
    const owner = event.user_id || event.owner_id || '';
    this.state.reinit_events++;
    if (owner === this.owner) {
      this.state.ignored_reinit_events++;
      this.save();
      this.options.log(`reinit for the same owner ${owner}: ignored`);
      return;
    }
    this.options.log(`reinit (${event.reason ?? ''}) for owner ${owner}: re-initializing`);
    await this.initialize(await this.retrying('manifest', () => this.manifest()));
  }

  /** A port-forward style listener: each TCP session is echoed and logged as a connection. */
  private async listen(port: number): Promise<void> {
    this.server = net.createServer((socket) => {
      const id = randomUUID();
      const report = (action: 'connect' | 'disconnect') =>
        this.send('/api/v2/workspaceagents/me/connections', {
          id,
          action,
          type: 'port_forwarding',
          ip: socket.remoteAddress ?? undefined,
          slug_or_port: String(this.state.listen_port ?? port),
          ...(action === 'disconnect' ? { reason: 'closed', code: 0 } : {}),
        }).catch((error: unknown) => this.options.log(`connection log failed: ${String(error)}`));
      const opened = report('connect');
      socket.pipe(socket);
      socket.once('close', () => void opened.then(() => report('disconnect')));
      socket.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.state.listen_port = (this.server.address() as net.AddressInfo).port;
    this.save();
  }

  /** SIGTERM: shutting_down, off, a clean disconnection. */
  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    this.server?.close();
    this.streams.close();
    this.metadata.stop();
    this.appHealth.stop();
    if (this.vnc?.pid && this.vnc.exitCode === null) {
      try {
        process.kill(-this.vnc.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    try {
      await this.send('/api/v2/workspaceagents/me/lifecycle', { state: 'shutting_down' });
      await this.send('/api/v2/workspaceagents/me/lifecycle', { state: 'off' });
      await this.send('/api/v2/workspaceagents/me/heartbeat', { disconnect: true });
    } catch {
      // the server may be gone or the token already retired
    }
    this.stopping.abort();
  }
}

export function agentOptionsFromEnv(env: NodeJS.ProcessEnv): AgentOptions {
  const url = env.DEVPLANE_URL;
  const token = env.DEVPLANE_AGENT_TOKEN;
  if (!url || !token) throw new Error('DEVPLANE_URL and DEVPLANE_AGENT_TOKEN are required');
  const listen = env.DEVPLANE_AGENT_LISTEN;
  return {
    url,
    token,
    directory: path.resolve(env.DEVPLANE_AGENT_DIR ?? process.cwd()),
    heartbeatMs: Number.parseInt(env.DEVPLANE_AGENT_HEARTBEAT_MS ?? '15000', 10) || 15_000,
    reinitRetryMs: Number.parseInt(env.DEVPLANE_AGENT_REINIT_RETRY_MS ?? '5000', 10) || 5_000,
    listenPort: listen === undefined || listen === '' ? undefined : Number.parseInt(listen, 10) || 0,
    stateFile: env.DEVPLANE_AGENT_STATE,
    log: (message) => process.stdout.write(`${new Date().toISOString()} [${os.hostname()}] ${message}\n`),
  };
}

const OUTPUT_LIMIT = 1024 * 1024;

/**
 * Tool output as text every JSON parser and the server accept: NUL and the other C0 control characters
 * (tab, newline and carriage return kept) and DEL become `\xHH`, a lone surrogate becomes U+FFFD.
 */
export function escapeControlBytes(text: string): string {
  return text
    .replace(
      // eslint-disable-next-line no-control-regex -- finding exactly these characters is the point
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g,
      (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
    )
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** One tool in the workspace directory: paths are relative to it; a command runs with `sh -c` and a timeout. */
export async function runTool(
  root: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ ok: boolean; output: string; exit_code?: number }> {
  const { mkdir, readFile, readdir, writeFile } = await import('node:fs/promises');
  const target = (value: unknown): string => path.resolve(root, typeof value === 'string' ? value : '.');
  try {
    switch (tool) {
      case 'read_file':
        return { ok: true, output: (await readFile(target(args.path), 'utf8')).slice(0, OUTPUT_LIMIT) };
      case 'write_file': {
        const file = target(args.path);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, typeof args.content === 'string' ? args.content : '');
        return { ok: true, output: `wrote ${path.relative(root, file)}` };
      }
      case 'list_directory': {
        const entries = await readdir(target(args.path), { withFileTypes: true });
        return {
          ok: true,
          output: entries
            .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
            .sort()
            .join('\n'),
        };
      }
      case 'run_command': {
        const timeout = Math.min(Math.max(Number(args.timeout_ms ?? 60_000) || 60_000, 100), 600_000);
        return await new Promise((resolve) => {
          const child = launch({
            command: 'sh',
            args: ['-c', typeof args.command === 'string' ? args.command : 'true'],
            cwd: root,
            env: process.env,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let output = '';
          const append = (chunk: Buffer) => {
            if (output.length < OUTPUT_LIMIT) output += chunk.toString('utf8');
          };
          child.stdout!.on('data', append);
          child.stderr!.on('data', append);
          const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
          child.once('close', (code, signal) => {
            clearTimeout(timer);
            resolve({
              ok: code === 0,
              output: signal ? `${output}\n(killed after ${timeout} ms)` : output,
              exit_code: code ?? -1,
            });
          });
          child.once('error', (error) => {
            clearTimeout(timer);
            resolve({ ok: false, output: error.message, exit_code: -1 });
          });
        });
      }
      case 'git_scan':
        return {
          ok: true,
          output: JSON.stringify(
            await gitScan(root, Array.isArray(args.paths) ? args.paths.map(String) : ['.']),
          ),
        };
      default:
        return { ok: false, output: `unknown tool ${tool}` };
    }
  } catch (error) {
    return { ok: false, output: error instanceof Error ? error.message : String(error) };
  }
}

const DIFF_LIMIT = 3 * 1024 * 1024;

function git(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = launch({
      command: 'git',
      args,
      cwd,
      env: process.env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      if (out.length < DIFF_LIMIT) out += chunk.toString('utf8');
    });
    child.once('close', (code) => resolve({ code: code ?? -1, out }));
    child.once('error', () => resolve({ code: -1, out: '' }));
  });
}

/**
 * The git repositories holding `paths` (relative to the workspace): each one's root, branch, origin and
 * its whole unified diff against HEAD, untracked files included (combined diffs capped at 3 MiB).
 */
export async function gitScan(
  root: string,
  paths: string[],
): Promise<{ repo_root: string; branch: string; remote_origin: string; unified_diff: string }[]> {
  const { stat } = await import('node:fs/promises');
  const roots = new Set<string>();
  for (const relative of paths) {
    let dir = path.resolve(root, relative);
    const info = await stat(dir).catch(() => null);
    if (!info) dir = path.dirname(dir);
    else if (!info.isDirectory()) dir = path.dirname(dir);
    const top = await git(dir, ['rev-parse', '--show-toplevel']).catch(() => ({ code: -1, out: '' }));
    if (top.code === 0) roots.add(top.out.trim());
  }
  const out = [];
  let budget = DIFF_LIMIT;
  for (const repo of [...roots].sort()) {
    const branch = (await git(repo, ['symbolic-ref', '--short', 'HEAD'])).out.trim();
    const origin = (await git(repo, ['config', '--get', 'remote.origin.url'])).out.trim();
    const hasHead = (await git(repo, ['rev-parse', '--verify', '-q', 'HEAD'])).code === 0;
    let diff = (
      await git(repo, hasHead ? ['diff', 'HEAD', '--no-color'] : ['diff', '--cached', '--no-color'])
    ).out;
    const untracked = (await git(repo, ['ls-files', '--others', '--exclude-standard', '-z'])).out
      .split('\0')
      .filter(Boolean);
    for (const file of untracked.sort())
      diff += (await git(repo, ['diff', '--no-color', '--no-index', '--', '/dev/null', file])).out;
    if (diff.length > budget) diff = diff.slice(0, Math.max(0, budget));
    budget -= diff.length;
    out.push({ repo_root: repo, branch, remote_origin: origin, unified_diff: diff });
  }
  return out;
}
