import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../config/app-config';
import { lockEmbeddedDirectory } from './embedded-postgres';

/** A failure of dump or restore, with a message fit for the operator (no secrets). */
export class DumpError extends Error {}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        new DumpError(
          error.code === 'ENOENT'
            ? `${command} not found: install the PostgreSQL client tools (Debian: postgresql-client) or the tar command`
            : `${command} failed to start: ${error.message}`,
        ),
      ),
    );
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(
            new DumpError(`${command} exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' ')}`),
          ),
    );
  });
}

/** libpq settings from DATABASE_URL, passed by environment so the password never shows in a process list. */
function libpqEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const url = new URL(databaseUrl);
  const env: NodeJS.ProcessEnv = { ...process.env };
  env.PGHOST = decodeURIComponent(url.hostname || '127.0.0.1');
  env.PGPORT = url.port || '5432';
  if (url.username) env.PGUSER = decodeURIComponent(url.username);
  if (url.password) env.PGPASSWORD = decodeURIComponent(url.password);
  env.PGDATABASE = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres';
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode) env.PGSSLMODE = sslmode;
  return env;
}

/**
 * `dump --output FILE`. PostgreSQL: pg_dump's plain SQL (owner and grants left out, so it loads
 * into another server), limited to DATABASE_SCHEMA when one is set. Embedded: a gzipped tar of
 * DATA_DIR/pglite taken while holding the data directory's lock, so no process writes meanwhile.
 */
export async function dumpDatabase(config: AppConfig, output: string): Promise<string> {
  const target = path.resolve(output);
  if (config.databaseUrl) {
    const args = ['--no-owner', '--no-privileges', '--format=plain', `--file=${target}`];
    // A schema-only dump leaves extensions out; the indexes need them (pg_trgm), so name them all.
    if (config.databaseSchema) args.push(`--schema=${config.databaseSchema}`, '--extension=*');
    await run('pg_dump', args, libpqEnv(config.databaseUrl));
    return `Wrote an SQL dump to ${target}.`;
  }
  const directory = path.join(config.dataDir, 'pglite');
  if (!existsSync(directory)) throw new DumpError(`No embedded database in ${directory}.`);
  const release = lockEmbeddedDirectory(directory);
  try {
    await run('tar', ['-czf', target, '-C', config.dataDir, 'pglite'], process.env);
  } finally {
    release();
  }
  return `Wrote a copy of the embedded database to ${target}.`;
}

async function archiveEntries(input: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('tar', ['-tzf', input], { stdio: ['ignore', 'pipe', 'ignore'] });
    let listing = '';
    child.stdout.on('data', (chunk: Buffer) => (listing += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(listing.split('\n').filter(Boolean))
        : reject(new DumpError(`${input} is not a dump made by "dump" (not a tar.gz archive)`)),
    );
  });
}

/**
 * `restore --input FILE [--force]`. PostgreSQL: psql runs the SQL in one transaction and stops at the
 * first error (nothing half-loaded). Embedded: the archive must hold only `pglite/...`; existing data
 * is refused unless --force, which moves it aside to `pglite.replaced-<time>` rather than deleting it.
 */
export async function restoreDatabase(config: AppConfig, input: string, force: boolean): Promise<string> {
  const source = path.resolve(input);
  if (!existsSync(source)) throw new DumpError(`${source} does not exist.`);
  if (config.databaseUrl) {
    await run(
      'psql',
      ['--quiet', '--no-psqlrc', '--single-transaction', '-v', 'ON_ERROR_STOP=1', '-f', source],
      libpqEnv(config.databaseUrl),
    );
    return `Restored ${source}.`;
  }
  const entries = await archiveEntries(source);
  if (
    entries.length === 0 ||
    entries.some((entry) => !/^pglite(\/|$)/.test(entry) || entry.split('/').includes('..'))
  ) {
    throw new DumpError(`${source} is not a dump made by "dump" (it must hold only the pglite directory).`);
  }
  const directory = path.join(config.dataDir, 'pglite');
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const release = lockEmbeddedDirectory(directory);
  try {
    let movedAside = '';
    if (existsSync(directory) && readdirSync(directory).length > 0) {
      if (!force)
        throw new DumpError(
          `${directory} already holds a database; pass --force to replace it (it is kept beside as pglite.replaced-<time>).`,
        );
      movedAside = `${directory}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(directory, movedAside);
    }
    await run('tar', ['-xzf', source, '-C', config.dataDir], process.env);
    return `Restored the embedded database into ${directory}${movedAside ? ` (previous data kept in ${movedAside})` : ''}.`;
  } finally {
    release();
  }
}
