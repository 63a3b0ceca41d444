import { ConfigError, int, read, type Env } from '../../../platform/config/app-config';
import { allowedHostListProblem } from '../../../platform/net/allowed-host-list';

export const WEBHOOKS_CONFIG = Symbol('WEBHOOKS_CONFIG');

export interface WebhooksConfig {
  /** WEBHOOK_ALLOWED_HOST_LIST: Gitea's `webhook.ALLOWED_HOST_LIST` (default `external`). */
  allowedHostList: string;
  /** WEBHOOK_DELIVER_TIMEOUT_SECONDS: one delivery attempt, connect to end of the answer (Gitea: 5). */
  deliverTimeoutSeconds: number;
  /** WEBHOOK_MAX_ATTEMPTS: attempts of one delivery (exponential backoff from WEBHOOK_RETRY_BACKOFF_MS). */
  maxAttempts: number;
  /** WEBHOOK_RETRY_BACKOFF_MS: wait before the second attempt; doubled each time, at most one hour. */
  retryBackoffMs: number;
}

export function loadWebhooksConfig(env: Env = process.env): WebhooksConfig {
  const allowedHostList = read(env, 'WEBHOOK_ALLOWED_HOST_LIST') ?? 'external';
  const problem = allowedHostListProblem(allowedHostList);
  if (problem) throw new ConfigError('WEBHOOK_ALLOWED_HOST_LIST', problem);
  return {
    allowedHostList,
    deliverTimeoutSeconds: int(env, 'WEBHOOK_DELIVER_TIMEOUT_SECONDS', 5, 1, 600),
    maxAttempts: int(env, 'WEBHOOK_MAX_ATTEMPTS', 8, 1, 50),
    retryBackoffMs: int(env, 'WEBHOOK_RETRY_BACKOFF_MS', 10_000, 10, 3_600_000),
  };
}
