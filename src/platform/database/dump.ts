import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import {
  chmod,
  copyFile,
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DEVPLANE_VERSION } from '../build-info';
import type { AppConfig } from '../config/app-config';
import { dataSourceOptions } from './data-source.factory';
import { lockEmbeddedDirectory } from './embedded-postgres';
import type { OpenDatabase } from './open-database';

/** A failure of dump or restore, with a message fit for the operator (no secrets). */
export class DumpError extends Error {}

/** The archive's format: bump when a reader of the previous one could not load it. */
export const DUMP_FORMAT_VERSION = 1;
const MANIFEST = 'manifest.json';
/** Top-level entries an archive may hold. */
const ARCHIVE_ENTRIES = new Set([MANIFEST, 'database', 'repositories', 'blobs', 'secrets.key']);
/** TypeORM's bookkeeping: recreated by running the dump's migrations, never loaded as data. */
const SKIPPED_TABLES = new Set(['migrations', 'typeorm_metadata']);
const FETCH_ROWS = 500;
const INSERT_BYTES = 4 * 1024 * 1024;

export interface DumpManifest {
  format: 'devplane-dump';
  formatVersion: number;
  devplaneVersion: string;
  createdAt: string;
  database: {
    kind: 'embedded' | 'postgresql';
    schema: string;
    migrations: string[];
    tables: Record<string, number>;
  };
  repositories: string[];
  blobs:
    | { store: 'local'; included: true; count: number; bytes: number }
    | { store: 's3'; included: false; bucket?: string; endpoint?: string; prefix?: string };
  secretsKey: 'included' | 'not included';
}

export interface DumpOptions {
  /** Opens the database: the server's socket when a server runs on the embedded database. */
  open: () => Promise<OpenDatabase>;
  includeKey: boolean;
  /** One line per phase (the CLI writes them to stderr). */
  progress: (line: string) => void;
}

export interface RestoreOptions {
  /** Opens the database for loading (embedded: starts it; it must not be running). */
  open: () => Promise<OpenDatabase>;
  /** The app's migrations; the ones the dump lists are run before the data is loaded. */
  migrations: Function[];
  force: boolean;
  progress: (line: string) => void;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        new DumpError(
          error.code === 'ENOENT'
            ? `${command} not found: install it`
            : `${command} failed to start: ${error.message}`,
        ),
      ),
    );
    child.on('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(
            new DumpError(`${command} exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' ')}`),
          ),
    );
  });
}

const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;
const seconds = (started: number): string => `${((Date.now() - started) / 1000).toFixed(1)} s`;

function schemaOf(config: AppConfig): string {
  return config.databaseSchema ?? 'public';
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}

async function baseTables(client: Client, schema: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
    [schema],
  );
  return rows.map((row) => row.name).filter((name) => !SKIPPED_TABLES.has(name));
}

/** Every file under `root`, relative to it (directories walked, symbolic links skipped). */
async function filesUnder(root: string, relative = ''): Promise<string[]> {
  const entries = await readdir(path.join(root, relative), { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const child = path.join(relative, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(root, child)));
    else if (entry.isFile()) files.push(child);
  }
  return files;
}

/** A hard link when both are on one file system (blobs are never rewritten in place), else a copy. */
async function linkOrCopy(source: string, target: string): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  await link(source, target).catch(() => copyFile(source, target));
}

/**
 * The database as JSON lines, one file per table, read in ONE repeatable-read transaction: every
 * table as of the same instant while the server keeps writing (on the embedded database the server's
 * other connections wait until it ends: PGlite serves one transaction at a time).
 */
