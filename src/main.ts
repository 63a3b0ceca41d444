import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './platform/config/app-config';
import { DataDirectoryLockedError } from './platform/database/embedded-postgres';
import { openDatabase } from './platform/database/open-database';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config);
  const app = await createApp(config, database);
  // Nest closes the HTTP server (draining requests) and the data source on SIGTERM/SIGINT;
  // the embedded database stops after that.
  const shutdown = async () => {
    await database.close().catch(() => undefined);
  };
  process.once('beforeExit', () => void shutdown());
  app.getHttpServer().on('close', () => void shutdown());
  await app.listen(config.port);
  const { port } = app.getHttpServer().address() as { port: number };
  // A startup banner on stdout whatever LOG_LEVEL says (scripts and the benchmark wait for it).
  process.stdout.write(
    `devplane listening on port ${port} (${database.embedded ? `embedded database in ${config.dataDir}` : 'PostgreSQL'}); API docs at ${config.publicUrl}docs\n`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirectoryLockedError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`devplane failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
