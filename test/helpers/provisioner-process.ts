import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

export interface ProvisionerProcess {
  pid: number;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Every child a test started and has not ended yet (issue 53: none outlives the test run). */
const running = new Set<ChildProcess>();

function endAll(): void {
  for (const child of running) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      try {
        child.kill('SIGKILL');
      } catch {
        // gone
      }
    }
  }
  running.clear();
}

// A file's own afterAll ends its children (gracefully where it tests that); whatever is left when the
// worker exits is killed here, and `--pdeathsig` covers a worker that is killed itself.
process.once('exit', endAll);

/**
 * The command line for a test's long-running child: `setpriv --pdeathsig SIGKILL` (util-linux) ends it
 * with the test worker even when the worker itself is killed.
 */
export function orphanSafe(command: string, args: string[]): [string, string[]] {
  return process.platform === 'linux' && existsSync('/usr/bin/setpriv')
    ? ['/usr/bin/setpriv', ['--pdeathsig', 'SIGKILL', '--', command, ...args]]
    : [command, args];
}

/** Tracks a child a test started (its process group is killed after the file). */
export function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/** `node src/provisioner.ts` as a real child process (the agents it starts are real children too). */
export function startProvisioner(env: Record<string, string>): ProvisionerProcess {
  const [command, args] = orphanSafe(process.execPath, [
    '-r',
    '@swc-node/register',
    path.join(ROOT, 'src', 'provisioner.ts'),
  ]);
  const child: ChildProcess = spawn(command, args, {
    detached: true,
    cwd: ROOT,
    env: {
      ...process.env,
      DEVPLANE_AGENT_HEARTBEAT_MS: '500',
      DEVPLANE_AGENT_REINIT_RETRY_MS: '300',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid!,
    output: () => output,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** The provisioner's own state of a workspace (agent.pid, agent.log, workspace.json): root's, beside the workspaces. */
export function agentStateDir(workspacesDir: string, workspaceId: string): string {
  return path.join(path.dirname(workspacesDir), 'workspace-state', workspaceId);
}

/** The agent's self-reported state (`.devplane/agent-state.json`), or null. */
export function agentState(workspacesDir: string, workspaceId: string): Record<string, unknown> | null {
  try {
    return JSON.parse(
      readFileSync(path.join(workspacesDir, workspaceId, '.devplane', 'agent-state.json'), 'utf8'),
    ) as Record<string, unknown>;
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the workspace's agent is still running, by the host pid the provisioner recorded (agent.pid in its
 * state directory). The agent's self-reported pid is its pid inside the sandbox's pid namespace, which
 * names some other process (or none) on the host.
 */
export function agentRunning(workspacesDir: string, workspaceId: string): boolean {
  try {
    const pid = Number.parseInt(
      readFileSync(path.join(agentStateDir(workspacesDir, workspaceId), 'agent.pid'), 'utf8'),
      10,
    );
    return pid > 1 && isAlive(pid);
  } catch {
    return false;
  }
}

/** Kills every agent the provisioners started under `workspacesDir` (test clean-up). */
export function killAgents(workspacesDir: string): void {
  if (!existsSync(workspacesDir)) return;
  for (const entry of readdirSync(workspacesDir)) {
    try {
      const pid = Number.parseInt(
        readFileSync(path.join(agentStateDir(workspacesDir, entry), 'agent.pid'), 'utf8'),
        10,
      );
      if (pid <= 1) continue;
      // The agent's whole process group: with isolation the pid is bubblewrap's, and killing bubblewrap
      // alone leaves the sandbox (its init and the agent) running.
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        process.kill(pid, 'SIGKILL');
      }
    } catch {
      // no agent there
    }
  }
}

/** Polls `check` until it returns a value (not undefined/false) or the time is up. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
