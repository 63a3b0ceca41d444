import { bool, type Env, int } from '../../platform/config/app-config';

/** Settings of the auth module (validated at boot; documented in src/modules/auth/README.md). */
export interface AuthConfig {
  /** Lifetime of a token created with `lifetime: 0` (Coder `--default-token-lifetime`, 7 days). */
  defaultTokenLifetimeSeconds: number;
  /** Longest token lifetime for users (Coder `--max-token-lifetime`, 876600h). */
  maxTokenLifetimeSeconds: number;
  /** Longest token lifetime when the token's user is an owner (Coder `--max-admin-token-lifetime`, 168h). */
  maxAdminTokenLifetimeSeconds: number;
  /** Owners may ssh / application_connect into other users' workspaces (Coder's default). */
  ownerWorkspaceExec: boolean;
}

export const AUTH_CONFIG = Symbol('AUTH_CONFIG');

export function loadAuthConfig(env: Env = process.env): AuthConfig {
  return {
    defaultTokenLifetimeSeconds: int(env, 'TOKEN_DEFAULT_LIFETIME_SECONDS', 7 * 86_400, 60, 3_155_760_000),
    maxTokenLifetimeSeconds: int(env, 'TOKEN_MAX_LIFETIME_SECONDS', 876_600 * 3600, 60, 3_155_760_000),
    maxAdminTokenLifetimeSeconds: int(env, 'TOKEN_MAX_ADMIN_LIFETIME_SECONDS', 168 * 3600, 60, 3_155_760_000),
    ownerWorkspaceExec: bool(env, 'OWNER_WORKSPACE_EXEC', true),
  };
}

/** Go's `time.Duration.String()` for whole seconds: `168h0m0s`, `1m30s`, `45s`. */
export function goDuration(totalSeconds: number): string {
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
