import { type Env, int } from '../../platform/config/app-config';

const INT32_MAX = 2_147_483_647;

/** Settings of the chats module (README.md in this folder), read once at boot. */
export interface ChatsConfig {
  /** `CHAT_MAX_STEPS`: model calls in one turn (tool calls in between), 1 … 50; default 10. */
  maxSteps: number;
  /** `CHAT_ACQUIRE_BATCH_SIZE`: chats a runner leases at once. */
  acquireBatchSize: number;
  /** `CHAT_RUNNER_ENABLED`: `false` turns this instance's runner off (it also needs the `agents` experiment). */
  runnerEnabled: boolean;
  /** `CHAT_RETENTION_DAYS`: archived chats older than this are purged; 0 keeps them forever. */
  retentionDays: number;
  /** `CHAT_GIT_WATCH_POLL_MS`: the git watch's periodic scan. */
  gitWatchPollMs: number;
  /** `CHAT_WATCH_POLL_MS`: how often the chats watch (`/chats/watch`) compares a user's chats; default 1000. */
  watchPollMs: number;
}

export const CHATS_CONFIG = Symbol('CHATS_CONFIG');

/** `chat.acquireBatchSize` (CHAT_ACQUIRE_BATCH_SIZE): any integer, clamped to 1 … 2^31-1 (the spec's 32-bit range). */
export function acquireBatchSize(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 10;
  const value = Number(raw);
  if (!Number.isFinite(value)) return 10;
  return Math.min(INT32_MAX, Math.max(1, Math.trunc(value)));
}

/** `CHAT_MAX_STEPS`: an integer prefix clamped to 1 … 50; anything else (or 0) is the default 10. */
export function maxSteps(raw: string | undefined): number {
  return Math.min(50, Math.max(1, Number.parseInt(raw ?? '10', 10) || 10));
}

export function loadChatsConfig(env: Env): ChatsConfig {
  return {
    maxSteps: maxSteps(env.CHAT_MAX_STEPS),
    acquireBatchSize: acquireBatchSize(env.CHAT_ACQUIRE_BATCH_SIZE),
    runnerEnabled: env.CHAT_RUNNER_ENABLED !== 'false',
    retentionDays: int(env, 'CHAT_RETENTION_DAYS', 60, 0, 36_500),
    gitWatchPollMs: int(env, 'CHAT_GIT_WATCH_POLL_MS', 30_000, 100, 3_600_000),
    watchPollMs: int(env, 'CHAT_WATCH_POLL_MS', 1_000, 50, 60_000),
  };
}
