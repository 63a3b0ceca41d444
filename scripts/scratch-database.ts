import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config';
import { dataSourceOptions } from '../src/platform/database/data-source.factory';
import { startEmbeddedPostgres } from '../src/platform/database/embedded-postgres';
import { APP_MIGRATIONS } from '../src/app.modules';

/**
 * A throw-away database with every migration applied: a fresh schema on DATABASE_URL, or an
 * in-memory PGlite when no server is configured.
 */
export async function withMigratedScratchDatabase<T>(
  entities: Function[],
  work: (dataSource: DataSource) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(undefined, 5);
  const url = config.databaseUrl ?? embedded!.url;
  const schema = `scratch_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  const dataSource = new DataSource(
    dataSourceOptions({ databaseSchema: schema, databasePoolSize: 2 }, url, {
      entities,
      migrations: APP_MIGRATIONS,
    }),
  );
  try {
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'each' });
    return await work(dataSource);
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    await admin.end();
    await embedded?.stop();
  }
}
