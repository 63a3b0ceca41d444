import { Job } from './jobs/job.entity';
import { PLATFORM_MIGRATIONS } from './migrations';
import type { ModuleManifest } from './modules/module-manifest';

/** The platform's own tables (durable jobs), listed by the composition root beside the modules'. */
export const PLATFORM_MANIFEST: ModuleManifest = {
  name: 'platform',
  entities: [Job],
  migrations: PLATFORM_MIGRATIONS,
};
