import { bool, int, type Env } from '../../platform/config/app-config';

export const REPOSITORIES_CONFIG = Symbol('REPOSITORIES_CONFIG');

export interface RepositoriesConfig {
  /** MIGRATIONS_ALLOW_LOCAL_NETWORKS: allow `POST /repos/migrate` from private and loopback addresses (Gitea's [migrations] ALLOW_LOCALNETWORKS). */
  migrationsAllowLocalNetworks: boolean;
  /** MIRROR_DEFAULT_INTERVAL_SECONDS: how often a mirror fetches when the migration names no interval (Gitea: 8h). */
  mirrorDefaultIntervalSeconds: number;
  /** MIRROR_MIN_INTERVAL_SECONDS: the shortest interval a migration may ask for (Gitea: 10m). */
  mirrorMinIntervalSeconds: number;
  /** MIGRATIONS_STALL_SECONDS: a clone or fetch moving under 1 KB/s for this long is aborted. */
  migrationsStallSeconds: number;
  /**
   * PUSH_REACTIONS_LEASE_MS: how long one run of a push's reactions (`repositories.push` job) may take
   * before another worker takes it over (a crashed worker's run is repeated after this).
   */
  pushReactionsLeaseMs: number;
  /** LFS_MAX_FILE_SIZE: the largest Git LFS object accepted, in bytes (Gitea's [server] LFS_MAX_FILE_SIZE). */
  lfsMaxFileSize: number;
  /** LFS_HTTP_AUTH_EXPIRY_SECONDS: how long the signed links of an LFS batch answer stay valid. */
  lfsLinkExpirySeconds: number;
}

export function loadRepositoriesConfig(env: Env = process.env): RepositoriesConfig {
  return {
    migrationsAllowLocalNetworks: bool(env, 'MIGRATIONS_ALLOW_LOCAL_NETWORKS', false),
    mirrorDefaultIntervalSeconds: int(env, 'MIRROR_DEFAULT_INTERVAL_SECONDS', 8 * 3600, 60, 365 * 86_400),
    mirrorMinIntervalSeconds: int(env, 'MIRROR_MIN_INTERVAL_SECONDS', 600, 1, 86_400),
    migrationsStallSeconds: int(env, 'MIGRATIONS_STALL_SECONDS', 60, 5, 3600),
    pushReactionsLeaseMs: int(env, 'PUSH_REACTIONS_LEASE_MS', 300_000, 2_000, 3_600_000),
    lfsMaxFileSize: int(env, 'LFS_MAX_FILE_SIZE', 4 * 1024 ** 3, 1, 1024 ** 4),
    lfsLinkExpirySeconds: int(env, 'LFS_HTTP_AUTH_EXPIRY_SECONDS', 3600, 60, 7 * 86_400),
  };
}
