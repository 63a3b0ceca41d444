import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  insideUrl,
  type NetworkSetting,
  outboundOn,
  outboundRoutes,
  serverAddress as serverAddressOf,
} from './sandbox/network';
import type { AcquiredJob, JobLog } from './protocol';
import { isUuid } from '../platform/text/uuid';
import {
  launch,
  processGroupRunning,
  type ResolvedIsolation,
  type SandboxSpec,
  type WorkspaceIdentity,
} from './sandbox/launcher';
import {
  type CgroupSupport,
  cgroupPids,
  prepareCgroups,
  removeCgroups,
  type WorkspaceLimits,
} from './sandbox/limits';
import { DiskWatch } from './sandbox/disk-watch';

/** Any workspace id: `stateDir(id)`'s parent is the directory of every workspace's state. */
const DISK_WATCH_PROBE_ID = '00000000-0000-4000-8000-000000000000';

/**
 * The built-in provisioner: a workspace is a directory `<workspacesDir>/<workspace id>`; start
 * writes the template's files and runs the workspace agent as a detached child process, stop ends the
 * agent, delete removes the directory. A claim build keeps the running agent (it re-initializes for the
 * new owner through the reinit stream).
 *
 * Issue 53: the provisioner (root) never writes through a path the workspace can change. Its own state
 * (the workspace record, the agent's log and pid) lives in `<stateDir>/<workspace id>` (root's, 0700);
 * the template's files are written by a child that runs as the workspace's uid; the agent learns what
 * it needs from its environment and keeps its own state in the workspace (`.devplane/`, the workspace's).
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
  /** The provisioner's own state per workspace (default: `workspace-state` beside `workspacesDir`). */
  stateDir?: string;
  /** A started agent must report its start-up within this time, else the build fails (default 60 s). */
  agentConnectTimeoutMs?: number;
  /** Per-workspace limits (src/provisioner/sandbox/limits.ts) and the cgroups this host offers for them. */
  limits?: WorkspaceLimits;
  cgroups?: CgroupSupport;
  /** `sandbox` mode: a network namespace per workspace, outbound per this setting (./sandbox/network.ts). */
  network?: NetworkSetting;
}

/** bubblewrap's set-up of a new network namespace lost a race with the kernel (nothing of the workspace ran). */
const SANDBOX_SETUP_RACE = /bwrap: loopback: Failed RTM_NEWADDR/;

/** The line the agent logs once its start-up report reached the server (src/agent/agent.ts). */
export const AGENT_CONNECTED_MARK = 'connected to the server';

/**
 * Writes the template's files as the workspace's uid: run by `node -e` with the workspace directory as
 * its working directory (entered before the uid drop), it gets `{dirs, files}` with relative paths on stdin.
 */
const FILE_WRITER = [
  "const fs = require('fs'), path = require('path'); let input = '';",
  "process.stdin.on('data', (chunk) => (input += chunk)).on('end', () => {",
  '  const job = JSON.parse(input);',
  '  for (const dir of job.dirs) fs.mkdirSync(dir, { recursive: true });',
  '  for (const [name, content] of job.files) {',
  '    fs.mkdirSync(path.dirname(name), { recursive: true });',
  // A link the workspace put where a template file goes is replaced, never written through.
  '    try { if (fs.lstatSync(name).isSymbolicLink()) fs.unlinkSync(name); } catch {}',
  '    fs.writeFileSync(name, content);',
  '  }',
  '});',
].join('\n');

/** The pids whose real uid is `uid` (every process of an isolated workspace has it). */
export function processesOfUid(uid: number): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const match = /^Uid:\s+(\d+)/m.exec(status);
      const state = /^State:\s+(\S)/m.exec(status)?.[1];
      if (match && Number(match[1]) === uid && state !== 'Z' && state !== 'X') pids.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return pids;
}

/** A file of the provisioner's state directory, written without following a link. */
function writeOwnFile(file: string, content: string): void {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeFileSync(fd, content);
  } finally {
    closeSync(fd);
  }
}

/** The last `count` lines of a file the provisioner owns (at most its last 64 KiB). */
function lastLines(file: string, count: number): string[] {
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const size = lstatSync(file).size;
      const length = Math.min(size, 64 * 1024);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      return buffer.toString('utf8').split('\n').filter(Boolean).slice(-count);
    } finally {
      closeSync(fd);
    }
  } catch {
    return [];
  }
}

