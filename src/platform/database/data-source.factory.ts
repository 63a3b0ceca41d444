import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';

/** The entities and migrations of the app: the composition root's manifests (src/app.modules.ts). */
export interface DatabaseSchemaParts {
  entities: Function[];
  migrations: Function[];
}

/** TypeORM options for PostgreSQL; the embedded database is a PostgreSQL too (see embedded-postgres.ts). */
export function dataSourceOptions(
  config: Pick<AppConfig, 'databaseSchema' | 'databasePoolSize'>,
  url: string,
  parts: DatabaseSchemaParts,
): DataSourceOptions {
  const schema = config.databaseSchema;
  return {
    type: 'postgres',
    url,
    // gen_random_uuid() is built into PostgreSQL 13+ (and PGlite): no extension to install.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    entities: parts.entities,
    migrations: parts.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: ['error'],
    // Everything lives in one schema; tests give each file its own through search_path.
    extra: {
      max: config.databasePoolSize,
      options: schema ? `-c search_path=${schema}` : undefined,
      connectionTimeoutMillis: 10_000,
    },
  };
}
