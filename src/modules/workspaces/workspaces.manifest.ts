import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { WORKSPACES_ENTITIES } from './entities';
import { WORKSPACES_MIGRATIONS } from './migrations';
import { loadWorkspacesConfig } from './workspaces.config';
import { WorkspacesModule } from './workspaces.module';

/** The workspaces module as the composition root (src/app.modules.ts) sees it. */
export const WORKSPACES_MANIFEST: ModuleManifest = {
  name: 'workspaces',
  module: WorkspacesModule,
  entities: WORKSPACES_ENTITIES,
  migrations: WORKSPACES_MIGRATIONS,
  validateConfig: (env) => void loadWorkspacesConfig(env),
};