/** The project (agent code, node_modules) and the node binary: read-only inside the sandbox. */
function agentReadOnlyPaths(command: string[]): string[] {
  const paths = new Set<string>([path.join(__dirname, '..', '..'), path.dirname(process.execPath)]);
  for (const part of command) if (path.isAbsolute(part)) paths.add(path.dirname(part));
  return [...paths];
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

  /** The provisioner's own state of a workspace: root's, never visible to or writable by the workspace. */
  stateDir(workspaceId: string): string {
    if (!isUuid(workspaceId)) throw new Error('not a workspace id');
    return path.join(
      this.options.stateDir ?? path.join(path.dirname(this.options.workspacesDir), 'workspace-state'),
      workspaceId,
    );
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
    const state = this.stateDir(build.workspace_id);
    const isolation = this.options.isolation;
    const identity = this.identityFor(build);
    if (build.transition === 'start') {
      if (isolation?.ownersOnly && !build.owner_site_owner)
        throw new Error(
          'This server cannot isolate workspaces (no root, or neither bubblewrap nor util-linux namespaces), so ' +
            'the built-in provisioner builds workspaces for site owners only. Run it as root with bubblewrap ' +
            'installed, or set WORKSPACE_ISOLATION=none on purpose (single-user development).',
        );
      await log({ stage: 'Planning infrastructure', output: `workspace directory ${root}` });
      mkdirSync(path.dirname(state), { recursive: true, mode: 0o700 });
      mkdirSync(state, { recursive: true, mode: 0o700 });
      chmodSync(state, 0o700);
      writeOwnFile(
        path.join(state, 'workspace.json'),
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
      const files = Object.entries(definition.files ?? {}).map(([name, content]): [string, string] => {
        const relative = path.relative(root, path.join(root, name));
        if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative))
          throw new Error(`file ${name} leaves the workspace`);
        return [relative, content];
      });
      const directory = path.relative(root, path.join(root, definition.directory ?? ''));
      if (directory.startsWith('..') || path.isAbsolute(directory))
        throw new Error(`directory ${definition.directory} leaves the workspace`);
      const workdir = path.join(root, directory);
      // The workspace directory itself sits in the provisioner's directory: the workspace cannot rename it.
      mkdirSync(this.options.workspacesDir, { recursive: true });
      mkdirSync(root, { recursive: true });
      if (identity) {
        const stat = lstatSync(root);
        if (!stat.isDirectory()) throw new Error(`${root} is not a directory`);
        // First build (or a new identity): the tree becomes the workspace's, links never followed
        // (coreutils' chown -R walks physically with descriptors); nothing of the workspace runs yet.
        if (stat.uid !== identity.uid || stat.gid !== identity.gid) {
          this.killIdentity(identity);
          const chown = spawnSync('chown', ['-R', '-P', '-h', `${identity.uid}:${identity.gid}`, root], {
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          if (chown.status !== 0) throw new Error(`chown of ${root} failed: ${String(chown.stderr)}`);
        }
        chmodSync(root, 0o700);
        await this.writeFilesAs(root, identity, [directory || '.'], files);
        await log({
          stage: 'Applying',
          output: `workspace isolation ${isolation!.mode}: uid ${identity.uid}, directory mode 0700`,
        });
      } else {
        // No isolation: the workspace runs as the provisioner anyway.
        mkdirSync(workdir, { recursive: true });
        for (const [name, content] of files) {
          const target = path.join(root, name);
          mkdirSync(path.dirname(target), { recursive: true });
          writeFileSync(target, content);
        }
      }
      await log({ stage: 'Applying', output: `wrote ${files.length} files` });
      if (definition.provision_script)
        await this.runProvisionScript(root, definition.provision_script, build, log);
      const running = this.agentPid(state, root);
      if (build.claim && running !== null) {
        await log({
          stage: 'Starting agent',
          output: `claimed: agent ${running} keeps running and re-initializes for ${build.owner_name}`,
        });
        return;
      }
      if (running !== null) await this.stopAgent(state, root, log);
      if (!build.agent) throw new Error('a start build without an agent');
      // bubblewrap sometimes fails to configure a new network namespace's loopback while the kernel is still
      // tearing others down (`bwrap: loopback: Failed RTM_NEWADDR`): the sandbox never started, so start again.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.startAgent(root, workdir, state, build, definition.env ?? {}, identity, log);
          break;
        } catch (error) {
          if (attempt >= 3 || !(error instanceof Error) || !SANDBOX_SETUP_RACE.test(error.message))
            throw error;
          await log({
            level: 'warn',
            stage: 'Starting agent',
            output: 'the sandbox did not start; starting it again',
          });
        }
      }
      return;
    }
    await this.stopAgent(state, root, log);
    // Whatever of the workspace outlived its agent (it cannot leave its uid nor its cgroups).
    if (identity) this.killIdentity(identity, build.workspace_id);
    if (build.transition === 'delete') {
      rmSync(root, { recursive: true, force: true });
      rmSync(state, { recursive: true, force: true });
      if (this.options.cgroups) removeCgroups(this.options.cgroups, build.workspace_id);
      await log({ stage: 'Destroying', output: `removed ${root}` });
    } else {
      await log({ stage: 'Stopping', output: 'workspace stopped' });
    }
  }

  /**
   * The disk watch over this provisioner's workspaces (`WORKSPACE_DISK_LIMIT_MB`; ./sandbox/disk-watch.ts):
   * a workspace beyond the limit is stopped here, then `requestStop` asks the server for its `stop` build.
   */
  watchDisk(requestStop: (workspaceId: string, reason: string) => Promise<void>): DiskWatch | undefined {
    const limits = this.options.limits;
    if (!limits || limits.diskBytes <= 0) return undefined;
    const mib = (bytes: number) => Math.ceil(bytes / 1024 / 1024);
    const watch = new DiskWatch({
      workspacesDir: this.options.workspacesDir,
      stateDir: this.stateDir(DISK_WATCH_PROBE_ID).replace(/[/\\][^/\\]+$/, ''),
      limitBytes: limits.diskBytes,
      intervalMs: limits.diskCheckMs,
      running: (workspaceId) => this.agentRunning(workspaceId),
      onOver: async (workspaceId, used) => {
        const reason = `the workspace directory holds ${mib(used)} MiB, beyond WORKSPACE_DISK_LIMIT_MB=${mib(limits.diskBytes)}`;
        await this.stopOverLimit(workspaceId, reason);
        await requestStop(workspaceId, reason);
      },
    });
    watch.start();
    return watch;
  }

  /** Whether the workspace's agent runs (its pid in the provisioner's state, checked against /proc). */
  agentRunning(workspaceId: string): boolean {
    return this.agentPid(this.stateDir(workspaceId), this.workspaceDir(workspaceId)) !== null;
  }

  /**
   * A workspace beyond a limit (its directory's size): its agent and every process of its uid and cgroups
   * end now, and the agent's log (the provisioner's file) says why; the caller then asks for a `stop` build.
   */
  async stopOverLimit(workspaceId: string, reason: string): Promise<void> {
    const root = this.workspaceDir(workspaceId);
    const state = this.stateDir(workspaceId);
    try {
      const fd = openSync(
        path.join(state, 'agent.log'),
        constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW,
        0o600,
      );
      try {
        writeFileSync(fd, `devplane: ${reason}: workspace stopped\n`);
      } finally {
        closeSync(fd);
      }
    } catch {
      // no state directory any more
    }
    await this.stopAgent(state, root, async () => undefined);
    let uid: number | undefined;
    try {
      uid = lstatSync(root).uid;
    } catch {
      uid = undefined;
    }
    if (uid !== undefined && uid !== 0 && (this.options.isolation?.mode ?? 'none') !== 'none')
      this.killIdentity({ uid, gid: uid }, workspaceId);
  }

  /** SIGKILLs every process of the workspace's uid until none is left (a fork bomb keeps forking). */
  private killIdentity(identity: WorkspaceIdentity, workspaceId?: string): void {
    if (identity.uid === 0) return;
    for (let round = 0; round < 50; round++) {
      const pids = [
        ...processesOfUid(identity.uid),
        ...(workspaceId && this.options.cgroups ? cgroupPids(this.options.cgroups, workspaceId) : []),
      ];
      if (pids.length === 0) return;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  }

  /** The template's files and the working directory, written by a child running as the workspace's uid. */
  private async writeFilesAs(
    root: string,
    identity: WorkspaceIdentity,
    dirs: string[],
    files: [string, string][],
  ): Promise<void> {
    const child = spawn(process.execPath, ['-e', FILE_WRITER], {
      cwd: root,
      uid: identity.uid,
      gid: identity.gid,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      if (errors.length < 4096) errors += chunk.toString('utf8');
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(JSON.stringify({ dirs, files }));
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (exitCode) => resolve(exitCode));
      child.once('error', () => resolve(null));
    });
    if (code !== 0)
      throw new Error(`writing the template's files as uid ${identity.uid} failed: ${errors.trim()}`);
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
        DEVPLANE_URL: this.devplaneUrl(),
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
      tmpBytes: this.options.limits?.tmpBytes,
      cgroupProcs:
        identity && this.options.cgroups && this.options.limits
          ? prepareCgroups(this.options.cgroups, path.basename(root), this.options.limits)
          : undefined,
      network: this.networked()
        ? {
            // A directory per launch (a claim build's provision script runs beside the agent).
            socketDir: path.join(this.stateDir(path.basename(root)), `net-${randomUUID().slice(0, 8)}`),
            ...serverAddressOf(this.options.serverUrl),
            slirp: outboundOn(this.options.network!),
            routes: outboundRoutes(this.options.network!.allowed),
          }
        : undefined,
    };
  }

  /** `DEVPLANE_URL` for workspace code, ending in `/` (`$DEVPLANE_URL<owner>/<repo>.git`). */
  private devplaneUrl(): string {
    if (this.networked()) return insideUrl(this.options.serverUrl);
    return this.options.serverUrl.endsWith('/') ? this.options.serverUrl : `${this.options.serverUrl}/`;
  }

  /** Whether sandboxes get a network namespace (the `sandbox` mode with a network setting). */
  private networked(): boolean {
    return this.options.isolation?.mode === 'sandbox' && this.options.network !== undefined;
  }

  /**
   * The running agent's pid, from `agent.pid` in the provisioner's state directory (the workspace cannot
   * write it), and only when that process is this workspace's sandbox or agent (its command line or
   * environment names the workspace directory).
   */
  private agentPid(state: string, root: string): number | null {
    try {
      const pid = Number.parseInt(readFileSync(path.join(state, 'agent.pid'), 'utf8'), 10);
      if (!Number.isInteger(pid) || pid <= 1 || !alive(pid)) return null;
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

  private async startAgent(
    root: string,
    workdir: string,
    state: string,
    build: NonNullable<AcquiredJob['workspace_build']>,
    env: Record<string, string>,
    identity: WorkspaceIdentity | undefined,
    log: (line: JobLog) => Promise<void>,
  ): Promise<void> {
    const [command, ...args] = this.options.agentCommand;
    const logFile = path.join(state, 'agent.log');
    // The provisioner's own file (root's state directory), never a path inside the workspace.
    const out = openSync(
      logFile,
      constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW,
      0o600,
    );
    const logStart = lstatSync(logFile).size;
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
        // In a network namespace devplane is the forwarder on the namespace's loopback (./sandbox/network.ts).
        DEVPLANE_URL: this.devplaneUrl(),
        DEVPLANE_AGENT_TOKEN: build.agent!.token,
        DEVPLANE_AGENT_DIR: workdir,
        // The agent's own state: the workspace's (the provisioner never reads or writes it).
        DEVPLANE_AGENT_STATE: path.join(root, '.devplane', 'agent-state.json'),
        DEVPLANE_WORKSPACE_ID: build.workspace_id,
        DEVPLANE_WORKSPACE_NAME: build.workspace_name,
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
    let exited: string | null = null;
    child.once('exit', (code, signal) => (exited = signal ? `signal ${signal}` : `code ${code}`));
    child.once('error', (error) => (exited = error.message));
    child.unref();
    if (child.pid === undefined) throw new Error(`the agent did not start: ${command}`);
    writeOwnFile(path.join(state, 'agent.pid'), String(child.pid));
    await log({ stage: 'Starting agent', output: `agent ${build.agent!.id} started (pid ${child.pid})` });
    // Issue 53: never `running` with a dead agent: the build waits until the agent reached the server.
    const timeoutMs = this.options.agentConnectTimeoutMs ?? 60_000;
    const started = Date.now();
    let nextNote = started + 10_000;
    for (;;) {
      const lines = this.logSince(logFile, logStart);
      if (lines.includes(AGENT_CONNECTED_MARK)) return;
      const now = Date.now();
      if (exited !== null || now - started > timeoutMs) {
        const reason =
          exited !== null
            ? `the agent exited (${exited}) before it reached the server`
            : `the agent did not reach the server within ${Math.round(timeoutMs / 1000)} s`;
        if (exited === null) await this.stopAgent(state, root, async () => undefined);
        const tail = lastLines(logFile, 20);
        for (const line of tail) await log({ level: 'error', stage: 'Starting agent', output: line });
        throw new Error(`${reason}; its last log lines:\n${tail.join('\n') || '(none)'}`);
      }
      if (now > nextNote) {
        nextNote = now + 10_000;
        await log({ stage: 'Starting agent', output: 'waiting for the agent to reach the server' });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** What the agent logged after `offset` (at most 64 KiB). */
  private logSince(file: string, offset: number): string {
    try {
      const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const buffer = Buffer.alloc(64 * 1024);
        const read = readSync(fd, buffer, 0, buffer.length, offset);
        return buffer.subarray(0, read).toString('utf8');
      } finally {
        closeSync(fd);
      }
    } catch {
      return '';
    }
  }

  /** SIGTERM (the agent reports shutting_down and off), SIGKILL after 10 s. */
  private async stopAgent(state: string, root: string, log: (line: JobLog) => Promise<void>): Promise<void> {
    const pid = this.agentPid(state, root);
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
    rmSync(path.join(state, 'agent.pid'), { force: true });
    await log({ stage: 'Stopping agent', output: `agent ${pid} stopped` });
  }
}
