import { bool, ConfigError, type Env, int, read, url } from '../../platform/config/app-config';

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
  /** OIDC sign-in (`OIDC_ISSUER_URL`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`); null when not configured. */
  oidc: OidcConfig | null;
}

export interface OidcConfig {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scopes asked for (`OIDC_SCOPES`, space or comma separated; default `openid profile email`). */
  scopes: string[];
  /** Sign in users whose provider does not mark the email verified (`OIDC_IGNORE_EMAIL_VERIFIED`, Coder's flag). */
  ignoreEmailVerified: boolean;
  /** Create accounts on first sign-in (`OIDC_ALLOW_SIGNUPS`, default true). */
  allowSignups: boolean;
}

function loadOidcConfig(env: Env): OidcConfig | null {
  const issuerUrl = url(env, 'OIDC_ISSUER_URL', ['http:', 'https:']);
  const clientId = read(env, 'OIDC_CLIENT_ID');
  if (!issuerUrl && !clientId) return null;
  if (!issuerUrl) throw new ConfigError('OIDC_ISSUER_URL', 'must be set when OIDC_CLIENT_ID is');
  if (!clientId) throw new ConfigError('OIDC_CLIENT_ID', 'must be set when OIDC_ISSUER_URL is');
  return {
    issuerUrl,
    clientId,
    clientSecret: read(env, 'OIDC_CLIENT_SECRET') ?? '',
    scopes: (read(env, 'OIDC_SCOPES') ?? 'openid profile email').split(/[\s,]+/).filter(Boolean),
    ignoreEmailVerified: bool(env, 'OIDC_IGNORE_EMAIL_VERIFIED', false),
    allowSignups: bool(env, 'OIDC_ALLOW_SIGNUPS', true),
  };
}

export const AUTH_CONFIG = Symbol('AUTH_CONFIG');

export function loadAuthConfig(env: Env = process.env): AuthConfig {
  return {
    defaultTokenLifetimeSeconds: int(env, 'TOKEN_DEFAULT_LIFETIME_SECONDS', 7 * 86_400, 60, 3_155_760_000),
    maxTokenLifetimeSeconds: int(env, 'TOKEN_MAX_LIFETIME_SECONDS', 876_600 * 3600, 60, 3_155_760_000),
    maxAdminTokenLifetimeSeconds: int(env, 'TOKEN_MAX_ADMIN_LIFETIME_SECONDS', 168 * 3600, 60, 3_155_760_000),
    ownerWorkspaceExec: bool(env, 'OWNER_WORKSPACE_EXEC', true),
    oidc: loadOidcConfig(env),
  };
}

/** The longest lifetime a token of this user may have: owners' tokens are capped shorter (Coder's rule). */
export function maxTokenLifetimeSeconds(config: AuthConfig, isAdmin: boolean): number {
  return isAdmin ? config.maxAdminTokenLifetimeSeconds : config.maxTokenLifetimeSeconds;
}

/**
 * The token lifetime rule, shared by the API (Coder's keys route) and the admin CLI (issue 46.4): a
 * requested lifetime in whole seconds (0 = the default) becomes the lifetime to store, or the reason it
 * is refused (`lifetime must be less than 168h0m0s`). Refused, never clamped: the caller asked for it.
 */
export function tokenLifetime(
  config: AuthConfig,
  isAdmin: boolean,
  requestedSeconds: number,
): { seconds: number } | { refused: string } {
  if (requestedSeconds === 0) return { seconds: config.defaultTokenLifetimeSeconds };
  if (!(requestedSeconds > 0)) return { refused: 'lifetime must be positive number greater than 0' };
  const max = maxTokenLifetimeSeconds(config, isAdmin);
  if (requestedSeconds > max) return { refused: `lifetime must be less than ${goDuration(max)}` };
  return { seconds: requestedSeconds };
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
