import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AcquiredJob, JobLog } from './protocol';
import { isUuid } from '../platform/text/uuid';

/**
 * The built-in provisioner: a workspace is a directory `<workspacesDir>/<workspace id>`; start
 * writes the template's files and runs the workspace agent as a detached child process (its pid in
 * `.devplane/agent.pid`), stop ends the agent, delete removes the directory. A claim build keeps the
 * running agent (it re-initializes for the new owner through the reinit stream).
 *
 * Other provisioners (Docker, Terraform) implement `Provisioner` the same way: `apply` gets the whole
 * job from the daemon protocol and reports through `log`.
 */
export interface Provisioner {
  apply(job: AcquiredJob, log: (line: JobLog) => Promise<void>): Promise<void>;
}

export interface BuiltinProvisionerOptions {
  workspacesDir: string;
  /** The devplane URL the agent talks to. */
  serverUrl: string;
  /** How to start an agent: the command and its leading arguments (default: this Node with `agent.js`). */
  agentCommand: string[];
}

/** `PROVISIONER_AGENT_COMMAND` (a JSON list: command and leading arguments), else this Node with `agent.js`. */
export function agentCommandFrom(env: NodeJS.ProcessEnv): string[] {
  const raw = env.PROVISIONER_AGENT_COMMAND;
  if (!raw) return defaultAgentCommand();
  const parsed = JSON.parse(raw) as unknown;
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((part) => typeof part === 'string'))
    throw new Error('PROVISIONER_AGENT_COMMAND must be a JSON list of strings');
  return parsed as string[];
}

