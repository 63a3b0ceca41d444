import type { ModuleManifest } from '../../platform/modules/module-manifest';
import { AuditLogEntry } from './audit-log.entity';
import { AuditModule } from './audit.module';
import { AUDIT_MIGRATIONS } from './migrations';

/** The audit module as the composition root (src/app.modules.ts) sees it. */
export const AUDIT_MANIFEST: ModuleManifest = {
  name: 'audit',
  module: AuditModule,
  entities: [AuditLogEntry],
  migrations: AUDIT_MIGRATIONS,
};
