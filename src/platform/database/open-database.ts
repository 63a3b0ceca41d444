import path from 'node:path';
import { Client } from 'pg';
import type { AppConfig } from '../config/app-config';
import type { DatabaseRuntime } from './database-runtime';
import { startEmbeddedPostgres } from './embedded-postgres';

export interface OpenDatabase extends DatabaseRuntime {
  close(): Promise<void>;
}

async function ensureSchema(url: string, schema: string | undefined): Promise<void> {
  if (!schema) return;
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } finally {
    await client.end();
  }
}

/**
 * `DATABASE_URL` set: that server. Unset: embedded PGlite in `DATA_DIR/pglite`.
 * Creates `DATABASE_SCHEMA` when one is configured (tests use one schema per file).
 */
export async function openDatabase(config: AppConfig): Promise<OpenDatabase> {
  let runtime: OpenDatabase;
  if (config.databaseUrl) {
    runtime = { url: config.databaseUrl, embedded: config.databaseIsEmbedded, close: async () => undefined };
  } else {
    const embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'pglite'), config.databasePoolSize + 5);
    runtime = { url: embedded.url, embedded: true, close: () => embedded.stop() };
  }
  await ensureSchema(runtime.url, config.databaseSchema);
  return runtime;
}
