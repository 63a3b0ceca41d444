import os from 'node:os';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Client } from 'pg';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { DataSource as DataSourceToken } from 'typeorm';
import { createApp, type CreateAppOptions } from '../../src/app.factory';
import { loadConfig, type AppConfig } from '../../src/platform/config/app-config';
import { openDatabase } from '../../src/platform/database/open-database';
import { Factories } from './factories';
import { BootstrapAdminService } from '../../src/modules/identity/bootstrap-admin.service';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  /** supertest agent bound to the app's HTTP server. */
  http: () => ReturnType<typeof request>;
  factories: Factories;
  dataSource: DataSource;
  schema: string;
  /** Base URL once `listen()` was called (for real clients: WebSocket, git, fetch). */
  url?: string;
  /** Listens on 127.0.0.1 (`port` 0: any free port; give one to match a PUBLIC_URL chosen before). */
  listen(port?: number): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Extra environment variables (validated like real configuration). */
  env?: Record<string, string>;
  /** Reuse an existing schema (a second instance on the same data). */
  schema?: string;
  /** Extra modules next to the app's own (fixture controllers of protocol and body tests). */
  modules?: CreateAppOptions['modules'];
}

/**
 * A real app on a real database: its own schema per call (unless `schema` is given), migrations
 * applied at start, nothing mocked. Call `close()` in afterAll; it drops the schema it created.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const schema = options.schema ?? `t_${randomBytes(6).toString('hex')}`;
  const releaseSchema = claimEmbeddedSchema(schema);
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ADMIN_USERNAME: 'admin',
    ADMIN_EMAIL: 'admin@example.com',
    ADMIN_PASSWORD: 'Bootstrap-Admin-Password-1',
    DATA_DIR: `${os.tmpdir()}/devplane-test/${schema}`,
    SECRETS_KEY: TEST_SECRETS_KEY,
    RATE_LIMIT_ENABLED: 'false',
    DATABASE_POOL_SIZE: '4',
    ...options.env,
    DATABASE_SCHEMA: schema,
  });
  let database: Awaited<ReturnType<typeof openDatabase>>;
  let app: NestExpressApplication;
  try {
    database = await openDatabase(config);
    app = await createApp(config, database, { modules: options.modules });
  } catch (error) {
    releaseSchema();
    throw error;
  }
  // The server creates the first administrator once it listens; tests want it at once.
  await app.get(BootstrapAdminService).ensure();
  const dataSource = app.get<DataSource>(DataSourceToken);
  const testApp: TestApp = {
    app,
    config,
    schema,
    dataSource,
    http: () => request(app.getHttpServer()),
    factories: new Factories(app),
    async listen(port = 0) {
      await app.listen(port, '127.0.0.1');
      const address = app.getHttpServer().address() as { port: number };
      testApp.url = `http://127.0.0.1:${address.port}`;
      return testApp.url;
    },
    async close() {
      // A connection a killed agent or an unfinished client left open must not hold the file's close: after a
      // grace period, the HTTP server drops what is still open (app.close waits for every connection).
      const server = app.getHttpServer() as import('node:http').Server;
      const dropLeftovers = setTimeout(() => server.closeAllConnections?.(), 5000);
      dropLeftovers.unref();
      try {
        await app.close();
        if (!options.schema) {
          const client = new Client({ connectionString: database.url });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await client.end();
        }
        await database.close();
      } finally {
        clearTimeout(dropLeftovers);
        releaseSchema();
        // The app that created the schema owns its DATA_DIR; a second instance on it leaves it alone.
        if (!options.schema && !options.env?.DATA_DIR)
          await rm(config.dataDir, { recursive: true, force: true });
      }
    },
  };
  return testApp;
}

/** Schemas of the test apps open in this file, with how many apps use each. */
const openEmbeddedSchemas = new Map<string, number>();

/**
 * The embedded test database (no DATABASE_URL) has one session, and `search_path` is a property of
 * that session: a second app on another schema would silently switch the first app's tables away.
 * So with it, every app open at the same time must share one schema (`schema: first.schema`, a second
 * instance on the same data); anything else is refused here with a message instead of failing later
 * with `relation ... does not exist`. On a PostgreSQL server every connection has its own path.
 */
function claimEmbeddedSchema(schema: string): () => void {
  if (process.env.DATABASE_EMBEDDED !== 'true') return () => undefined;
  const other = [...openEmbeddedSchemas.keys()].find((open) => open !== schema);
  if (other !== undefined) {
    throw new Error(
      `createTestApp: the embedded test database serves one schema at a time, and an app on schema ${other} ` +
        `is still open. Close it first, or open this app on the same data with { schema: '${other}' } ` +
        '(a second instance), or run the file with DATABASE_URL set to a PostgreSQL server.',
    );
  }
  openEmbeddedSchemas.set(schema, (openEmbeddedSchemas.get(schema) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (openEmbeddedSchemas.get(schema) ?? 1) - 1;
    if (left > 0) openEmbeddedSchemas.set(schema, left);
    else openEmbeddedSchemas.delete(schema);
  };
}

/**
 * One secrets key for every test app and child process: processes that share a schema (restart
 * tests) must open what the other sealed, whatever their DATA_DIR.
 */
export const TEST_SECRETS_KEY = '0'.repeat(64);

export const BOOTSTRAP_ADMIN = {
  username: 'admin',
  email: 'admin@example.com',
  password: 'Bootstrap-Admin-Password-1',
};

export function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
}

export { freePort } from './free-port';
