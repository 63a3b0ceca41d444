import type { Type } from '@nestjs/common';

/**
 * What a feature module declares about itself, in `src/modules/<name>/<name>.manifest.ts`: its Nest
 * module, the entities and migrations it owns. The composition root (`src/app.modules.ts`) lists the
 * manifests; the app, the TypeORM CLI, the migration scripts and the CLI all read that one list.
 * Events are declared by augmenting `DomainEventMap` in the module's `events.ts`; hooks (owned
 * resources on user delete, the upload access check) are registered by the module at start-up.
 */
export interface ModuleManifest {
  /** The folder under `src/modules/` (`npm run migration:generate -- <name> <Migration>`). */
  name: string;
  /** The Nest module; absent for the platform's own tables (its modules are imported by app.module). */
  module?: Type<unknown>;
  entities: Function[];
  migrations: Function[];
  /**
   * Reads the module's own settings and throws a ConfigError when one is wrong: run by the server
   * and the CLI before Nest starts, so a module setting fails in the same one line as a core one.
   */
  validateConfig?: (env: NodeJS.ProcessEnv) => void;
}

/** Every entity of a list of manifests (the data source's `entities`). */
export function manifestEntities(manifests: readonly ModuleManifest[]): Function[] {
  return [...new Set(manifests.flatMap((manifest) => manifest.entities))];
}

/** Every migration of a list of manifests (TypeORM orders them by the timestamp in their names). */
export function manifestMigrations(manifests: readonly ModuleManifest[]): Function[] {
  return manifests.flatMap((manifest) => manifest.migrations);
}