async function dumpTables(
  client: Client,
  schema: string,
  directory: string,
): Promise<{ migrations: string[]; tables: Record<string, number>; repositories: string[] }> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const migrations = (
      await client.query<{ name: string }>(`SELECT name FROM ${quote(schema)}.migrations ORDER BY id`)
    ).rows.map((row) => row.name);
    const tables: Record<string, number> = {};
    for (const table of await baseTables(client, schema)) {
      const out = createWriteStream(path.join(directory, `${table}.jsonl`), { mode: 0o600 });
      let count = 0;
      await client.query(
        `DECLARE dump_rows NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS r FROM ${quote(schema)}.${quote(table)} t`,
      );
      for (;;) {
        const { rows } = await client.query<{ r: string }>(`FETCH ${FETCH_ROWS} FROM dump_rows`);
        if (rows.length === 0) break;
        count += rows.length;
        if (!out.write(`${rows.map((row) => row.r).join('\n')}\n`)) {
          await new Promise<void>((resolve) => out.once('drain', () => resolve()));
        }
      }
      await client.query('CLOSE dump_rows');
      await new Promise<void>((resolve, reject) =>
        out.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
      tables[table] = count;
    }
    // The repositories of this snapshot: a repository created after it is not taken (no row would own it).
    const { rows } = await client.query<{ owner: string; name: string }>(
      `SELECT lower(u.name) AS owner, r.lower_name AS name
         FROM ${quote(schema)}.repositories r JOIN ${quote(schema)}.users u ON u.id = r.owner_id ORDER BY 1, 2`,
    );
    return { migrations, tables, repositories: rows.map((row) => `${row.owner}/${row.name}`) };
  } finally {
    await client.query('ROLLBACK');
  }
}

/**
 * A consistent copy of one bare repository: `git clone --mirror --no-local` reads the refs first and
 * then sends the objects they need through git's own transport, so a push landing meanwhile cannot
 * leave a ref pointing at a missing object (a file copy could). The source's config and HEAD are kept.
 */
async function copyRepository(source: string, target: string): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  await run('git', ['clone', '--mirror', '--no-local', '--quiet', '--', source, target]);
  await copyFile(path.join(source, 'config'), path.join(target, 'config'));
  await copyFile(path.join(source, 'HEAD'), path.join(target, 'HEAD'));
}

/**
 * `dump --output FILE [--include-key]`: one tar.gz with everything an instance needs, taken while the
 * server runs: manifest.json, database/<table>.jsonl (one snapshot), repositories/<owner>/<name>.git
 * (mirror clones, taken after the snapshot), blobs/ (local store; S3 buckets are the operator's to back
 * up, named in the manifest) and, only with --include-key, secrets.key.
 */
