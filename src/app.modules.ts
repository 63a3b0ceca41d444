import { ADMIN_USERS_MANIFEST } from './modules/admin-users/admin-users.manifest';
import { AI_GATEWAY_MANIFEST } from './modules/ai-gateway/ai-gateway.manifest';
import { AUDIT_MANIFEST } from './modules/audit/audit.manifest';
import { AUTH_MANIFEST } from './modules/auth/auth.manifest';
import { IDENTITY_MANIFEST } from './modules/identity/identity.manifest';
import { NOTIFICATIONS_MANIFEST } from './modules/notifications/notifications.manifest';
import { PACKAGES_MANIFEST } from './modules/packages/packages.manifest';
import { REPOSITORIES_MANIFEST } from './modules/repositories/repositories.manifest';
import { SYSTEM_MANIFEST } from './modules/system/system.manifest';
import { WORKFLOWS_MANIFEST } from './modules/workflows/workflows.manifest';
import { WORKSPACES_MANIFEST } from './modules/workspaces/workspaces.manifest';
import { CHATS_MANIFEST } from './modules/chats/chats.manifest';
import {
  manifestEntities,
  manifestMigrations,
  type ModuleManifest,
} from './platform/modules/module-manifest';
import { PLATFORM_MANIFEST } from './platform/platform.manifest';

/**
 * The composition root: every feature module, one line each. The app (app.module.ts), the TypeORM
 * CLI (ormconfig.ts), the migration scripts and the admin CLI read this list. Identity and auth come
 * first: every other module calls them.
 */
export const APP_MODULES: readonly ModuleManifest[] = [
  IDENTITY_MANIFEST,
  AUTH_MANIFEST,
  AUDIT_MANIFEST,
  SYSTEM_MANIFEST,
  WORKFLOWS_MANIFEST,
  NOTIFICATIONS_MANIFEST,
  ADMIN_USERS_MANIFEST,
  REPOSITORIES_MANIFEST,
  PACKAGES_MANIFEST,
  AI_GATEWAY_MANIFEST,
  WORKSPACES_MANIFEST,
  CHATS_MANIFEST,
];

/** The platform's own tables first (durable jobs), then every module's. */
const ALL_MANIFESTS: readonly ModuleManifest[] = [PLATFORM_MANIFEST, ...APP_MODULES];

export const APP_ENTITIES = manifestEntities(ALL_MANIFESTS);
export const APP_MIGRATIONS = manifestMigrations(ALL_MANIFESTS);

/** Manifests by folder name (migration:generate; `platform` writes to src/platform/migrations). */
export function manifestNamed(name: string): ModuleManifest | undefined {
  return ALL_MANIFESTS.find((manifest) => manifest.name === name);
}

export const MANIFEST_NAMES = ALL_MANIFESTS.map((manifest) => manifest.name);
