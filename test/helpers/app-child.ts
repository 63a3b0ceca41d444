/**
 * A devplane server as a child process (for crash tests): `node -r @swc-node/register
 * test/helpers/app-child.ts`, configured by the environment like the real server (DATABASE_URL,
 * DATABASE_SCHEMA, ...). Prints `APP_CHILD_READY <port>` once it listens. No signal handling: the
 * test kills it with SIGKILL.
 */
import { createApp } from '../../src/app.factory';
import { BootstrapAdminService } from '../../src/modules/identity/bootstrap-admin.service';
import { loadConfig } from '../../src/platform/config/app-config';
import { openDatabase } from '../../src/platform/database/open-database';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const database = await openDatabase(config);
  const app = await createApp(config, database);
  await app.listen(0, '127.0.0.1');
  await app.get(BootstrapAdminService).ensure();
  const { port } = app.getHttpServer().address() as { port: number };
  process.stdout.write(`APP_CHILD_READY ${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `app-child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
