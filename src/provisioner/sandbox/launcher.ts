import { type ChildProcess, spawn, spawnSync, type StdioOptions } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import {
  INSIDE_FORWARDER,
  INSIDE_PORT,
  INSIDE_SOCKET_DIR,
  OUTSIDE_FORWARDER,
  type SandboxNetwork,
} from './network';

/**
 * The one way workspace code is started (issue 30): the agent, the provision script, the startup
 * script, the VNC command, tool calls and `git` for the git watch all go through `launch`.
 *
 * - `sandbox`: bubblewrap: a mount namespace where the system is read-only, `/tmp` is private,
 *   DATA_DIR is not visible (a tmpfs over it), only the workspace directory is writable; a pid, IPC
 *   and UTS namespace (`/proc` shows the workspace's processes only: everything in it ends with its
 *   first process); a network namespace of its own (src/provisioner/sandbox/network.ts). Inside, `setpriv` drops to the workspace's uid/gid with no
 *   supplementary groups and no capabilities.
 * - `user`: without bubblewrap (issue 53): util-linux `unshare` gives a mount and a pid namespace; inside,
 *   `/tmp`, `/var/tmp` and `/dev/shm` are private tmpfs, DATA_DIR (the hidden paths) is covered by a tmpfs,
 *   the workspace directory is bound back at its own path (its ancestors searchable), then `setpriv` drops
 *   to the workspace's uid/gid (no groups, no capabilities, no new privileges). Unlike `sandbox` the
 *   system directories keep their host permissions (not a read-only mount); the host network stays.
 * - `none`: a plain child process. The agent uses this for its own children: it already runs in
 *   the sandbox as the workspace's identity, and they inherit both.
 */
export type IsolationMode = 'sandbox' | 'user' | 'none';
export type IsolationSetting = 'auto' | IsolationMode;
export const ISOLATION_SETTINGS: readonly IsolationSetting[] = ['auto', 'sandbox', 'user', 'none'];

export interface WorkspaceIdentity {
  uid: number;
  gid: number;
}

export interface SandboxSpec {
  mode: IsolationMode;
  /** The workspace directory: the one writable path (bound at the same path). */
  workspaceDir: string;
  identity?: WorkspaceIdentity;
  /** Extra read-only paths (the agent's code and node_modules, the node binary's directory). */
  readOnly?: string[];
  /** Paths that must not be visible even under a read-only path (DATA_DIR): a tmpfs covers them. */
  hidden?: string[];
  /** End the sandbox with the process that launched it (scripts: yes; the detached agent: no). */
  dieWithParent?: boolean;
  /** The size of the private `/tmp` tmpfs in bytes (issue 53; absent: the kernel's default, half the RAM). */
  tmpBytes?: number;
  /** `cgroup.procs` files the sandbox's first process joins before anything runs (src/provisioner/sandbox/limits.ts). */
  cgroupProcs?: string[];
  /** `sandbox` mode: a network namespace, slirp4netns and the devplane forwarder (./network.ts). */
  network?: SandboxNetwork;
}

/**
 * The `user` mode's set-up, run as root by `unshare` in the new mount and pid namespaces:
 * `$1` workspace dir, `$2` cwd, `$3` uid, `$4` gid, `$5` the tmpfs size option (`,size=N` or empty), `$6` count
 * of hidden paths, then those paths, then the command.
 */
const USER_MODE_SETUP = [
  'set -e',
  'W=$1; C=$2; U=$3; G=$4; S=$5; n=$6; shift 6',
  'exec 3<"$W"',
  'for d in /tmp /var/tmp /dev/shm; do if [ -d "$d" ]; then mount -t tmpfs -o mode=1777,nosuid,nodev$S tmpfs "$d"; fi; done',
  'while [ "$n" -gt 0 ]; do if [ -d "$1" ]; then mount -t tmpfs -o mode=0755,size=64k,nosuid,nodev tmpfs "$1"; fi; n=$((n-1)); shift; done',
  'umask 022',
  'mkdir -p "$W"',
  'mount --no-canonicalize --bind /proc/self/fd/3 "$W"',
  'exec 3<&-',
  'cd "$C"',
  // The shell stays the namespace's PID 1 and reaps orphans while it waits (an agent as PID 1 would leave them
  // zombies); stdin is handed on explicitly (an asynchronous list would get /dev/null).
  'exec 4<&0',
  'setpriv --reuid "$U" --regid "$G" --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@" <&4 4<&- &',
  'exec 4<&-',
  'wait $!',
].join('\n');

/** The `unshare` arguments for the `user` mode (exported for tests). */
export function unshareArgs(spec: SandboxSpec, cwd: string, command: string, args: string[]): string[] {
  if (!spec.identity) throw new Error('the user mode needs a workspace identity');
  const hidden = spec.hidden ?? [];
  return [
    '--mount',
    '--pid',
    '--fork',
    '--mount-proc',
    '--propagation',
    'private',
    '--kill-child',
    'sh',
    '-c',
    USER_MODE_SETUP,
    'sh',
    spec.workspaceDir,
    cwd,
    String(spec.identity.uid),
    String(spec.identity.gid),
    spec.tmpBytes ? `,size=${spec.tmpBytes}` : '',
    String(hidden.length),
    ...hidden,
    command,
    ...args,
  ];
}

