import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { PACKAGES_ENTITIES } from './entities';
import { PACKAGES_MIGRATIONS } from './migrations';
import { PackagesModule } from './packages.module';

/** The packages module as the composition root (src/app.modules.ts) sees it. */
export const PACKAGES_MANIFEST: ModuleManifest = {
  name: 'packages',
  module: PackagesModule,
  entities: PACKAGES_ENTITIES,
  migrations: PACKAGES_MIGRATIONS,
};
