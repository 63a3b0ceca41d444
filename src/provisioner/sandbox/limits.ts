import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Per-workspace limits (issue 53 item 3): memory, processes and CPU share through a cgroup per workspace
 * (cgroup v2 where its controllers are enabled, else the v1 `memory`, `pids` and `cpu` hierarchies),
 * and the size of the sandbox's `/tmp` (a sized tmpfs, in both isolation modes). The provisioner puts the
 * sandbox's first process in the cgroups before it executes anything (src/provisioner/sandbox/launcher.ts),
 * so everything the workspace starts is counted; stop and delete kill what the cgroups still hold.
 */
export interface WorkspaceLimits {
  /** `WORKSPACE_MEMORY_LIMIT_MB`: memory of all the workspace's processes together (0: none). */
  memoryBytes: number;
  /** `WORKSPACE_PIDS_LIMIT`: processes and threads of the workspace (0: none). */
  pids: number;
  /** `WORKSPACE_CPU_WEIGHT`: CPU share under contention, 1 to 10000 (100: an equal share). */
  cpuWeight: number;
  /** `WORKSPACE_TMP_SIZE_MB`: the size of the private `/tmp` (and `/var/tmp`, `/dev/shm`). */
  tmpBytes: number;
  /** `WORKSPACE_DISK_LIMIT_MB`: the workspace directory's size, measured and stopped beyond (0: none). */
  diskBytes: number;
  /** `WORKSPACE_DISK_CHECK_SECONDS`: how often the directory is measured. */
  diskCheckMs: number;
}

export const DEFAULT_LIMITS: WorkspaceLimits = {
  memoryBytes: 2048 * 1024 * 1024,
  pids: 512,
  cpuWeight: 100,
  tmpBytes: 512 * 1024 * 1024,
  diskBytes: 10_240 * 1024 * 1024,
  diskCheckMs: 60_000,
};

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max)
    throw new Error(`${name} must be an integer from 0 to ${max}`);
  return value;
}

/** The limits from the environment (the table in src/modules/workspaces/README.md). */
export function limitsFrom(env: NodeJS.ProcessEnv): WorkspaceLimits {
  const mb = 1024 * 1024;
  const weight = positiveInt(env, 'WORKSPACE_CPU_WEIGHT', DEFAULT_LIMITS.cpuWeight, 10_000);
  return {
    memoryBytes:
      positiveInt(env, 'WORKSPACE_MEMORY_LIMIT_MB', DEFAULT_LIMITS.memoryBytes / mb, 1_048_576) * mb,
    pids: positiveInt(env, 'WORKSPACE_PIDS_LIMIT', DEFAULT_LIMITS.pids, 4_194_304),
    cpuWeight: weight === 0 ? DEFAULT_LIMITS.cpuWeight : weight,
    tmpBytes: positiveInt(env, 'WORKSPACE_TMP_SIZE_MB', DEFAULT_LIMITS.tmpBytes / mb, 1_048_576) * mb,
    diskBytes: positiveInt(env, 'WORKSPACE_DISK_LIMIT_MB', DEFAULT_LIMITS.diskBytes / mb, 1_073_741_824) * mb,
    diskCheckMs:
      Math.max(
        1,
        positiveInt(env, 'WORKSPACE_DISK_CHECK_SECONDS', DEFAULT_LIMITS.diskCheckMs / 1000, 86_400),
      ) * 1000,
  };
}

type Controller = 'memory' | 'pids' | 'cpu';

/** What this host lets the provisioner limit: a cgroup directory per controller (v1) or one (v2). */
export interface CgroupSupport {
  version: 1 | 2 | 0;
  /** The parent of the workspaces' cgroups per controller (v2: the same directory for all). */
  parents: Partial<Record<Controller, string>>;
}

const CGROUP_ROOT = '/sys/fs/cgroup';

function writable(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    return existsSync(path.join(dir, 'cgroup.procs'));
  } catch {
    return false;
  }
}

