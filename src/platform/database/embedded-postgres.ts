import fs from 'node:fs';
import path from 'node:path';

/**
 * Embedded PostgreSQL: PGlite (Postgres compiled to WASM) in this process, served over the
 * PostgreSQL wire protocol by pglite-socket (a Unix socket in DATA_DIR, or a loopback port for
 * in-memory databases), so the `pg` driver and TypeORM
 * use it exactly like a server. One backend serves every connection in turn: inside a transaction
 * use only its EntityManager (a query on another connection would wait forever).
 */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

export class DataDirectoryLockedError extends Error {}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the embedded database's lock for `directory` (DATA_DIR/pglite) without starting it (CLI dump/restore). */
export function lockEmbeddedDirectory(directory: string): () => void {
  return acquireLock(path.join(directory, '..', 'pglite.lock'));
}

/** PGlite has no lock of its own: two processes on one directory silently lose rows. */
function acquireLock(lockPath: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processIsAlive(holder)) {
        throw new DataDirectoryLockedError(
          `The embedded database in ${path.dirname(lockPath)} is in use by another devplane process (pid ${holder}). ` +
            'Stop it first, or point DATA_DIR elsewhere, or set DATABASE_URL to use a PostgreSQL server.',
        );
      }
      fs.rmSync(lockPath, { force: true }); // stale lock of a dead process
    }
  }
  throw new DataDirectoryLockedError(`Could not take the lock ${lockPath}`);
}

export async function startEmbeddedPostgres(
  directory: string | undefined,
  maxConnections = 20,
): Promise<EmbeddedPostgres> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  let release = (): void => undefined;
  if (directory) {
    // Owner-only: the data directory holds the database files and the socket.
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    fs.chmodSync(path.dirname(path.resolve(directory)), 0o700);
    fs.chmodSync(directory, 0o700);
    release = acquireLock(path.join(directory, '..', 'pglite.lock'));
  }
  try {
    // pg_trgm: trigram indexes for user search (admin-users), as on a PostgreSQL server.
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    const options = { extensions: { pg_trgm } };
    const db = directory ? await PGlite.create(directory, options) : await PGlite.create(options);
    // A persistent database listens on a Unix socket inside DATA_DIR (owner-only), never on a TCP
    // port any local user could reach; the in-memory databases of tests and benchmarks use loopback.
    const socketDir = directory ? path.resolve(directory, '..') : undefined;
    const socketPath = socketDir ? path.join(socketDir, '.s.PGSQL.5432') : undefined;
    const useSocket = socketPath !== undefined && socketPath.length < 100;
    if (useSocket) fs.rmSync(socketPath, { force: true }); // a stale socket of a dead process (the lock is ours)
    const server = useSocket
      ? new PGLiteSocketServer({ db, path: socketPath, maxConnections })
      : new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections });
    await server.start();
    if (useSocket) fs.chmodSync(socketPath, 0o600);
    const conn = server.getServerConn(); // "127.0.0.1:<port>" for TCP
    return {
      url: useSocket
        ? `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir!)}`
        : `postgres://postgres@${conn}/postgres`,
      async stop() {
        await server.stop();
        await db.close();
        release();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
