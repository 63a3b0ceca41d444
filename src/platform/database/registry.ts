import { ADMIN_USERS_ENTITIES } from '../../modules/admin-users/entities';
import { ADMIN_USERS_MIGRATIONS } from '../../modules/admin-users/migrations';
import { AUTH_ENTITIES } from '../../modules/auth/entities';
import { AUTH_MIGRATIONS } from '../../modules/auth/migrations';
import { IDENTITY_ENTITIES } from '../../modules/identity/entities';
import { IDENTITY_MIGRATIONS } from '../../modules/identity/migrations';
import { NOTIFICATIONS_ENTITIES } from '../../modules/notifications/entities';
import { NOTIFICATIONS_MIGRATIONS } from '../../modules/notifications/migrations';
import { WORKFLOWS_ENTITIES } from '../../modules/workflows/entities';
import { WORKFLOWS_MIGRATIONS } from '../../modules/workflows/migrations';
import { Job } from '../jobs/job.entity';
import { PLATFORM_MIGRATIONS } from '../migrations';
import { SiteConfig } from '../site-config/site-config.entity';

/**
 * Every entity and migration of the app, listed explicitly so the app, the TypeORM CLI
 * (ormconfig.ts) and the drift check all see the same schema. A module keeps its own
 * `entities/index.ts` and `migrations/index.ts`; `npm run migration:generate -- <module> <Name>`
 * writes into `src/modules/<module>/migrations/` and rewrites that index.
 */
export const MODULE_ENTITIES: Record<string, Function[]> = {
  identity: [...IDENTITY_ENTITIES, SiteConfig],
  auth: AUTH_ENTITIES,
  workflows: WORKFLOWS_ENTITIES,
  notifications: NOTIFICATIONS_ENTITIES,
  'admin-users': ADMIN_USERS_ENTITIES,
  /** Platform tables (durable jobs); migrations in src/platform/migrations/. */
  platform: [Job],
};

export const MODULE_MIGRATIONS: Record<string, Function[]> = {
  identity: IDENTITY_MIGRATIONS,
  auth: AUTH_MIGRATIONS,
  workflows: WORKFLOWS_MIGRATIONS,
  notifications: NOTIFICATIONS_MIGRATIONS,
  'admin-users': ADMIN_USERS_MIGRATIONS,
  platform: PLATFORM_MIGRATIONS,
};

export const ALL_ENTITIES = Object.values(MODULE_ENTITIES).flat();
export const ALL_MIGRATIONS = Object.values(MODULE_MIGRATIONS).flat();
