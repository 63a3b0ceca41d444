import { bool, int, type Env } from '../../platform/config/app-config';

export const WORKFLOWS_CONFIG = Symbol('WORKFLOWS_CONFIG');

export interface WorkflowsConfig {
  /** WORKFLOW_WEBHOOK_ALLOW_PRIVATE: allow webhook URLs on private/loopback addresses (tests, intranets). */
  webhookAllowPrivate: boolean;
  /** WORKFLOW_WEBHOOK_TIMEOUT_MS: per-attempt timeout. */
  webhookTimeoutMs: number;
  /** WORKFLOW_WEBHOOK_RETRIES: retries after the first attempt. */
  webhookRetries: number;
  /** WORKFLOW_WEBHOOK_BACKOFF_MS: first retry delay, doubled each time. */
  webhookBackoffMs: number;
  /** WORKFLOW_RULE_CACHE_SECONDS: maximum age of the in-memory rules (changes drop it at once; this is the safety net). */
  ruleCacheSeconds: number;
  /** WORKFLOW_USER_SCOPE_DISABLED: Nextcloud's user_scope_disabled (the /user API answers 403 "User not logged in"). */
  userScopeDisabled: boolean;
}

export function loadWorkflowsConfig(env: Env = process.env): WorkflowsConfig {
  return {
    webhookAllowPrivate: bool(env, 'WORKFLOW_WEBHOOK_ALLOW_PRIVATE', false),
    webhookTimeoutMs: int(env, 'WORKFLOW_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookRetries: int(env, 'WORKFLOW_WEBHOOK_RETRIES', 3, 0, 10),
    webhookBackoffMs: int(env, 'WORKFLOW_WEBHOOK_BACKOFF_MS', 1_000, 0, 60_000),
    ruleCacheSeconds: int(env, 'WORKFLOW_RULE_CACHE_SECONDS', 300, 1, 86_400),
    userScopeDisabled: bool(env, 'WORKFLOW_USER_SCOPE_DISABLED', false),
  };
}
