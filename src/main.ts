import { createApp } from './app.factory';
import { ConfigError, int, loadConfig, type AppConfig } from './platform/config/app-config';
import { DataDirectoryLockedError } from './platform/database/embedded-postgres';
import { openDatabase } from './platform/database/open-database';
import { APP_MODULES } from './app.modules';
import { loadJobsConfig } from './platform/jobs/jobs.config';
import { Client } from 'pg';
import { createServer } from 'node:net';

/** One connection before Nest starts: an unreachable database is one clear line, not a retry loop's stacks. */
async function probeDatabase(url: string): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
  } finally {
    await client.end().catch(() => undefined);
  }
}
import { BootstrapAdminService } from './modules/identity/bootstrap-admin.service';
import { startEmbeddedProvisioners } from './embedded-provisioners';
import { installProcessSafetyNet } from './platform/logging/process-safety-net';
import { ShutdownDrain } from './platform/lifecycle/shutdown-drain';
import { checkBlobStoreAtBoot } from './platform/storage/storage.module';
import { resolveIsolation } from './provisioner/sandbox/launcher';
import { isolationFrom } from './modules/workspaces/workspaces.config';

/**
 * An explicit WORKSPACE_ISOLATION (sandbox, user) this host cannot give, for the built-in provisioner
 * daemons this server runs: one line before anything starts (issue 51.3), not a stack once it listens.
 * The detection is the provisioner's own (`resolveIsolation`).
 */
function checkIsolation(config: AppConfig): void {
  const embedded = config.databaseUrl === undefined || config.databaseIsEmbedded;
  if (int(config.env, 'PROVISIONER_DAEMONS', embedded ? 1 : 0, 0, 64) === 0) return;
  const setting = isolationFrom(config.env);
  if (setting === 'auto' || setting === 'none') return;
  try {
    resolveIsolation(setting);
  } catch (error) {
    const detail = (error as Error).message.replace(/^.*? is not possible on this host: /, '');
    throw new ConfigError(
      'WORKSPACE_ISOLATION',
      `is ${setting}, which this host cannot give (${detail}): ` +
        (setting === 'sandbox'
          ? 'run the server as root with bubblewrap installed (apt-get install -y bubblewrap) where user namespaces are allowed'
          : 'run the server as root (util-linux unshare and setpriv)') +
        ', or set WORKSPACE_ISOLATION=auto (the strongest available; without isolation only site owners get workspaces)',
    );
  }
}

/** Refused, unresolvable or timed-out database connections (the driver's and the OS's codes). */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' &&
    [
      'ECONNREFUSED',
      'ENOTFOUND',
      'ETIMEDOUT',
      'EHOSTUNREACH',
      'ECONNRESET',
      'EAI_AGAIN',
      '28P01',
      '3D000',
    ].includes(code)
  );
}

/** Whether the port can be bound, by binding it for a moment (EADDRINUSE, EACCES: rejected with the code). */
function probePort(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

async function main(): Promise<void> {
  installProcessSafetyNet();
  process.umask(0o077); // what the server writes (DATA_DIR: database, repositories, blobs) is the owner's only
  const config = loadConfig();
  // Module settings are checked before anything starts: the same one-line error as core settings.
  loadJobsConfig(config.env);
  for (const manifest of APP_MODULES) manifest.validateConfig?.(config.env);
  checkIsolation(config);
  await checkBlobStoreAtBoot(config);
  const database = await openDatabase(config);
  await probeDatabase(database.url);
  const app = await createApp(config, database);
  // Graceful shutdown: stop accepting, let in-flight requests finish (app.close closes the HTTP
  // server, then runs the modules' shutdown hooks: dispatchers, data source), then stop the
  // embedded database last.
  let stopping = false;
  let stopProvisioners: () => Promise<void> = async () => undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`devplane: ${signal} received, draining requests and shutting down\n`);
    const timer = setTimeout(() => process.exit(1), 30_000);
    timer.unref();
    stopProvisioners()
      // Pushes first: their hooks call back into this listener, so it stays open until they ended.
      .then(() => app.get(ShutdownDrain).drain(20_000))
      .then(() => app.close())
      .then(() => database.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        process.stderr.write(`devplane: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      });
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  // A taken port is found before Nest listens (its listen failure is also logged by Nest): one line.
  await probePort(config.port, config.host)
    .then(() => app.listen(config.port, config.host))
    .catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE')
        throw new ConfigError(
          'PORT',
          `${config.port} on ${config.host} is taken by another process (EADDRINUSE): stop that process, or set PORT (or HOST) to a free one`,
        );
      if (code === 'EACCES' || code === 'EADDRNOTAVAIL')
        throw new ConfigError(
          code === 'EACCES' ? 'PORT' : 'HOST',
          `${config.host}:${config.port} cannot be listened on (${code}): ${code === 'EACCES' ? 'ports below 1024 need privileges; set PORT to 1024 or above' : 'set HOST to an address of this machine'}`,
        );
      throw error;
    });
  const { port } = app.getHttpServer().address() as { port: number };
  stopProvisioners = startEmbeddedProvisioners(app, config, database.embedded, port);
  // The first administrator only once the server listens: a start that failed earlier created nobody.
  const admin = await app.get(BootstrapAdminService).ensure();
  // The start-up banner on stdout whatever LOG_LEVEL says, last (scripts and the benchmark wait for it).
  process.stdout.write(
    (admin
      ? `\nBootstrap administrator created.\n  username: ${admin.username}\n  email:    ${admin.email}\n  password: ${admin.password}\n` +
        'Keep this password: it is not shown again.\n\n'
      : '') +
      `devplane listening on ${config.host}:${port} (${database.embedded ? `embedded database in ${config.dataDir}` : 'PostgreSQL'}); open ${config.publicUrl} — API docs at ${config.publicUrl}docs\n`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirectoryLockedError) {
    process.stderr.write(`${error.message}\n`);
  } else if (isConnectionFailure(error)) {
    // One clear line, never the connection string (it may carry a password).
    process.stderr.write(`devplane cannot reach its database: ${(error as Error).message}\n`);
  } else {
    process.stderr.write(
      `devplane failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
