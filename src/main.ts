import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './platform/config/app-config';
import { DataDirectoryLockedError } from './platform/database/embedded-postgres';
import { openDatabase } from './platform/database/open-database';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config);
  const app = await createApp(config, database);
  // Graceful shutdown: stop accepting, let in-flight requests finish (app.close closes the HTTP
  // server, then runs the modules' shutdown hooks: dispatchers, data source), then stop the
  // embedded database last.
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`devplane: ${signal} received, draining requests and shutting down\n`);
    const timer = setTimeout(() => process.exit(1), 30_000);
    timer.unref();
    app
      .close()
      .then(() => database.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        process.stderr.write(`devplane: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      });
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
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
    process.stderr.write(
      `devplane failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
