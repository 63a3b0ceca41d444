import { loadAuthConfig } from './auth.config';
import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { AUTH_ENTITIES } from './entities';
import { AUTH_MIGRATIONS } from './migrations';
import { AuthModule } from './auth.module';

/** The auth module as the composition root (src/app.modules.ts) sees it. */
export const AUTH_MANIFEST: ModuleManifest = {
  name: 'auth',
  module: AuthModule,
  entities: AUTH_ENTITIES,
  migrations: AUTH_MIGRATIONS,
  validateConfig: (env) => void loadAuthConfig(env),
};