/** Probes the cgroup hierarchies once at boot (creating `devplane` parents where it may). */
export function detectCgroups(root = CGROUP_ROOT): CgroupSupport {
  try {
    const controllers = readFileSync(path.join(root, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
    const wanted = (['memory', 'pids', 'cpu'] as Controller[]).filter((name) => controllers.includes(name));
    const parent = path.join(root, 'devplane');
    if (wanted.length > 0 && writable(parent)) {
      const enable = wanted.map((name) => `+${name}`).join(' ');
      try {
        writeFileSync(path.join(root, 'cgroup.subtree_control'), enable);
        writeFileSync(path.join(parent, 'cgroup.subtree_control'), enable);
        return { version: 2, parents: Object.fromEntries(wanted.map((name) => [name, parent])) };
      } catch {
        // controllers not delegable here: try v1
      }
    }
  } catch {
    // not a v2 root
  }
  const parents: CgroupSupport['parents'] = {};
  for (const name of ['memory', 'pids', 'cpu'] as Controller[]) {
    const dir = path.join(root, name);
    if (existsSync(path.join(dir, 'cgroup.procs')) && writable(path.join(dir, 'devplane')))
      parents[name] = path.join(dir, 'devplane');
  }
  return { version: Object.keys(parents).length > 0 ? 1 : 0, parents };
}

/** The boot line: which limits this host enforces, with their values. */
export function limitsBanner(limits: WorkspaceLimits, support: CgroupSupport): string {
  const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
  const enforced: string[] = [`/tmp ${mb(limits.tmpBytes)} (tmpfs)`];
  const missing: string[] = [];
  const add = (name: Controller, text: string, on: boolean) =>
    support.parents[name] && on ? enforced.push(text) : missing.push(name);
  add('memory', `memory ${limits.memoryBytes ? mb(limits.memoryBytes) : 'unlimited'}`, true);
  add('pids', `processes ${limits.pids || 'unlimited'}`, true);
  add('cpu', `CPU weight ${limits.cpuWeight}`, true);
  return (
    `devplane: workspace limits: ${enforced.join(', ')}` +
    (support.version ? ` (cgroup v${support.version})` : '') +
    (missing.length ? `; not enforced (no writable cgroup controller): ${missing.join(', ')}` : '') +
    (limits.diskBytes > 0
      ? `; workspace directory ${mb(limits.diskBytes)} (measured every ${Math.round(limits.diskCheckMs / 1000)} s, stopped beyond)\n`
      : '; workspace directory size: not limited (WORKSPACE_DISK_LIMIT_MB=0)\n')
  );
}

/**
 * Makes (or updates) the workspace's cgroups with the limits; returns the `cgroup.procs` files the
 * sandbox's first process writes itself into. Best effort: a controller that refuses is left out.
 */
export function prepareCgroups(
  support: CgroupSupport,
  workspaceId: string,
  limits: WorkspaceLimits,
): string[] {
  const procs = new Set<string>();
  const set = (dir: string, file: string, value: string): void => {
    try {
      writeFileSync(path.join(dir, file), value);
    } catch {
      // this kernel lacks the file (e.g. no swap accounting)
    }
  };
  for (const [name, parent] of Object.entries(support.parents) as [Controller, string][]) {
    const dir = path.join(parent, workspaceId);
    try {
      mkdirSync(dir, { recursive: true });
    } catch {
      continue;
    }
    if (name === 'memory' && limits.memoryBytes > 0) {
      if (support.version === 2) {
        set(dir, 'memory.max', String(limits.memoryBytes));
        set(dir, 'memory.swap.max', '0');
      } else set(dir, 'memory.limit_in_bytes', String(limits.memoryBytes));
    }
    if (name === 'pids' && limits.pids > 0) set(dir, 'pids.max', String(limits.pids));
    if (name === 'cpu') {
      if (support.version === 2) set(dir, 'cpu.weight', String(limits.cpuWeight));
      else set(dir, 'cpu.shares', String(Math.max(2, Math.round((1024 * limits.cpuWeight) / 100))));
    }
    procs.add(path.join(dir, 'cgroup.procs'));
  }
  return [...procs];
}

/** The pids the workspace's cgroups hold (whatever they did, they cannot leave them). */
export function cgroupPids(support: CgroupSupport, workspaceId: string): number[] {
  const pids = new Set<number>();
  for (const parent of new Set(Object.values(support.parents))) {
    try {
      for (const line of readFileSync(path.join(parent, workspaceId, 'cgroup.procs'), 'utf8').split('\n'))
        if (/^\d+$/.test(line)) pids.add(Number(line));
    } catch {
      // no cgroup
    }
  }
  return [...pids];
}

/** Removes the workspace's (empty) cgroups. */
export function removeCgroups(support: CgroupSupport, workspaceId: string): void {
  for (const parent of new Set(Object.values(support.parents))) {
    try {
      rmdirSync(path.join(parent, workspaceId));
    } catch {
      // still busy or never made
    }
  }
}
