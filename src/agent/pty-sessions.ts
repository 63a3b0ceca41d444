import { existsSync } from 'node:fs';
import type { IPty } from '@lydell/node-pty';
import type { WebSocket } from 'ws';

/** Coder keeps 64 KiB of a reconnecting PTY's recent output to replay on reconnect. */
export const PTY_REPLAY_BYTES = 64 * 1024;
/** A PTY nobody is attached to ends after this (DEVPLANE_AGENT_PTY_IDLE_MS; Coder's default is 5 minutes). */
export const DEFAULT_PTY_IDLE_MS = 5 * 60_000;

export interface PtyOpen {
  reconnect: string;
  width: number;
  height: number;
  command: string;
}

export interface PtyEnvironment {
  directory: string;
  env: () => Record<string, string>;
  idleMs: number;
  log: (message: string) => void;
}

/** Bounded output history: the last `limit` bytes, as Coder's circular buffer. */
export class ReplayBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit = PTY_REPLAY_BYTES) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  contents(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}

/**
 * Splits a stream of concatenated JSON objects (Coder's client sends one `{data}` or `{height,width}`
 * per frame, but its server reads them as a stream, so a frame may hold several or a part of one).
 */
export class JsonObjectSplitter {
  private pending = '';

  feed(text: string): unknown[] {
    this.pending += text;
    const out: unknown[] = [];
    let depth = 0;
    let inString = false;
    let escaped = false;
    let start = -1;
    let consumed = 0;
    for (let i = 0; i < this.pending.length; i++) {
      const char = this.pending[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (char === '\\') escaped = true;
        else if (char === '"') inString = false;
        continue;
      }
      if (char === '"') inString = true;
      else if (char === '{') {
        if (depth === 0) start = i;
        depth++;
      } else if (char === '}' && depth > 0) {
        depth--;
        if (depth === 0 && start >= 0) {
          try {
            out.push(JSON.parse(this.pending.slice(start, i + 1)));
          } catch {
            // not JSON: dropped, as Coder's decoder would end the session on it
          }
          consumed = i + 1;
          start = -1;
        }
      } else if (depth === 0) consumed = i + 1; // whitespace or garbage between objects
    }
    this.pending = this.pending.slice(consumed);
    // A runaway partial object never grows without bound.
    if (this.pending.length > 4 * 1024 * 1024) this.pending = '';
    return out;
  }
}

/** The user's shell: $SHELL when it exists, else bash, else sh. */
function defaultShell(env: Record<string, string | undefined>): string {
  for (const candidate of [env.SHELL, '/bin/bash', '/usr/bin/bash'])
    if (candidate && existsSync(candidate)) return candidate;
  return '/bin/sh';
}

function clamp(value: number, fallback: number): number {
  return Number.isInteger(value) && value > 0 && value < 65_536 ? value : fallback;
}

class PtySession {
  readonly sockets = new Set<WebSocket>();
  readonly buffer = new ReplayBuffer();
  private idle: NodeJS.Timeout | undefined;
  exited = false;

  constructor(
    readonly id: string,
    readonly pty: IPty,
    private readonly idleMs: number,
    private readonly onEnd: () => void,
  ) {
    pty.onData((data) => {
      const chunk = Buffer.from(data, 'utf8');
      this.buffer.push(chunk);
      for (const socket of this.sockets) if (socket.readyState === socket.OPEN) socket.send(chunk);
    });
    pty.onExit(() => {
      this.exited = true;
      clearTimeout(this.idle);
      for (const socket of this.sockets) socket.close(1000, 'process exited');
      this.sockets.clear();
      this.onEnd();
    });
  }

  attach(socket: WebSocket): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    const history = this.buffer.contents();
    if (history.length > 0) socket.send(history);
    this.sockets.add(socket);
    const splitter = new JsonObjectSplitter();
    socket.on('message', (raw: Buffer) => {
      for (const message of splitter.feed(raw.toString('utf8'))) {
        const request = message as { data?: unknown; height?: unknown; width?: unknown };
        if (typeof request.data === 'string' && request.data !== '' && !this.exited)
          this.pty.write(request.data);
        if (typeof request.height === 'number' && typeof request.width === 'number' && !this.exited) {
          const rows = clamp(request.height, 0);
          const cols = clamp(request.width, 0);
          if (rows > 0 && cols > 0) this.pty.resize(cols, rows);
        }
      }
    });
    const detach = (): void => {
      if (!this.sockets.delete(socket)) return;
      if (this.sockets.size === 0 && !this.exited) {
        this.idle = setTimeout(() => this.kill(), this.idleMs);
        this.idle.unref();
      }
    };
    socket.on('close', detach);
    socket.on('error', detach);
  }

  kill(): void {
    if (this.exited) return;
    try {
      this.pty.kill('SIGHUP');
    } catch {
      // already gone
    }
  }
}

/**
 * Reconnecting PTYs (Coder's `reconnecting_pty`): a real pseudo-terminal (node-pty, forkpty) per
 * reconnect id, run by the agent in the workspace directory (so inside the workspace's sandbox, as its
 * uid: the agent's children inherit both). Each attached socket gets the recent output first, then the
 * live output; `{data}` is written to the terminal, `{height,width}` resizes it. The PTY outlives a
 * dropped socket and ends after `idleMs` with nobody attached, or when its process exits.
 */
export class PtySessions {
  private readonly sessions = new Map<string, PtySession>();
  private spawnPty: typeof import('@lydell/node-pty').spawn | undefined;

  constructor(private readonly environment: PtyEnvironment) {}

  get size(): number {
    return this.sessions.size;
  }

  private async load(): Promise<typeof import('@lydell/node-pty').spawn> {
    this.spawnPty ??= (await import('@lydell/node-pty')).spawn;
    return this.spawnPty;
  }

  async attach(socket: WebSocket, open: PtyOpen): Promise<void> {
    let session = this.sessions.get(open.reconnect);
    if (!session || session.exited) {
      const spawn = await this.load();
      const env = { ...process.env, ...this.environment.env(), TERM: 'xterm-256color' } as Record<
        string,
        string
      >;
      const shell = defaultShell(env);
      const [file, args] = open.command.trim() !== '' ? ['/bin/sh', ['-c', open.command]] : [shell, ['-l']];
      const pty = spawn(file, args, {
        name: 'xterm-256color',
        cols: clamp(open.width, 80),
        rows: clamp(open.height, 24),
        cwd: this.environment.directory,
        env,
      });
      const id = open.reconnect;
      const created: PtySession = new PtySession(id, pty, this.environment.idleMs, () => {
        if (this.sessions.get(id) === created) this.sessions.delete(id);
      });
      session = created;
      this.sessions.set(id, session);
      this.environment.log(`reconnecting pty ${id}: started ${file} (pid ${pty.pid})`);
    } else if (open.width > 0 && open.height > 0) {
      session.pty.resize(clamp(open.width, 80), clamp(open.height, 24));
    }
    session.attach(socket);
  }

  closeAll(): void {
    for (const session of this.sessions.values()) session.kill();
    this.sessions.clear();
  }
}