export async function dumpInstance(config: AppConfig, output: string, options: DumpOptions): Promise<string> {
  const target = path.resolve(output);
  const { progress } = options;
  const started = Date.now();
  if (!config.databaseUrl && !existsSync(path.join(config.dataDir, 'pglite'))) {
    throw new DumpError(`No embedded database in ${path.join(config.dataDir, 'pglite')}.`);
  }
  await mkdir(path.dirname(target), { recursive: true });
  const staging = await mkdtemp(path.join(path.dirname(target), '.devplane-dump-'));
  const partial = `${target}.partial`;
  try {
    const schema = schemaOf(config);
    let phase = Date.now();
    const database = await options.open();
    let snapshot: Awaited<ReturnType<typeof dumpTables>>;
    try {
      const client = await connect(database.url);
      try {
        snapshot = await dumpTables(client, schema, path.join(staging, 'database'));
      } finally {
        await client.end();
      }
    } finally {
      await database.close();
    }
    const rows = Object.values(snapshot.tables).reduce((sum, count) => sum + count, 0);
    progress(`database: ${Object.keys(snapshot.tables).length} tables, ${rows} rows (${seconds(phase)})`);

    // After the snapshot: every repository and blob its rows name exists (blobs and repositories are
    // written before their rows commit); later pushes may add commits the snapshot's rows do not know
    // yet, which the restored server treats like any push it has not indexed.
    phase = Date.now();
    const repositoriesRoot = path.join(config.dataDir, 'repositories');
    const repositories: string[] = [];
    for (const repository of snapshot.repositories) {
      for (const suffix of ['.git', '.wiki.git']) {
        const source = path.join(repositoriesRoot, `${repository}${suffix}`);
        if (!existsSync(source)) {
          if (suffix === '.git')
            progress(`repositories: ${repository} is in the database but not on disk; skipped`);
          continue;
        }
        await copyRepository(source, path.join(staging, 'repositories', `${repository}${suffix}`));
        repositories.push(`${repository}${suffix}`);
      }
    }
    progress(`repositories: ${repositories.length} copied (${seconds(phase)})`);

    phase = Date.now();
    let blobs: DumpManifest['blobs'];
    if (config.storage.type === 'local') {
      const objects = path.join(config.dataDir, 'blobs', 'objects');
      let bytes = 0;
      const files = await filesUnder(objects);
      for (const file of files) {
        await linkOrCopy(path.join(objects, file), path.join(staging, 'blobs', file));
        bytes += (await stat(path.join(objects, file))).size;
      }
      blobs = { store: 'local', included: true, count: files.length, bytes };
      progress(`blobs: ${files.length} files, ${bytes} bytes (${seconds(phase)})`);
    } else {
      const { bucket, endpoint } = config.storage.s3;
      blobs = { store: 's3', included: false, bucket, endpoint };
      progress(
        `blobs: NOT in this archive: they are in the S3 bucket ${bucket ?? '(unset)'}; back the bucket up yourself ` +
          '(at the same time as this dump)',
      );
    }

    let secretsKey: DumpManifest['secretsKey'] = 'not included';
    if (options.includeKey) {
      const key = secretsKeyText(config);
      if (!key)
        throw new DumpError('--include-key: no SECRETS_KEY is set and DATA_DIR/secrets.key does not exist');
      await writeFile(path.join(staging, 'secrets.key'), key, { mode: 0o600 });
      secretsKey = 'included';
      progress(
        'secrets key: included (this archive now decrypts every stored secret: keep it as safe as the key)',
      );
    } else {
      progress(
        'secrets key: NOT in this archive. Keep it apart and safe: the restored instance needs the same key ' +
          `(SECRETS_KEY, or the file ${path.join(config.dataDir, 'secrets.key')} copied into the new DATA_DIR); ` +
          'without it stored secrets cannot be read and the server refuses to start. --include-key puts it in.',
      );
    }

    const manifest: DumpManifest = {
      format: 'devplane-dump',
      formatVersion: DUMP_FORMAT_VERSION,
      devplaneVersion: DEVPLANE_VERSION,
      createdAt: new Date().toISOString(),
      database: {
        kind: config.databaseUrl ? 'postgresql' : 'embedded',
        schema,
        migrations: snapshot.migrations,
        tables: snapshot.tables,
      },
      repositories,
      blobs,
      secretsKey,
    };
    await writeFile(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });

    phase = Date.now();
    const entries = (await readdir(staging)).sort();
    await run('tar', ['-czf', partial, '-C', staging, ...entries]);
    await chmod(partial, 0o600);
    await rename(partial, target);
    const size = (await stat(target)).size;
    progress(`archive: ${size} bytes (${seconds(phase)})`);
    return `Wrote a dump of the instance to ${target} (${seconds(started)}).`;
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(partial, { force: true });
  }
}

