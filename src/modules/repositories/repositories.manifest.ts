import { loadRepositoriesConfig } from './repositories.config';
import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { REPOSITORIES_ENTITIES } from './entities';
import { REPOSITORIES_MIGRATIONS } from './migrations';
import { RepositoriesModule } from './repositories.module';

/** The repositories module as the composition root (src/app.modules.ts) sees it. */
export const REPOSITORIES_MANIFEST: ModuleManifest = {
  name: 'repositories',
  module: RepositoriesModule,
  entities: REPOSITORIES_ENTITIES,
  migrations: REPOSITORIES_MIGRATIONS,
  validateConfig: (env) => void loadRepositoriesConfig(env),
};
