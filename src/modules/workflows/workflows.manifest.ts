import { loadWorkflowsConfig } from './workflows.config';
import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { WORKFLOWS_ENTITIES } from './entities';
import { WORKFLOWS_MIGRATIONS } from './migrations';
import { WorkflowsModule } from './workflows.module';

/** The workflows module as the composition root (src/app.modules.ts) sees it. */
export const WORKFLOWS_MANIFEST: ModuleManifest = {
  name: 'workflows',
  module: WorkflowsModule,
  entities: WORKFLOWS_ENTITIES,
  migrations: WORKFLOWS_MIGRATIONS,
  validateConfig: (env) => void loadWorkflowsConfig(env),
};
