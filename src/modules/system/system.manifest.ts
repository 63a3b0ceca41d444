import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { SystemModule } from './system.module';

/** The system module as the composition root (src/app.modules.ts) sees it. */
export const SYSTEM_MANIFEST: ModuleManifest = {
  name: 'system',
  module: SystemModule,
  entities: [],
  migrations: [],
};
