import { loadNotificationsConfig } from './notifications.config';
import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { NOTIFICATIONS_ENTITIES } from './entities';
import { NOTIFICATIONS_MIGRATIONS } from './migrations';
import { NotificationsModule } from './notifications.module';

/** The notifications module as the composition root (src/app.modules.ts) sees it. */
export const NOTIFICATIONS_MANIFEST: ModuleManifest = {
  name: 'notifications',
  module: NotificationsModule,
  entities: NOTIFICATIONS_ENTITIES,
  migrations: NOTIFICATIONS_MIGRATIONS,
  validateConfig: (env) => void loadNotificationsConfig(env),
};