export interface LaunchOptions {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  detached?: boolean;
  /** Absent: a plain child (inside the sandbox already, or isolation off). */
  sandbox?: SandboxSpec;
}

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
/** Files under /etc that a workspace never reads: masked by /dev/null. */
const MASKED_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers'];
const MASKED_DIRS = ['/etc/ssl/private', '/etc/sudoers.d'];

/** The bubblewrap arguments for a sandbox (exported for tests and the README's description). */
export function bwrapArgs(spec: SandboxSpec, cwd: string, command: string, args: string[]): string[] {
  const out = ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  if (spec.network) out.push('--unshare-net', '--info-fd', '3', '--block-fd', '4');
  if (spec.dieWithParent) out.push('--die-with-parent');
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    const stat = lstatSync(dir);
    if (stat.isSymbolicLink()) out.push('--symlink', readlinkSync(dir), dir);
    else out.push('--ro-bind', dir, dir);
  }
  for (const file of MASKED_FILES) if (existsSync(file)) out.push('--ro-bind', '/dev/null', file);
  for (const dir of MASKED_DIRS) if (existsSync(dir)) out.push('--tmpfs', dir);
  out.push('--proc', '/proc', '--dev', '/dev', '--perms', '1777');
  if (spec.tmpBytes) out.push('--size', String(spec.tmpBytes));
  out.push('--tmpfs', '/tmp');
  // Mount points' ancestors are searchable directories (bwrap would make them 0700, root's).
  const ancestors = (target: string): void => {
    const dirs: string[] = [];
    for (let dir = path.dirname(target); dir !== path.dirname(dir); dir = path.dirname(dir))
      dirs.unshift(dir);
    for (const dir of dirs)
      if (dir !== '/tmp' && !SYSTEM_DIRS.some((system) => inside(dir, system)))
        out.push('--perms', '0755', '--dir', dir);
  };
  for (const dir of spec.readOnly ?? [])
    if (existsSync(dir) && !SYSTEM_DIRS.some((system) => inside(dir, system))) {
      ancestors(dir);
      out.push('--ro-bind', dir, dir);
    }
  for (const dir of spec.hidden ?? []) {
    ancestors(dir);
    out.push('--tmpfs', dir);
  }
  // The workspace at its own path, the one writable place.
  ancestors(spec.workspaceDir);
  out.push('--bind', spec.workspaceDir, spec.workspaceDir, '--chdir', cwd);
  if (spec.network) {
    ancestors(INSIDE_SOCKET_DIR);
    out.push('--ro-bind', spec.network.socketDir, INSIDE_SOCKET_DIR);
  }
  if (spec.identity)
    out.push(
      'setpriv',
      '--reuid',
      String(spec.identity.uid),
      '--regid',
      String(spec.identity.gid),
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
      '--',
    );
  if (spec.network)
    out.push(
      process.execPath,
      '-e',
      INSIDE_FORWARDER,
      String(INSIDE_PORT),
      `${INSIDE_SOCKET_DIR}/server.sock`,
    );
  out.push(command, ...args);
  return out;
}

function inside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Joins the cgroups (as the shell about to become the sandbox), then executes the command. */
const JOIN_CGROUPS = 'for f in $1; do echo $$ > "$f" 2>/dev/null; done; shift; exec "$@"';

export function launch(options: LaunchOptions): ChildProcess {
  const procs = options.sandbox?.cgroupProcs ?? [];
  if (procs.length === 0 || options.sandbox?.mode === 'none') return launchPlain(options);
  const inner = launchArgs(options);
  return spawn('sh', ['-c', JOIN_CGROUPS, 'sh', procs.join(' '), inner.command, ...inner.args], inner.base);
}

function launchPlain(options: LaunchOptions): ChildProcess {
  const inner = launchArgs(options);
  return spawn(inner.command, inner.args, inner.base);
}

