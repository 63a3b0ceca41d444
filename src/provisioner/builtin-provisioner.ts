import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  lchownSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { AcquiredJob, JobLog } from './protocol';
import { isUuid } from '../platform/text/uuid';
import {
  launch,
  processGroupRunning,
  type ResolvedIsolation,
  type SandboxSpec,
  type WorkspaceIdentity,
} from './sandbox/launcher';

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
  /** How workspace code runs (src/provisioner/sandbox); default none (tests of the protocol only). */
  isolation?: ResolvedIsolation;
  /** Paths no workspace may see (DATA_DIR): hidden in the sandbox. */
  hidden?: string[];
}

/** The project (agent code, node_modules) and the node binary: read-only inside the sandbox. */
function agentReadOnlyPaths(command: string[]): string[] {
  const paths = new Set<string>([path.join(__dirname, '..', '..'), path.dirname(process.execPath)]);
  for (const part of command) if (path.isAbsolute(part)) paths.add(path.dirname(part));
  return [...paths];
}

/** chown -R without following symbolic links (a workspace's links may point anywhere). */
function chownTree(target: string, identity: WorkspaceIdentity): void {
  lchownSync(target, identity.uid, identity.gid);
  let entries;
  try {
    entries = readdirSync(target, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const child = path.join(target, entry.name);
    if (entry.isDirectory()) chownTree(child, identity);
    else lchownSync(child, identity.uid, identity.gid);
  }
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
    const isolation = this.options.isolation;
    if (build.transition === 'start') {
      if (isolation?.ownersOnly && !build.owner_site_owner)
        throw new Error(
          'This server cannot isolate workspaces (no root or no bubblewrap), so the built-in provisioner ' +
            'builds workspaces for site owners only. Run it as root with bubblewrap installed, or set ' +
            'WORKSPACE_ISOLATION=none on purpose (single-user development).',
        );
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
      const identity = this.identityFor(build);
      if (identity) {
        // The workspace's files are its uid's (a claim hands a prebuild's files to the claimer's
        // workspace identity); the directory is private (0700); `.devplane` stays the provisioner's,
        // with the agent's own state files in it.
        chownTree(root, identity);
        chmodSync(root, 0o700);
        lchownSync(meta, 0, 0);
        chmodSync(meta, 0o755);
        for (const name of ['agent-state.json', 'owner.json']) {
          const file = path.join(meta, name);
          if (!existsSync(file)) writeFileSync(file, '{}\n');
          lchownSync(file, identity.uid, identity.gid);
        }
        for (const name of ['workspace.json', 'agent.log', 'agent.pid'])
          if (existsSync(path.join(meta, name))) lchownSync(path.join(meta, name), 0, 0);
        await log({
          stage: 'Applying',
          output: `workspace isolation ${isolation!.mode}: uid ${identity.uid}, directory mode 0700`,
        });
      }
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
      const pid = this.startAgent(root, workdir, meta, build.agent.token, definition.env ?? {}, identity);
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
    const child = launch({
      command: 'sh',
      args: ['-c', script],
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      sandbox: this.sandbox(root, this.identityFor(build), true),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: root,
        DEVPLANE_WORKSPACE_ID: build.workspace_id,
        DEVPLANE_WORKSPACE_NAME: build.workspace_name,
        DEVPLANE_WORKSPACE_OWNER: build.owner_name,
      },
    });
    // Each line is reported in order; the first failed report (a lost lease) stops the script and is
    // the build's error. Every link of the chain is handled: a rejection here must never go unobserved
    // (issue 31.3: it ended the whole server).
    let pending = Promise.resolve();
    let failure: unknown;
    const forward = (level: JobLog['level']) => (chunk: Buffer) => {
      for (const line of chunk
        .toString('utf8')
        .split('\n')
        .filter((text) => text !== ''))
        pending = pending
          .then(() =>
            failure === undefined ? log({ level, stage: 'Provision script', output: line }) : undefined,
          )
          .catch((error: unknown) => {
            failure ??= error;
            child.kill('SIGKILL');
          });
    };
    child.stdout!.on('data', forward('info'));
    child.stderr!.on('data', forward('warn'));
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (exitCode) => resolve(exitCode));
      child.once('error', () => resolve(null));
    });
    await pending;
    if (failure !== undefined) throw failure;
    if (code !== 0) throw new Error(`provision script exited with code ${code ?? 'unknown'}`);
  }

  /** The workspace's OS identity when isolation gives one (the server allocated its uid). */
  private identityFor(build: NonNullable<AcquiredJob['workspace_build']>): WorkspaceIdentity | undefined {
    const mode = this.options.isolation?.mode ?? 'none';
    if (mode === 'none' || build.os_uid === undefined) return undefined;
    return { uid: build.os_uid, gid: build.os_uid };
  }

  private sandbox(
    root: string,
    identity: WorkspaceIdentity | undefined,
    dieWithParent: boolean,
  ): SandboxSpec {
    return {
      mode: this.options.isolation?.mode ?? 'none',
      workspaceDir: root,
      identity,
      readOnly: agentReadOnlyPaths(this.options.agentCommand),
      hidden: this.options.hidden,
      dieWithParent,
    };
  }

  /**
   * The running agent's pid, from `.devplane/agent.pid` (the provisioner's file), and only when that
   * process is this workspace's sandbox or agent (its command line names the workspace directory):
   * a pid file a workspace forged never makes the provisioner signal another process.
   */
  private agentPid(meta: string): number | null {
    try {
      const pid = Number.parseInt(readFileSync(path.join(meta, 'agent.pid'), 'utf8'), 10);
      if (!Number.isInteger(pid) || pid <= 1 || !alive(pid)) return null;
      const root = path.dirname(meta);
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const environ = cmdline.includes(root) ? '' : readFileSync(`/proc/${pid}/environ`, 'utf8');
        if (!cmdline.includes(root) && !environ.includes(`DEVPLANE_AGENT_DIR=${root}`)) return null;
      } catch {
        // no /proc (not Linux): the pid as written
      }
      return pid;
    } catch {
      return null;
    }
  }

  private startAgent(
    root: string,
    workdir: string,
    meta: string,
    token: string,
    env: Record<string, string>,
    identity: WorkspaceIdentity | undefined,
  ): number {
    const [command, ...args] = this.options.agentCommand;
    const out = openSync(path.join(meta, 'agent.log'), 'a');
    const isolated = (this.options.isolation?.mode ?? 'none') !== 'none';
    // Detached (its own process group, it outlives a server restart); in the sandbox its processes
    // end with it (pid namespace).
    const child: ChildProcess = launch({
      command: command!,
      args,
      cwd: workdir,
      detached: true,
      stdio: ['ignore', out, out],
      sandbox: this.sandbox(root, identity, false),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: isolated ? root : (process.env.HOME ?? workdir),
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
    // The agent's process group (the sandbox and the agent in it): SIGTERM lets the agent report off.
    const group = (signal: NodeJS.Signals | 0): boolean => {
      try {
        process.kill(-pid, signal);
        return true;
      } catch {
        try {
          process.kill(pid, signal);
          return true;
        } catch {
          return false;
        }
      }
    };
    group('SIGTERM');
    const deadline = Date.now() + 10_000;
    const running = (): boolean => processGroupRunning(pid);
    while (running() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    if (running()) group('SIGKILL');
    rmSync(path.join(meta, 'agent.pid'), { force: true });
    await log({ stage: 'Stopping agent', output: `agent ${pid} stopped` });
  }
}
