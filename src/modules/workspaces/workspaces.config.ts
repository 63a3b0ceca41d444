import { bool, ConfigError, type Env, int, read } from '../../platform/config/app-config';

/** Settings of the workspaces module (README.md in this folder), validated at boot. */
export interface WorkspacesConfig {
  /** `PROVISIONER_LEASE_MS`: a daemon must report (logs or heartbeat) within this time or lose its job. */
  leaseMs: number;
  /** `PROVISIONER_MAX_ATTEMPTS`: runs of a job before a lost lease fails it. */
  maxAttempts: number;
  /** `PROVISIONER_ACQUIRE_WAIT_MS`: longest long-poll of an acquire. */
  maxAcquireWaitMs: number;
  /** `PREBUILDS_RECONCILE_INTERVAL_MS`: the reconciler's period (it also runs on every change). */
  reconcileIntervalMs: number;
  /** `AGENT_DISCONNECT_TIMEOUT_MS`: an agent not heard from for this long is `disconnected`. */
  agentDisconnectMs: number;
  /** `REINIT_PING_MS`: the reinit stream's keep-alive `ping` event. */
  reinitPingMs: number;
  /** `WORKSPACE_ISOLATION`: auto | sandbox | user | none (issue 30; the built-in provisioner applies it). */
  isolation: 'auto' | 'sandbox' | 'user' | 'none';
  /** `WORKSPACE_UID_RANGE`: the OS uids (= gids) workspaces get, one each, kept across builds. */
  uidRange: { first: number; last: number };
  /** `CONNECTION_LOG_COUNT_CAP`: the connection log's `count` stops here (and `count_cap` says so). */
  connectionLogCountCap: number;
  /** `CODER_LOG_FOLLOW_POLL_MS`: how often a followed job's logs are read (the logs WebSockets). */
  logFollowPollMs: number;
  /** `WORKSPACE_WATCH_POLL_MS`: how often a workspace watch (`/watch`, `/watch-ws`) compares the workspace. */
  watchPollMs: number;
  /**
   * `WILDCARD_ACCESS_URL` (Coder's name; e.g. `*.apps.example.com` or `https://*.apps.example.com:8443`):
   * subdomain apps and ports are served at `{app}--{agent}--{workspace}--{owner}.<suffix>`; null when unset.
   */
  wildcardAccess: { suffix: string; port: string; protocol: string } | null;
  /**
   * `DANGEROUS_ALLOW_PATH_APP_SHARING` (Coder's flag, default false): path-based apps run on the API's origin,
   * so by default they open only for who may `application_connect` the workspace (sharing levels apply to
   * subdomain apps); true lets path-based apps be shared at their level.
   */
  allowPathAppSharing: boolean;
  /** `DANGEROUS_ALLOW_PATH_APP_SITE_OWNER_ACCESS` (Coder's flag, default false): site owners may open other users' path-based apps. */
  allowPathAppSiteOwnerAccess: boolean;
}

/** `WILDCARD_ACCESS_URL`: `*.<domain>` with an optional scheme and port. */
export function wildcardAccessFrom(env: Env): WorkspacesConfig['wildcardAccess'] {
  const raw = read(env, 'WILDCARD_ACCESS_URL')?.trim();
  if (!raw) return null;
  const match = /^(?:(https?):\/\/)?\*([.-][A-Za-z0-9.-]+?)(?::(\d{1,5}))?\/?$/.exec(raw);
  if (!match)
    throw new ConfigError('WILDCARD_ACCESS_URL', 'must be *.<domain> (optionally with a scheme and a port)');
  return { protocol: match[1] ?? 'http', suffix: match[2]!.toLowerCase(), port: match[3] ?? '' };
}

/** `WORKSPACE_UID_RANGE` (`FIRST-LAST`, default 200000-265535). */
export function uidRangeFrom(env: Env): { first: number; last: number } {
  const value = read(env, 'WORKSPACE_UID_RANGE')?.trim() || '200000-265535';
  const match = /^(\d+)-(\d+)$/.exec(value);
  const first = match ? Number(match[1]) : NaN;
  const last = match ? Number(match[2]) : NaN;
  if (!match || first < 1000 || last < first || last > 2 ** 31 - 2)
    throw new ConfigError(
      'WORKSPACE_UID_RANGE',
      'must be FIRST-LAST with 1000 <= FIRST <= LAST (e.g. 200000-265535)',
    );
  return { first, last };
}

export function isolationFrom(env: Env): WorkspacesConfig['isolation'] {
  const value = (read(env, 'WORKSPACE_ISOLATION') ?? 'auto').trim();
  if (value !== 'auto' && value !== 'sandbox' && value !== 'user' && value !== 'none')
    throw new ConfigError('WORKSPACE_ISOLATION', 'must be one of auto, sandbox, user, none');
  return value;
}

export const WORKSPACES_CONFIG = Symbol('WORKSPACES_CONFIG');

export function loadWorkspacesConfig(env: Env): WorkspacesConfig {
  int(env, 'PROVISIONER_DAEMONS', 0, 0, 64);
  int(env, 'PROVISIONER_AGENT_CONNECT_TIMEOUT_MS', 60_000, 1_000, 3_600_000);
  // Per-workspace limits (src/provisioner/sandbox/limits.ts): MiB, processes, CPU weight.
  int(env, 'WORKSPACE_MEMORY_LIMIT_MB', 2048, 0, 1_048_576);
  int(env, 'WORKSPACE_PIDS_LIMIT', 512, 0, 4_194_304);
  int(env, 'WORKSPACE_CPU_WEIGHT', 100, 1, 10_000);
  int(env, 'WORKSPACE_TMP_SIZE_MB', 512, 0, 1_048_576);
  const agentCommand = read(env, 'PROVISIONER_AGENT_COMMAND');
  if (agentCommand !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(agentCommand);
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((part) => typeof part === 'string'))
      throw new ConfigError(
        'PROVISIONER_AGENT_COMMAND',
        'must be a JSON list of strings (the command and its leading arguments)',
      );
  }
  return {
    leaseMs: int(env, 'PROVISIONER_LEASE_MS', 30_000, 500, 3_600_000),
    maxAttempts: int(env, 'PROVISIONER_MAX_ATTEMPTS', 3, 1, 100),
    maxAcquireWaitMs: int(env, 'PROVISIONER_ACQUIRE_WAIT_MS', 25_000, 0, 120_000),
    reconcileIntervalMs: int(env, 'PREBUILDS_RECONCILE_INTERVAL_MS', 15_000, 100, 3_600_000),
    agentDisconnectMs: int(env, 'AGENT_DISCONNECT_TIMEOUT_MS', 60_000, 500, 3_600_000),
    reinitPingMs: int(env, 'REINIT_PING_MS', 15_000, 100, 600_000),
    isolation: isolationFrom(env),
    uidRange: uidRangeFrom(env),
    connectionLogCountCap: int(env, 'CONNECTION_LOG_COUNT_CAP', 2000, 1, 100_000_000),
    logFollowPollMs: int(env, 'CODER_LOG_FOLLOW_POLL_MS', 500, 20, 60_000),
    watchPollMs: int(env, 'WORKSPACE_WATCH_POLL_MS', 1_000, 20, 60_000),
    wildcardAccess: wildcardAccessFrom(env),
    allowPathAppSharing: bool(env, 'DANGEROUS_ALLOW_PATH_APP_SHARING', false),
    allowPathAppSiteOwnerAccess: bool(env, 'DANGEROUS_ALLOW_PATH_APP_SITE_OWNER_ACCESS', false),
  };
}
