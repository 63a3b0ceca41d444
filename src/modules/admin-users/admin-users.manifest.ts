import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { ADMIN_USERS_ENTITIES } from './entities';
import { ADMIN_USERS_MIGRATIONS } from './migrations';
import { AdminUsersModule } from './admin-users.module';

/** The admin-users module as the composition root (src/app.modules.ts) sees it. */
export const ADMIN_USERS_MANIFEST: ModuleManifest = {
  name: 'admin-users',
  module: AdminUsersModule,
  entities: ADMIN_USERS_ENTITIES,
  migrations: ADMIN_USERS_MIGRATIONS,
};