/** The command that starts the sandbox (bwrap, unshare) or the plain command, with spawn's options. */
function launchArgs(options: LaunchOptions): {
  command: string;
  args: string[];
  base: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    stdio: StdioOptions;
    detached: boolean;
    uid?: number;
    gid?: number;
  };
} {
  const base = {
    cwd: options.cwd,
    env: options.env,
    stdio: options.stdio,
    detached: options.detached ?? false,
  };
  const sandbox = options.sandbox;
  if (!sandbox || sandbox.mode === 'none') return { command: options.command, args: options.args, base };
  if (sandbox.mode === 'user') {
    if (!sandbox.identity) return { command: options.command, args: options.args, base };
    const unshare = unshareArgs(sandbox, options.cwd, options.command, options.args);
    // `--die-with-parent` as bubblewrap has it: unshare (and with `--kill-child` its namespace) ends with us.
    return sandbox.dieWithParent
      ? { command: 'setpriv', args: ['--pdeathsig', 'SIGKILL', '--', 'unshare', ...unshare], base }
      : { command: 'unshare', args: unshare, base };
  }
  // A hidden path that does not exist yet (DATA_DIR before the server's first start) is made now, owner-only:
  // bwrap cannot make a mount point under a read-only parent, and one made later would be visible inside.
  for (const dir of sandbox.hidden ?? [])
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const bwrap = bwrapArgs(sandbox, options.cwd, options.command, options.args);
  if (!sandbox.network) return { command: 'bwrap', args: bwrap, base };
  // The outside forwarder runs bubblewrap (./network.ts); it ends with the launcher like bubblewrap would.
  const outside = [
    process.execPath,
    '-e',
    OUTSIDE_FORWARDER,
    JSON.stringify(sandbox.network),
    'bwrap',
    ...bwrap,
  ];
  return sandbox.dieWithParent
    ? { command: 'setpriv', args: ['--pdeathsig', 'SIGKILL', '--', ...outside], base }
    : { command: outside[0]!, args: outside.slice(1), base };
}

/**
 * Whether any process of a process group is still running; zombies do not count. Signalling a
 * sandbox's group ends bubblewrap at once, and the namespace's init it leaves behind is reparented
 * to the host's PID 1, which may reap it late (seconds) or never: `kill(-pgid, 0)` would still see it.
 */
export function processGroupRunning(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so parse after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

/** What this host allows: `sandbox` (root and a working bubblewrap), `user` (root), else `none`. */
export function strongestIsolation(): { mode: IsolationMode; detail: string } {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root)
    return { mode: 'none', detail: 'the server does not run as root (no separate uid per workspace)' };
  const probe = spawnSync(
    'bwrap',
    ['--unshare-pid', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'],
    { stdio: 'ignore', timeout: 10_000 },
  );
  if (probe.error || probe.status !== 0) {
    const missing = `bubblewrap (bwrap, Debian package bubblewrap) is ${probe.error ? 'not installed' : 'not usable here'}`;
    const fallback = spawnSync(
      'unshare',
      ['--mount', '--pid', '--fork', '--mount-proc', '--propagation', 'private', 'setpriv', '--help'],
      { stdio: 'ignore', timeout: 10_000 },
    );
    if (fallback.error || fallback.status !== 0)
      return {
        mode: 'none',
        detail:
          `${missing} and util-linux unshare/setpriv cannot make mount and pid namespaces here ` +
          '(a container without CAP_SYS_ADMIN?): workspace code would run as the server',
      };
    return {
      mode: 'user',
      detail:
        `${missing}: util-linux unshare: mount and pid namespaces, private /tmp, DATA_DIR hidden, a uid per ` +
        'workspace; the system is not mounted read-only (install bubblewrap for the full sandbox)',
    };
  }
  return {
    mode: 'sandbox',
    detail: 'bubblewrap: mount, pid, IPC and UTS namespaces and a uid per workspace',
  };
}

export interface ResolvedIsolation {
  setting: IsolationSetting;
  mode: IsolationMode;
  detail: string;
  /** No isolation and not chosen on purpose: only site owners get workspaces. */
  ownersOnly: boolean;
}

/** The mode for a setting on this host; an explicit mode the host cannot give is an error naming the setting. */
export function resolveIsolation(setting: IsolationSetting): ResolvedIsolation {
  if (setting === 'none')
    return { setting, mode: 'none', detail: 'WORKSPACE_ISOLATION=none (chosen)', ownersOnly: false };
  const strongest = strongestIsolation();
  if (setting === 'auto') return { setting, ...strongest, ownersOnly: strongest.mode === 'none' };
  const rank = { none: 0, user: 1, sandbox: 2 };
  if (rank[strongest.mode] < rank[setting])
    throw new Error(`WORKSPACE_ISOLATION=${setting} is not possible on this host: ${strongest.detail}`);
  return {
    setting,
    mode: setting,
    detail:
      setting === 'sandbox' || strongest.mode === 'user'
        ? strongest.detail
        : 'util-linux unshare: mount and pid namespaces, private /tmp, DATA_DIR hidden, a uid per workspace',
    ownersOnly: false,
  };
}

/** The boot log line: which mode runs, and a loud warning when workspace code runs as the server. */
export function isolationBanner(resolved: ResolvedIsolation): string {
  if (resolved.mode !== 'none')
    return `devplane: workspace isolation: ${resolved.mode} (${resolved.detail}; WORKSPACE_ISOLATION=${resolved.setting})\n`;
  if (resolved.ownersOnly)
    return (
      `devplane: WARNING: workspace isolation: none (${resolved.detail}). Workspace code would run as the server ` +
      'and see its data: the built-in provisioner builds workspaces for site owners only. Run as root with ' +
      'bubblewrap installed, or set WORKSPACE_ISOLATION=none on purpose (single-user development).\n'
    );
  return (
    'devplane: WARNING: workspace isolation: none (WORKSPACE_ISOLATION=none): every workspace runs as the ' +
    'server, can read DATA_DIR (keys, repositories, database) and other workspaces. Single-user development only.\n'
  );
}
