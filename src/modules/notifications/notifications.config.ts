import { bool, ConfigError, type Env, int } from '../../platform/config/app-config';

/**
 * Module-only settings of NotificationsModule (read from the environment at boot; see README).
 * Transport settings (SMTP_URL, SMTP_FROM, NOTIFICATIONS_METHOD, NOTIFICATIONS_WEBHOOK_URL) are in AppConfig.
 */
export interface NotificationsConfig {
  /** Fallback polling interval of the dispatcher (an enqueue wakes it at once). */
  fetchIntervalMs: number;
  /** How long a leased message belongs to one dispatcher; an expired lease makes it eligible again. */
  leasePeriodMs: number;
  /** Messages leased per round. */
  leaseCount: number;
  /** Attempts before a message becomes a permanent failure. */
  maxSendAttempts: number;
  /** Backoff base: retry n waits base * 2^(n-1) (±10 % jitter), capped by retryMaxMs. */
  retryIntervalMs: number;
  retryMaxMs: number;
  /** Timeout of one send; must be shorter than the lease period. */
  dispatchTimeoutMs: number;
  /** Concurrent sends per dispatcher. */
  sendConcurrency: number;
  /** Deliver to the inbox too (per template). */
  inboxEnabled: boolean;
  /** Finished queue rows are deleted after this many days. */
  retentionDays: number;
}

export const NOTIFICATIONS_CONFIG = Symbol('NOTIFICATIONS_CONFIG');

/**
 * `embedded`: the database is an embedded PGlite, which only one process can open, so every
 * enqueue wakes the dispatcher in process; the fallback poll then only serves retries and expired
 * leases and defaults to a slower 60 s (each poll is a query on the single shared backend).
 */
export function loadNotificationsConfig(
  env: Env = process.env,
  options: { embedded?: boolean } = {},
): NotificationsConfig {
  const config: NotificationsConfig = {
    fetchIntervalMs: int(
      env,
      'NOTIFICATIONS_FETCH_INTERVAL_MS',
      options.embedded ? 60_000 : 5_000,
      10,
      3_600_000,
    ),
    leasePeriodMs: int(env, 'NOTIFICATIONS_LEASE_PERIOD_MS', 120_000, 100, 86_400_000),
    leaseCount: int(env, 'NOTIFICATIONS_LEASE_COUNT', 100, 1, 10_000),
    maxSendAttempts: int(env, 'NOTIFICATIONS_MAX_SEND_ATTEMPTS', 5, 1, 100),
    retryIntervalMs: int(env, 'NOTIFICATIONS_RETRY_INTERVAL_MS', 300_000, 1, 86_400_000),
    retryMaxMs: int(env, 'NOTIFICATIONS_RETRY_MAX_MS', 3_600_000, 1, 604_800_000),
    dispatchTimeoutMs: int(env, 'NOTIFICATIONS_DISPATCH_TIMEOUT_MS', 60_000, 50, 3_600_000),
    sendConcurrency: int(env, 'NOTIFICATIONS_SEND_CONCURRENCY', 10, 1, 1_000),
    inboxEnabled: bool(env, 'NOTIFICATIONS_INBOX_ENABLED', true),
    retentionDays: int(env, 'NOTIFICATIONS_RETENTION_DAYS', 7, 1, 3_650),
  };
  if (config.dispatchTimeoutMs >= config.leasePeriodMs) {
    throw new ConfigError(
      'NOTIFICATIONS_DISPATCH_TIMEOUT_MS',
      'must be less than NOTIFICATIONS_LEASE_PERIOD_MS',
    );
  }
  return config;
}
