import { type DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { dataSourceOptions, type DatabaseSchemaParts } from './data-source.factory';
import { DATABASE_RUNTIME, type DatabaseRuntime } from './database-runtime';
import { TransactionRunner } from './transaction-runner.service';

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
            ...dataSourceOptions(runtime.embedded ? { ...config, databasePoolSize: 1 } : config, runtime.url, parts),
            migrationsRun: true,
          }),
          dataSourceFactory: async (options) => new DataSource(options!).initialize(),
        }),
      ],
      providers: [{ provide: DATABASE_RUNTIME, useValue: runtime }, TransactionRunner],
      exports: [DATABASE_RUNTIME, TransactionRunner],
    };
  }
}
