import { IDENTITY_ENTITIES } from '../../modules/identity/entities';
import { IDENTITY_MIGRATIONS } from '../../modules/identity/migrations';
import { SiteConfig } from '../site-config/site-config.entity';

/**
 * Every entity and migration of the app, listed explicitly so the app, the TypeORM CLI
 * (ormconfig.ts) and the drift check all see the same schema. A module adds its
 * `entities/index.ts` and `migrations/index.ts` arrays here once; `npm run migration:generate --
 * <module>` writes into `src/modules/<module>/migrations/`.
 */
export const MODULE_ENTITIES: Record<string, Function[]> = {
  identity: [...IDENTITY_ENTITIES, SiteConfig],
};

export const MODULE_MIGRATIONS: Record<string, Function[]> = {
  identity: IDENTITY_MIGRATIONS,
};

export const ALL_ENTITIES = Object.values(MODULE_ENTITIES).flat();
export const ALL_MIGRATIONS = Object.values(MODULE_MIGRATIONS).flat();