export function defaultAgentCommand(): string[] {
  const ext = path.extname(__filename);
  // Preloads (`-r @swc-node/register` when run from source) resolved here: the agent runs in the workspace directory.
  const execArgv = process.execArgv.map((arg, index, all) => {
    const previous = all[index - 1];
    if (previous !== '-r' && previous !== '--require') return arg;
    try {
      return require.resolve(arg);
    } catch {
      return arg;
    }
  });
  return [process.execPath, ...execArgv, path.join(__dirname, '..', `agent${ext}`)];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export class BuiltinProvisioner implements Provisioner {
  constructor(private readonly options: BuiltinProvisionerOptions) {}

  workspaceDir(workspaceId: string): string {
    if (!isUuid(workspaceId)) throw new Error('not a workspace id');
    return path.join(this.options.workspacesDir, workspaceId);
  }

  async apply(job: AcquiredJob, log: (line: JobLog) => Promise<void>): Promise<void> {
    const definition = job.template_version.definition;
    if (job.type === 'template_version_import') {
      await log({
        stage: 'Parsing template',
        output: `template version ${job.template_version.name}: ${Object.keys(definition.files ?? {}).length} files, ${
          (definition.apps ?? []).length
        } apps${definition.has_ai_task ? ', AI task' : ''}`,
      });
      return;
    }
    const build = job.workspace_build!;
    const root = this.workspaceDir(build.workspace_id);
    const meta = path.join(root, '.devplane');
    if (build.transition === 'start') {
      await log({ stage: 'Planning infrastructure', output: `workspace directory ${root}` });
      mkdirSync(meta, { recursive: true });
      const workdir = path.join(root, definition.directory ?? '');
      mkdirSync(workdir, { recursive: true });
      for (const [name, content] of Object.entries(definition.files ?? {})) {
        const target = path.join(root, name);
        if (!target.startsWith(root + path.sep)) throw new Error(`file ${name} leaves the workspace`);
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, content);
      }
      writeFileSync(
        path.join(meta, 'workspace.json'),
        JSON.stringify(
          {
            workspace_id: build.workspace_id,
            workspace_name: build.workspace_name,
            owner_id: build.owner_id,
            owner_name: build.owner_name,
            build_number: build.build_number,
          },
          null,
          2,
        ),
      );
      await log({ stage: 'Applying', output: `wrote ${Object.keys(definition.files ?? {}).length} files` });
      if (definition.provision_script)
        await this.runProvisionScript(root, definition.provision_script, build, log);
      const running = this.agentPid(meta);
      if (build.claim && running !== null) {
        await log({
          stage: 'Starting agent',
          output: `claimed: agent ${running} keeps running and re-initializes for ${build.owner_name}`,
        });
        return;
      }
      if (running !== null) await this.stopAgent(meta, log);
      if (!build.agent) throw new Error('a start build without an agent');
      const pid = this.startAgent(workdir, meta, build.agent.token, definition.env ?? {});
      await log({ stage: 'Starting agent', output: `agent ${build.agent.id} started (pid ${pid})` });
      return;
    }
    if (existsSync(meta)) await this.stopAgent(meta, log);
    if (build.transition === 'delete') {
      rmSync(root, { recursive: true, force: true });
      await log({ stage: 'Destroying', output: `removed ${root}` });
    } else {
      await log({ stage: 'Stopping', output: 'workspace stopped' });
    }
  }

  /** The template's provision script, its output as build logs; a non-zero exit fails the build. */
  private async runProvisionScript(
    root: string,
    script: string,
    build: NonNullable<AcquiredJob['workspace_build']>,
    log: (line: JobLog) => Promise<void>,
  ): Promise<void> {
    const child = spawn('sh', ['-c', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        DEVPLANE_WORKSPACE_ID: build.workspace_id,
        DEVPLANE_WORKSPACE_NAME: build.workspace_name,
        DEVPLANE_WORKSPACE_OWNER: build.owner_name,
      },
    });
    let pending = Promise.resolve();
    const forward = (level: JobLog['level']) => (chunk: Buffer) => {
      for (const line of chunk
        .toString('utf8')
        .split('\n')
        .filter((text) => text !== ''))
        pending = pending.then(() => log({ level, stage: 'Provision script', output: line }));
    };
    child.stdout!.on('data', forward('info'));
    child.stderr!.on('data', forward('warn'));
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (exitCode) => resolve(exitCode));
      child.once('error', () => resolve(null));
    });
    await pending;
    if (code !== 0) throw new Error(`provision script exited with code ${code ?? 'unknown'}`);
  }

  private agentPid(meta: string): number | null {
    try {
      const pid = Number.parseInt(readFileSync(path.join(meta, 'agent.pid'), 'utf8'), 10);
      return Number.isInteger(pid) && alive(pid) ? pid : null;
    } catch {
      return null;
    }
  }

  private startAgent(workdir: string, meta: string, token: string, env: Record<string, string>): number {
    const [command, ...args] = this.options.agentCommand;
    const out = openSync(path.join(meta, 'agent.log'), 'a');
    const child: ChildProcess = spawn(command!, args, {
      cwd: workdir,
      detached: true,
      stdio: ['ignore', out, out],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? workdir,
        ...env,
        DEVPLANE_URL: this.options.serverUrl,
        DEVPLANE_AGENT_TOKEN: token,
        DEVPLANE_AGENT_DIR: workdir,
        DEVPLANE_AGENT_STATE: path.join(meta, 'agent-state.json'),
        ...(process.env.DEVPLANE_AGENT_HEARTBEAT_MS
          ? { DEVPLANE_AGENT_HEARTBEAT_MS: process.env.DEVPLANE_AGENT_HEARTBEAT_MS }
          : {}),
        ...(process.env.DEVPLANE_AGENT_REINIT_RETRY_MS
          ? { DEVPLANE_AGENT_REINIT_RETRY_MS: process.env.DEVPLANE_AGENT_REINIT_RETRY_MS }
          : {}),
        ...(process.env.DEVPLANE_AGENT_LISTEN
          ? { DEVPLANE_AGENT_LISTEN: process.env.DEVPLANE_AGENT_LISTEN }
          : {}),
      },
    });
    closeSync(out);
    child.unref();
    writeFileSync(path.join(meta, 'agent.pid'), String(child.pid));
    return child.pid!;
  }

  /** SIGTERM (the agent reports shutting_down and off), SIGKILL after 10 s. */
  private async stopAgent(meta: string, log: (line: JobLog) => Promise<void>): Promise<void> {
    const pid = this.agentPid(meta);
    if (pid === null) return;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(path.join(meta, 'agent.pid'), { force: true });
    await log({ stage: 'Stopping agent', output: `agent ${pid} stopped` });
  }
}
