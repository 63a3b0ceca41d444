import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');

export interface MainProcess {
  url: string;
  port: number;
  pid: number;
  output(): string;
  /** Sends the signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * The real server entry point (src/main.ts, not the test harness's app-child) in a child process,
 * on its own embedded database in `env.DATA_DIR` (DATABASE_URL removed), waiting for the start-up
 * banner. Rejects with the output when the process exits first.
 */
export function startMain(env: Record<string, string>, timeoutMs = 120_000): Promise<MainProcess> {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATABASE_EMBEDDED', 'DATABASE_SCHEMA', 'SECRETS_KEY'])
    delete base[name];
  const child: ChildProcess = spawn(
    process.execPath,
    ['-r', '@swc-node/register', path.join(ROOT, 'src', 'main.ts')],
    {
      cwd: ROOT,
      env: {
        ...base,
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: '0',
        RATE_LIMIT_ENABLED: 'false',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, timeoutMs);
    const onData = (): void => {
      const match = /devplane listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      const port = Number(match[1]);
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        pid: child.pid!,
        output: () => output,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before it listened:\n${output}`));
    });
  });
}

/** The socket inodes a process holds open (/proc/<pid>/fd). */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** TCP ports (IPv4 and IPv6) on which the process listens, from /proc/net/tcp{,6}. */
export function listeningTcpPorts(pid: number): number[] {
  const inodes = socketInodes(pid);
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const [, local, , state] = fields;
      if (state !== '0A' || !inodes.has(fields[9]!)) continue; // 0A: LISTEN
      ports.add(parseInt(local!.split(':')[1]!, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/** Paths of the Unix sockets on which the process listens, from /proc/net/unix. */
export function listeningUnixSockets(pid: number): string[] {
  const inodes = socketInodes(pid);
  const paths: string[] = [];
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // Num RefCount Protocol Flags Type St Inode Path; flags 00010000 = __SO_ACCEPTCON (listening)
    if (fields.length < 8 || !inodes.has(fields[6]!) || fields[3] !== '00010000') continue;
    paths.push(fields[7]!);
  }
  return paths;
}
