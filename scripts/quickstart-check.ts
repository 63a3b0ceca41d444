/**
 * `npm run quickstart:check` (issue 36.1): runs the README's quick start as written. Every fenced block
 * marked ```bash quickstart is extracted in order and run with bash (-euo pipefail, one shell for all
 * blocks, so variables carry over) in a temporary working directory, against a fresh server started
 * from src/main.ts on the embedded database in a temporary DATA_DIR. Exits 1 with the failing block
 * and its output when one fails; removes everything it created.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');

export function quickstartBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const fence = /^```bash quickstart\n([\s\S]*?)^```$/gm;
  for (let match = fence.exec(markdown); match; match = fence.exec(markdown)) blocks.push(match[1]!);
  return blocks;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', path.join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 180_000);
    const onData = () => {
      if (!output.includes('devplane listening on')) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve({ child, output: () => output });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before it listened:\n${output}`));
    });
  });
}

function runBash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * Stops the workspace agents the quick start's workspace started: they outlive the server (as Coder's
 * do), so the check ends them itself. With isolation the pid is bubblewrap's: its process group goes.
 */
function stopAgents(workspacesDir: string): void {
  if (!existsSync(workspacesDir)) return;
  for (const workspace of readdirSync(workspacesDir)) {
    const pidFile = path.join(path.dirname(workspacesDir), 'workspace-state', workspace, 'agent.pid');
    const pid = existsSync(pidFile) ? Number.parseInt(readFileSync(pidFile, 'utf8'), 10) : 0;
    if (!(pid > 1)) continue;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

async function main(): Promise<number> {
  const blocks = quickstartBlocks(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  if (blocks.length === 0) {
    process.stderr.write('quickstart:check: no ```bash quickstart blocks in README.md\n');
    return 1;
  }
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dp-qs-'));
  const work = path.join(tmp, 'work');
  mkdirSync(work);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/`;
  const admin = {
    ADMIN_USERNAME: 'admin',
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'Quick-Start-Check-Password-42',
  };
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...admin,
    DATA_DIR: path.join(tmp, 'data'),
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    LOG_LEVEL: 'warn',
  };
  for (const name of ['DATABASE_URL', 'DATABASE_SCHEMA', 'DATABASE_EMBEDDED', 'SECRETS_KEY'])
    delete serverEnv[name];
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    server = await startServer(serverEnv);
    // One shell for all blocks: a block's variables are the next one's, as in a reader's terminal.
    const script = blocks
      .map((block, index) => `echo "--- quickstart block ${index + 1}"\n${block}`)
      .join('\n');
    const shellEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: work,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      npm_config_cache: path.join(tmp, 'npm-cache'),
      BASE: base,
      ...admin,
    };
    const result = await runBash(script, work, shellEnv);
    if (result.code !== 0) {
      process.stderr.write(
        `quickstart:check: failed (exit ${result.code})\n${result.output}\n--- server\n${server.output()}\n`,
      );
      return 1;
    }
    process.stdout.write(
      `${result.output}\nquickstart:check: ${blocks.length} blocks passed against ${base}\n`,
    );
    return 0;
  } finally {
    if (server && server.child.exitCode === null) {
      const exited = new Promise((resolve) => server!.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await exited;
    }
    stopAgents(path.join(tmp, 'data', 'workspaces'));
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`quickstart:check: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
