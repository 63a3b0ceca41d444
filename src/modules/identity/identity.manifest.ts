import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { SiteConfig } from '../../platform/site-config/site-config.entity';
import { IDENTITY_ENTITIES } from './entities';
import { IDENTITY_MIGRATIONS } from './migrations';
import { IdentityModule } from './identity.module';

/** The identity module as the composition root (src/app.modules.ts) sees it. */
export const IDENTITY_MANIFEST: ModuleManifest = {
  name: 'identity',
  module: IdentityModule,
  // The site_config table (platform/site-config) came with identity's first migration.
  entities: [...IDENTITY_ENTITIES, SiteConfig],
  migrations: IDENTITY_MIGRATIONS,
};
