import os from 'node:os';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { orphanSafe, track } from './provisioner-process';
import { BOOTSTRAP_ADMIN, TEST_SECRETS_KEY } from './test-app';

export interface AppProcess {
  url: string;
  pid: number;
  /** Everything the process wrote so far (stdout and stderr): its logs. */
  output(): string;
  /** Sends the signal and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

const ROOT = path.join(__dirname, '..', '..');

/**
 * Starts the server in a child process on an existing test schema (`DATABASE_SCHEMA`), with the
 * test defaults of createTestApp, and waits until it listens.
 */
export function startAppProcess(env: Record<string, string>, timeoutMs = 90_000): Promise<AppProcess> {
  const [command, args] = orphanSafe(process.execPath, [
    '-r',
    '@swc-node/register',
    path.join(__dirname, 'app-child.ts'),
  ]);
  const child: ChildProcess = spawn(command, args, {
    detached: true,
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'silent',
      ADMIN_USERNAME: BOOTSTRAP_ADMIN.username,
      ADMIN_EMAIL: BOOTSTRAP_ADMIN.email,
      ADMIN_PASSWORD: BOOTSTRAP_ADMIN.password,
      DATA_DIR: `${os.tmpdir()}/devplane-test/child-${process.pid}-${Date.now()}`,
      SECRETS_KEY: TEST_SECRETS_KEY,
      RATE_LIMIT_ENABLED: 'false',
      DATABASE_POOL_SIZE: '4',
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`app process did not start:\n${output}`));
    }, timeoutMs);
    const onData = (): void => {
      const match = /APP_CHILD_READY (\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({
        url: `http://127.0.0.1:${match[1]}`,
        pid: child.pid!,
        output: () => output,
        kill: async (signal) => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`app process exited (${code ?? signal}) before it listened:\n${output}`));
    });
  });
}
