import { accessSync, chmodSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { type AppConfig, ConfigError } from '../config/app-config';
import type { DatabaseRuntime } from './database-runtime';
import { startEmbeddedPostgres } from './embedded-postgres';

export interface OpenDatabase extends DatabaseRuntime {
  close(): Promise<void>;
}

async function ensureSchema(url: string, schema: string | undefined, embedded: boolean): Promise<void> {
  if (!schema) return;
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // IF NOT EXISTS still races between instances starting together (a unique violation in the
    // catalogue): the loser finds the schema there, which is all it wanted.
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`).catch((error: { code?: string }) => {
      if (error.code !== '23505' && error.code !== '42P06') throw error;
    });
    // PGlite behind pglite-socket has ONE session shared by every connection and ignores
    // startup options: the search_path set here is what all connections use. So with the
    // embedded database only one schema can be in use at a time (tests run files one by one).
    if (embedded) await client.query(`SET search_path TO "${schema}"`);
  } finally {
    await client.end();
  }
}

/**
 * DATA_DIR and everything written into it are the owner's only (issue 30.5): workspace processes
 * and other local users must not read keys, repositories, blobs or database files. The umask covers
 * what this process and its children (git, PGlite's files) create from here on, in every entry point
 * that opens the database (server, CLI, test harness); DATA_DIR itself is made 0700.
 */
export function ownerOnlyDataDir(dataDir: string): void {
  try {
    process.umask(0o077);
  } catch {
    // worker threads cannot change the umask (the modes given at creation still apply)
  }
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
    accessSync(dataDir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    // One line naming the setting (issue 51.3), not a stack from mkdir.
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(
      'DATA_DIR',
      `(${dataDir}) cannot be created or written by this user (${code}): set DATA_DIR to a directory it owns, or create this one with \`mkdir -p\` and \`chown\` it to the user devplane runs as`,
    );
  }
}

/**
 * `DATABASE_URL` set: that server. Unset: embedded PGlite in `DATA_DIR/pglite`.
 * Creates `DATABASE_SCHEMA` when one is configured (tests use one schema per file).
 */
export async function openDatabase(config: AppConfig): Promise<OpenDatabase> {
  ownerOnlyDataDir(config.dataDir);
  let runtime: OpenDatabase;
  if (config.databaseUrl) {
    runtime = { url: config.databaseUrl, embedded: config.databaseIsEmbedded, close: async () => undefined };
  } else {
    const embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'pglite'), 20);
    runtime = { url: embedded.url, embedded: true, close: () => embedded.stop() };
  }
  await ensureSchema(runtime.url, config.databaseSchema, runtime.embedded);
  return runtime;
}
