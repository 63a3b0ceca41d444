import net from 'node:net';
import { createWebSocketStream, WebSocket } from 'ws';
import { DEFAULT_PTY_IDLE_MS, PtySessions } from './pty-sessions';

export interface AgentStreamsOptions {
  url: string;
  token: string;
  directory: string;
  env: () => Record<string, string>;
  log: (message: string) => void;
  ptyIdleMs?: number;
}

/** Bytes a `tcp` stream buffers before it pauses its source (the app's socket). */
const TCP_BUFFER = 1024 * 1024;

const SESSION = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * `stream_open` calls: the server asks the agent to dial the WebSocket
 * `GET /api/v2/workspaceagents/me/streams/{session}` (agent token) and serve one kind of session over
 * it. Kinds: `pty` (a reconnecting PTY, see pty-sessions.ts). The agent answers the call once the
 * socket is open; the server relays it to the user's socket (through PostgreSQL when the agent's
 * socket reached another server instance).
 */
export class AgentStreams {
  readonly pty: PtySessions;

  constructor(private readonly options: AgentStreamsOptions) {
    this.pty = new PtySessions({
      directory: options.directory,
      env: options.env,
      idleMs: options.ptyIdleMs ?? DEFAULT_PTY_IDLE_MS,
      log: options.log,
    });
  }

  private dial(session: string): Promise<WebSocket> {
    const url = new URL(`/api/v2/workspaceagents/me/streams/${session}`, this.options.url);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(url, {
      headers: { 'Service-Session-Token': this.options.token },
      perMessageDeflate: false,
      // Frames from a client are masked (RFC 6455) so that a browser script cannot craft bytes an
      // intermediary would misread; the agent is no browser and the workspace may open raw TCP anyway.
      // An all-zero key makes ws skip the XOR here and on the server (a copy and a pass over every byte).
      generateMask: (mask: Buffer) => mask.fill(0),
    });
    return new Promise((resolve, reject) => {
      socket.once('open', () => {
        socket.removeAllListeners('error');
        socket.on('error', () => socket.terminate());
        resolve(socket);
      });
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`the server refused the stream: HTTP ${response.statusCode}`)),
      );
    });
  }

  async open(args: Record<string, unknown>): Promise<{ ok: boolean; output: string }> {
    const session = typeof args.session === 'string' ? args.session : '';
    if (!SESSION.test(session)) return { ok: false, output: 'the stream session is not valid' };
    if (args.kind === 'tcp') return this.openTcp(session, args);
    if (args.kind !== 'pty') return { ok: false, output: `unknown stream kind ${String(args.kind)}` };
    const reconnect = typeof args.reconnect === 'string' ? args.reconnect : '';
    if (!SESSION.test(reconnect)) return { ok: false, output: 'the reconnect id is not valid' };
    let socket: WebSocket;
    try {
      socket = await this.dial(session);
    } catch (error) {
      return { ok: false, output: error instanceof Error ? error.message : String(error) };
    }
    try {
      await this.pty.attach(socket, {
        reconnect,
        width: Number(args.width) || 0,
        height: Number(args.height) || 0,
        command: typeof args.command === 'string' ? args.command : '',
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      socket.close(1011, message.slice(0, 120));
      return { ok: false, output: message };
    }
    return { ok: true, output: `pty ${reconnect}` };
  }

  /** A TCP connection to `{host, port}` inside the workspace, relayed over the stream's socket. */
  private async openTcp(
    session: string,
    args: Record<string, unknown>,
  ): Promise<{ ok: boolean; output: string }> {
    const host = typeof args.host === 'string' && /^[A-Za-z0-9.:-]{1,253}$/.test(args.host) ? args.host : '';
    const port = Number(args.port);
    if (host === '' || !Number.isInteger(port) || port < 1 || port > 65_535)
      return { ok: false, output: 'the host or port is not valid' };
    let tcp: net.Socket;
    try {
      tcp = await new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect({ host, port, noDelay: true });
        socket.once('connect', () => {
          socket.removeAllListeners('error');
          resolve(socket);
        });
        socket.once('error', reject);
      });
    } catch (error) {
      return {
        ok: false,
        output: `connect ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    let socket: WebSocket;
    try {
      socket = await this.dial(session);
    } catch (error) {
      tcp.destroy();
      return { ok: false, output: error instanceof Error ? error.message : String(error) };
    }
    // Large buffers: a 64 KiB read from the app is one frame, and the app is paused only when 1 MiB waits.
    const stream = createWebSocketStream(socket, { highWaterMark: TCP_BUFFER });
    // Ends travel (pipe ends the other side once its data is written); errors tear both down.
    const kill = (): void => {
      tcp.destroy();
      stream.destroy();
    };
    tcp.on('error', kill);
    stream.on('error', kill);
    stream.on('close', () => tcp.end());
    tcp.pipe(stream).pipe(tcp);
    return { ok: true, output: `tcp ${host}:${port}` };
  }

  close(): void {
    this.pty.closeAll();
  }
}
