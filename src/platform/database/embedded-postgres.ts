import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../config/app-config';

/**
 * Embedded PostgreSQL: PGlite (Postgres compiled to WASM) in this process, served over the
 * PostgreSQL wire protocol by pglite-socket, so the `pg` driver and TypeORM
 * use it exactly like a server. One backend serves every connection in turn: inside a transaction
 * use only its EntityManager (a query on another connection would wait forever).
 */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

export class DataDirectoryLockedError extends Error {}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function processIsAlive(pid: number): boolean {
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
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx', mode: 0o600 });
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

/**
 * The longest Unix socket path in bytes, NUL excluded: `sun_path` is 108 bytes on Linux and 104 on
 * macOS and the BSDs; the smaller one, so a DATA_DIR that works here works there.
 */
const MAX_SOCKET_PATH_BYTES = 103;
const SOCKET_NAME = '.s.PGSQL.5432';
/** DATA_DIR/pglite.socket-dir: where the socket is when it is not in DATA_DIR. */
const SOCKET_RECORD = 'pglite.socket-dir';

function socketFits(directory: string): boolean {
  return Buffer.byteLength(path.join(directory, SOCKET_NAME)) <= MAX_SOCKET_PATH_BYTES;
}

/**
 * Where the persistent database's socket lives: DATA_DIR itself (owner-only) when the socket path
 * fits, else a private directory made for this process under the OS temporary directory
 * (`mkdtemp`: mode 0700, owned by us, a name nobody can predict). Never a TCP port: a loopback
 * port has no password and any local user could connect (issue 31.7). When neither fits, the start
 * stops with one line naming what to shorten.
 */
function socketDirectory(dataDir: string): { directory: string; remove: () => void } {
  const record = path.join(dataDir, SOCKET_RECORD);
  fs.rmSync(record, { force: true }); // a dead process's (the data directory lock is ours)
  if (socketFits(dataDir)) return { directory: dataDir, remove: () => undefined };
  const tmp = os.tmpdir();
  // mkdtemp's six random characters: the final directory is as long as this probe.
  if (!socketFits(path.join(tmp, 'devplane-pg-XXXXXX'))) {
    throw new ConfigError(
      'DATA_DIR',
      `is too long for the embedded database's Unix socket (${Buffer.byteLength(path.join(dataDir, SOCKET_NAME))} bytes, ` +
        `at most ${MAX_SOCKET_PATH_BYTES}) and so is the temporary directory ${tmp} used instead; ` +
        'set a shorter DATA_DIR or TMPDIR (the embedded database never listens on TCP)',
    );
  }
  const directory = fs.mkdtempSync(path.join(tmp, 'devplane-pg-'));
  const stat = fs.lstatSync(directory);
  if (!stat.isDirectory() || (stat.mode & 0o077) !== 0 || stat.uid !== process.getuid?.()) {
    fs.rmSync(directory, { recursive: true, force: true });
    throw new ConfigError('TMPDIR', `gave ${directory}, which is not a private directory of this user`);
  }
  // Recorded in DATA_DIR for other processes of the owner (the admin CLI beside a running server).
  fs.writeFileSync(record, `${directory}\n`, { mode: 0o600 });
  return {
    directory,
    remove: () => {
      fs.rmSync(record, { force: true });
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The directory of the running embedded database's socket for `dataDir` (DATA_DIR), or undefined
 * when no server runs on it: DATA_DIR itself, or the private temporary directory recorded in
 * `DATA_DIR/pglite.socket-dir` when DATA_DIR is too long. Connect with
 * `postgres://postgres@localhost/postgres?host=<directory>`.
 */
export function embeddedSocketDirectory(dataDir: string): string | undefined {
  const root = path.resolve(dataDir);
  if (fs.existsSync(path.join(root, SOCKET_NAME))) return root;
  let recorded: string;
  try {
    recorded = fs.readFileSync(path.join(root, SOCKET_RECORD), 'utf8').trim();
  } catch {
    return undefined;
  }
  try {
    const stat = fs.lstatSync(recorded);
    // Only a private directory of this user: a record pointing elsewhere is not followed.
    if (!stat.isDirectory() || (stat.mode & 0o077) !== 0 || stat.uid !== process.getuid?.()) return undefined;
    return fs.existsSync(path.join(recorded, SOCKET_NAME)) ? recorded : undefined;
  } catch {
    return undefined;
  }
}

/** PGlite's options for every cluster: pg_trgm (trigram indexes for user search), as on a PostgreSQL server. */
async function pgliteOptions() {
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  return { extensions: { pg_trgm } };
}

/** The image of a new, empty in-memory cluster, for `startEmbeddedPostgres(undefined, n, image)` (tests). */
export async function dumpEmbeddedImage(): Promise<Blob> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(await pgliteOptions());
  try {
    return await db.dumpDataDir('none');
  } finally {
    await db.close();
  }
}

/**
 * PGlite writes the files of a new database with mode 0666 (its initdb image is copied in with
 * explicit modes, past the umask); later files follow the umask (0077, set in openDatabase).
 * Owner-only for every entry, at every start (also fixes data directories made by older versions
 * and archives restored by `restore`).
 */
export function restrictToOwner(root: string): void {
  const visit = (entry: string): void => {
    const stat = fs.lstatSync(entry);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      if ((stat.mode & 0o077) !== 0) fs.chmodSync(entry, stat.mode & 0o700);
      for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
    } else if ((stat.mode & 0o077) !== 0) {
      fs.chmodSync(entry, stat.mode & 0o700);
    }
  };
  visit(root);
}

/**
 * `directory` (DATA_DIR/pglite): the server's persistent database, served on a Unix socket only.
 * `undefined`: an in-memory database on a loopback port, for the test and benchmark harnesses only
 * (test/helpers/database-environment.ts, bench/): it holds nothing but their fixtures, and their child
 * processes connect to it by URL. No production path starts one (openDatabase always passes DATA_DIR).
 */
export async function startEmbeddedPostgres(
  directory: string | undefined,
  maxConnections = 20,
  /** In memory only: start from this image (`dumpEmbeddedImage`) instead of a new cluster (about 1 s instead of 5). */
  image?: Blob,
): Promise<EmbeddedPostgres> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  let release = (): void => undefined;
  let removeSocketDir = (): void => undefined;
  if (directory) {
    // Owner-only: the data directory holds the database files and the socket.
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    fs.chmodSync(path.dirname(path.resolve(directory)), 0o700);
    fs.chmodSync(directory, 0o700);
    release = acquireLock(path.join(directory, '..', 'pglite.lock'));
  }
  try {
    const socketDir = directory ? socketDirectory(path.resolve(directory, '..')) : undefined;
    if (socketDir) removeSocketDir = socketDir.remove;
    const options = await pgliteOptions();
    const db = directory
      ? await PGlite.create(directory, options)
      : await PGlite.create(image ? { ...options, loadDataDir: image } : options);
    if (directory) restrictToOwner(directory);
    let server: InstanceType<typeof PGLiteSocketServer>;
    let url: string;
    if (socketDir) {
      const socketPath = path.join(socketDir.directory, SOCKET_NAME);
      fs.rmSync(socketPath, { force: true }); // a stale socket of a dead process (the lock is ours)
      server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
      await server.start();
      fs.chmodSync(socketPath, 0o600);
      url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir.directory)}`;
    } else {
      server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections });
      await server.start();
      url = `postgres://postgres@${server.getServerConn()}/postgres`; // "127.0.0.1:<port>"
    }
    return {
      url,
      async stop() {
        await server.stop();
        await db.close();
        removeSocketDir();
        release();
      },
    };
  } catch (error) {
    removeSocketDir();
    release();
    throw error;
  }
}
