import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { dataSourceOptions, type DatabaseSchemaParts } from './data-source.factory';
import { DATABASE_RUNTIME, type DatabaseRuntime } from './database-runtime';
import { TransactionRunner } from './transaction-runner.service';

/**
 * Migrations at start, under a PostgreSQL advisory lock keyed by the schema, so instances started
 * together on an empty database do not race (one migrates, the others wait and find nothing to do).
 * The embedded database serves one process (its data directory is locked) on one connection: no lock.
 */
async function runMigrationsLocked(dataSource: DataSource, embedded: boolean): Promise<DataSource> {
  if (embedded) {
    await dataSource.runMigrations({ transaction: 'each' });
    return dataSource;
  }
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [
      `devplane:migrate:${await currentSchema(runner)}`,
    ]);
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [
        `devplane:migrate:${await currentSchema(runner)}`,
      ]);
    }
  } finally {
    await runner.release();
  }
  return dataSource;
}

async function currentSchema(runner: { query(sql: string): Promise<{ schema: string }[]> }): Promise<string> {
  return (await runner.query('SELECT current_schema() AS schema'))[0]?.schema ?? 'public';
}

/** TypeORM on the resolved database; migrations run at start (schema only through migrations). */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(runtime: DatabaseRuntime, parts: DatabaseSchemaParts): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => ({
            // Embedded: one connection. pglite-socket interleaves the extended-protocol messages of
            // concurrent connections on its single session (seen: "bind message supplies N
            // parameters, but prepared statement requires M"), so queries queue in the pool instead.
            ...dataSourceOptions(
              runtime.embedded ? { ...config, databasePoolSize: 1 } : config,
              runtime.url,
              parts,
            ),
            migrationsRun: false,
          }),
          dataSourceFactory: async (options) =>
            runMigrationsLocked(await new DataSource(options!).initialize(), runtime.embedded),
        }),
      ],
      providers: [{ provide: DATABASE_RUNTIME, useValue: runtime }, TransactionRunner],
      exports: [DATABASE_RUNTIME, TransactionRunner],
    };
  }
}