function secretsKeyText(config: AppConfig): string | undefined {
  const fromEnv = config.env.SECRETS_KEY?.trim();
  if (fromEnv) return `${fromEnv}\n`;
  const file = path.join(config.dataDir, 'secrets.key');
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Lists and checks the archive before anything is extracted: known top-level entries, no links, no `..`. */
async function checkArchive(source: string): Promise<'instance' | 'legacy-embedded'> {
  let listing: string;
  try {
    listing = await run('tar', ['-tvzf', source]);
  } catch {
    throw new DumpError(`${source} is not a dump made by "dump" (not a tar.gz archive)`);
  }
  const lines = listing.split('\n').filter(Boolean);
  const names = (await run('tar', ['-tzf', source])).split('\n').filter(Boolean);
  // Made by `dump` before issue 36.7: DATA_DIR/pglite alone.
  if (
    names.length > 0 &&
    names.every((name) => /^pglite(\/|$)/.test(name) && !name.split('/').includes('..')) &&
    lines.every((line) => /^[-d]/.test(line))
  ) {
    return 'legacy-embedded';
  }
  const bad =
    !names.includes(MANIFEST) ||
    names.some((name) => {
      const clean = name.replace(/^\.\//, '');
      const top = clean.split('/')[0]!;
      return (
        path.isAbsolute(name) ||
        clean.split('/').includes('..') ||
        (clean !== '' && clean !== '.' && !ARCHIVE_ENTRIES.has(top))
      );
    }) ||
    lines.some((line) => !/^[-d]/.test(line));
  if (bad) {
    throw new DumpError(
      `${source} is not a dump made by "dump" (no manifest.json, or entries outside it; an SQL file made by an ` +
        'older version on PostgreSQL loads with psql: psql --single-transaction -f FILE)',
    );
  }
  return 'instance';
}

async function nonEmpty(directory: string, ignore: string[] = []): Promise<boolean> {
  const entries = await readdir(directory).catch(() => [] as string[]);
  return entries.some((entry) => !ignore.includes(entry));
}

function migrationName(migration: Function): string {
  const instance = new (migration as new () => { name?: string })();
  return instance.name ?? migration.name;
}

/**
 * Loads the rows in one transaction: user triggers off (a trigger such as record_user_status_change
 * would add rows the dump already has), foreign keys dropped and re-added afterwards (they are checked
 * then, over the whole data), sequences moved past the loaded ids. Needs only the tables' owner.
 */
async function loadTables(
  client: Client,
  schema: string,
  directory: string,
  tables: string[],
): Promise<number> {
  const s = quote(schema);
  let total = 0;
  await client.query('BEGIN');
  try {
    const { rows: foreignKeys } = await client.query<{ table: string; name: string; definition: string }>(
      `SELECT c.conrelid::regclass::text AS table, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE c.contype = 'f' AND n.nspname = $1`,
      [schema],
    );
    for (const fk of foreignKeys)
      await client.query(`ALTER TABLE ${fk.table} DROP CONSTRAINT ${quote(fk.name)}`);
    const present = new Set(await baseTables(client, schema));
    for (const table of tables) {
      if (!present.has(table))
        throw new DumpError(`the dump has a table ${table} that its migrations did not create`);
      await client.query(`ALTER TABLE ${s}.${quote(table)} DISABLE TRIGGER USER`);
    }
    // Rows the migrations seeded are replaced by the dump's.
    if (tables.length > 0)
      await client.query(`TRUNCATE ${tables.map((table) => `${s}.${quote(table)}`).join(', ')}`);
    for (const table of tables) {
      const { rows: columns } = await client.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = $2 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
        [schema, table],
      );
      const list = columns.map((column) => quote(column.name)).join(', ');
      const insert = `INSERT INTO ${s}.${quote(table)} (${list}) OVERRIDING SYSTEM VALUE
        SELECT ${list} FROM json_populate_recordset(NULL::${s}.${quote(table)}, $1::json)`;
      const file = path.join(directory, `${table}.jsonl`);
      let batch: string[] = [];
      let bytes = 0;
      const flush = async (): Promise<void> => {
        if (batch.length === 0) return;
        await client.query(insert, [`[${batch.join(',')}]`]);
        total += batch.length;
        batch = [];
        bytes = 0;
      };
      // Line by line: a table is never held in memory whole, only one batch of rows.
      const lines = existsSync(file)
        ? createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })
        : [];
      for await (const line of lines) {
        if (!line) continue;
        batch.push(line);
        bytes += line.length;
        if (bytes >= INSERT_BYTES || batch.length >= 5_000) await flush();
      }
      await flush();
      // Sequences (serial and identity columns) continue after the loaded ids.
      const { rows: sequences } = await client.query<{ column: string; sequence: string }>(
        `SELECT column_name AS column, pg_get_serial_sequence(format('%I.%I', $1::text, $2::text), column_name) AS sequence
           FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`,
        [schema, table],
      );
      for (const { column, sequence } of sequences) {
        if (!sequence) continue;
        await client.query(
          `SELECT setval($1, COALESCE((SELECT max(${quote(column)})::bigint FROM ${s}.${quote(table)}), 0) + 1, false)`,
          [sequence],
        );
      }
      await client.query(`ALTER TABLE ${s}.${quote(table)} ENABLE TRIGGER USER`);
    }
    for (const fk of foreignKeys) {
      await client.query(`ALTER TABLE ${fk.table} ADD CONSTRAINT ${quote(fk.name)} ${fk.definition}`);
    }
    await client.query('COMMIT');
    return total;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * An archive of DATA_DIR/pglite made by `dump` before it backed up the whole instance: the database only
 * (repositories, blobs and key were never in it). Existing data is moved aside with --force, as before.
 */
async function restoreLegacyEmbedded(
  config: AppConfig,
  source: string,
  options: RestoreOptions,
): Promise<string> {
  if (config.databaseUrl) {
    throw new DumpError(
      `${source} is an embedded database directory (an older dump): unset DATABASE_URL to restore it`,
    );
  }
  options.progress('archive: an older dump of DATA_DIR/pglite only (no repositories, blobs or key)');
  const directory = path.join(config.dataDir, 'pglite');
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const release = lockEmbeddedDirectory(directory);
  try {
    let movedAside = '';
    if (await nonEmpty(directory)) {
      if (!options.force) {
        throw new DumpError(
          `${directory} already holds data; pass --force to replace it (moved aside as <name>.replaced-<time>)`,
        );
      }
      movedAside = `${directory}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await rename(directory, movedAside);
    }
    await run('tar', ['-xzf', source, '-C', config.dataDir, '--no-same-owner']);
    return `Restored the embedded database into ${directory}${movedAside ? `; previous data kept in ${movedAside}` : ''}.`;
  } finally {
    release();
  }
}

/**
 * `restore --input FILE [--force]` into a fresh DATA_DIR and an empty database (embedded: DATA_DIR/pglite;
 * PostgreSQL: the schema). With data there, refused unless --force: embedded data directories are moved
 * aside (`<name>.replaced-<time>`), a PostgreSQL schema is dropped with everything in it (functions and
 * triggers too) and created again. Then the dump's migrations build the schema, the rows are loaded, the
 * repositories, blobs and key are put in place; the server's next start runs any newer migrations.
 */
export async function restoreInstance(
  config: AppConfig,
  input: string,
  options: RestoreOptions,
): Promise<string> {
  const source = path.resolve(input);
  const { progress } = options;
  if (!existsSync(source)) throw new DumpError(`${source} does not exist.`);
  const started = Date.now();
  if ((await checkArchive(source)) === 'legacy-embedded')
    return restoreLegacyEmbedded(config, source, options);
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(path.join(config.dataDir, '.restore-'));
  try {
    let phase = Date.now();
    await run('tar', ['-xzf', source, '-C', staging, '--no-same-owner', '--no-same-permissions']);
    const manifest = JSON.parse(await readFile(path.join(staging, MANIFEST), 'utf8')) as DumpManifest;
    if (manifest.format !== 'devplane-dump' || manifest.formatVersion !== DUMP_FORMAT_VERSION) {
      throw new DumpError(`${source}: unsupported dump format ${manifest.format} ${manifest.formatVersion}`);
    }
    const known = new Map(options.migrations.map((migration) => [migrationName(migration), migration]));
    const unknown = manifest.database.migrations.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new DumpError(
        `the dump was made by a newer devplane (${manifest.devplaneVersion}; migrations unknown here: ` +
          `${unknown.slice(0, 3).join(', ')}): restore it with that version or a later one`,
      );
    }
    progress(
      `archive: read (devplane ${manifest.devplaneVersion}, ${manifest.createdAt}) (${seconds(phase)})`,
    );

    // The target must be empty unless --force.
    const schema = schemaOf(config);
    const replaced: string[] = [];
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const filesTaken = [
      path.join(config.dataDir, 'repositories'),
      path.join(config.dataDir, 'blobs'),
      ...(config.databaseUrl ? [] : [path.join(config.dataDir, 'pglite')]),
    ];
    const occupied: string[] = [];
    for (const directory of filesTaken) {
      if (await nonEmpty(directory, ['.tmp', '.trash', 'tmp'])) occupied.push(directory);
    }
    if (occupied.length > 0 && !options.force) {
      throw new DumpError(
        `${occupied.join(' and ')} already ${occupied.length === 1 ? 'holds' : 'hold'} data; pass --force to replace it (moved aside as <name>.replaced-<time>)`,
      );
    }
    let schemaTables = 0;
    if (config.databaseUrl) {
      const client = await connect(config.databaseUrl);
      try {
        schemaTables = (await baseTables(client, schema)).length;
      } finally {
        await client.end();
      }
      if (schemaTables > 0 && !options.force) {
        throw new DumpError(
          `the database schema ${schema} already holds ${schemaTables} tables; pass --force to drop it and load the dump`,
        );
      }
    }
    if (manifest.secretsKey === 'included' && existsSync(path.join(config.dataDir, 'secrets.key'))) {
      filesTaken.push(path.join(config.dataDir, 'secrets.key'));
    }
    // Embedded: refused while a server runs on DATA_DIR (checked before anything is moved).
    if (!config.databaseUrl) lockEmbeddedDirectory(path.join(config.dataDir, 'pglite'))();
    // Moved aside before the database opens (embedded: it then starts on an empty directory).
    for (const entry of filesTaken) {
      if (!occupied.includes(entry) && !entry.endsWith('secrets.key')) continue;
      const aside = `${entry}.replaced-${stamp}`;
      await rename(entry, aside);
      replaced.push(aside);
    }

    try {
      phase = Date.now();
      const database = await options.open();
      try {
        if (config.databaseUrl) {
          const client = await connect(database.url);
          try {
            if (schemaTables > 0) {
              // CASCADE takes functions, triggers, types and extension objects with it (a plain drop of the
              // tables left record_user_status_change behind and the migrations then failed on it).
              await client.query(`DROP SCHEMA ${quote(schema)} CASCADE`);
              await client.query(`CREATE SCHEMA ${quote(schema)}`);
              progress(`database: dropped and recreated the schema ${schema} (--force)`);
            }
          } finally {
            await client.end();
          }
        }
        const dataSource = await new DataSource(
          dataSourceOptions(config, database.url, {
            entities: [],
            migrations: manifest.database.migrations.map((name) => known.get(name)!),
          }),
        ).initialize();
        try {
          await dataSource.runMigrations({ transaction: 'each' });
        } finally {
          await dataSource.destroy();
        }
        progress(
          `database: schema built by ${manifest.database.migrations.length} migrations (${seconds(phase)})`,
        );
        phase = Date.now();
        const client = await connect(database.url);
        try {
          const rows = await loadTables(
            client,
            schema,
            path.join(staging, 'database'),
            Object.keys(manifest.database.tables),
          );
          progress(`database: ${rows} rows loaded (${seconds(phase)})`);
        } finally {
          await client.end();
        }
      } finally {
        await database.close();
      }

      phase = Date.now();
      const repositories = path.join(config.dataDir, 'repositories');
      await mkdir(repositories, { recursive: true, mode: 0o700 });
      if (existsSync(path.join(staging, 'repositories'))) {
        for (const owner of await readdir(path.join(staging, 'repositories'))) {
          await rename(path.join(staging, 'repositories', owner), path.join(repositories, owner));
        }
      }
      progress(`repositories: ${manifest.repositories.length} restored (${seconds(phase)})`);

      phase = Date.now();
      if (manifest.blobs.store === 'local') {
        const objects = path.join(config.dataDir, 'blobs', 'objects');
        await mkdir(path.dirname(objects), { recursive: true, mode: 0o700 });
        if (existsSync(path.join(staging, 'blobs'))) await rename(path.join(staging, 'blobs'), objects);
        progress(`blobs: ${manifest.blobs.count} files restored (${seconds(phase)})`);
        if (config.storage.type !== 'local') {
          progress('blobs: restored into DATA_DIR/blobs, but STORAGE_TYPE is s3: copy them into the bucket');
        }
      } else {
        progress(
          `blobs: not in the archive: the instance used the S3 bucket ${manifest.blobs.bucket ?? '?'} at ` +
            `${manifest.blobs.endpoint ?? 'the default endpoint'}; restore that bucket from its own backup`,
        );
      }

      if (manifest.secretsKey === 'included') {
        await rename(path.join(staging, 'secrets.key'), path.join(config.dataDir, 'secrets.key'));
        await chmod(path.join(config.dataDir, 'secrets.key'), 0o600);
        progress(`secrets key: restored into ${path.join(config.dataDir, 'secrets.key')}`);
        if (config.env.SECRETS_KEY)
          progress('secrets key: SECRETS_KEY is set and takes precedence over the restored file');
      } else if (!config.env.SECRETS_KEY && !existsSync(path.join(config.dataDir, 'secrets.key'))) {
        progress(
          "secrets key: not in the archive: set SECRETS_KEY, or copy the old instance's secrets.key into " +
            `${config.dataDir}, before starting the server (it refuses to start with another key)`,
        );
      }
    } catch (error) {
      if (replaced.length === 0) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new DumpError(
        `${reason} (the restore stopped halfway; the previous data is in ${replaced.join(', ')})`,
      );
    }
    return (
      `Restored ${source} into ${config.databaseUrl ? `the schema ${schema} and ` : ''}${config.dataDir} (${seconds(started)})` +
      `${replaced.length ? `; previous data kept in ${replaced.join(', ')}` : ''}.`
    );
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
