import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { runCli } from '../helpers/cli-process';

const cli = runCli;

const STRONG = 'Correct-Horse-Battery-Staple-42';

/** The account commands, against whatever database `env` selects. */
async function accountLifecycle(env: Record<string, string | undefined>): Promise<void> {
  expect(
    (
      await cli(
        env,
        'create-admin',
        '--username',
        'root',
        '--email',
        'root@example.com',
        '--password',
        STRONG,
      )
    ).code,
  ).toBe(0);
  expect(
    (await cli(env, 'create-user', '--username', 'bob', '--email', 'bob@example.com', '--password', STRONG))
      .code,
  ).toBe(0);

  const listed = await cli(env, 'list-users');
  expect(listed.code).toBe(0);
  const lines = listed.stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^ID\s+USERNAME\s+EMAIL\s+ADMIN\s+STATUS\s+LOGIN TYPE$/);
  expect(lines.find((line) => line.includes(' root '))).toMatch(
    /root@example\.com\s+admin\s+active\s+password/,
  );
  expect(lines.find((line) => line.includes(' bob '))).toMatch(/bob@example\.com\s+active\s+password/);

  const weak = await cli(env, 'reset-password', '--username', 'bob', '--password', 'short');
  expect(weak.code).toBe(1);
  expect(weak.stderr).toContain('--password is too weak');
  const generated = await cli(env, 'reset-password', '--username', 'bob');
  expect(generated.code).toBe(0);
  expect(generated.stdout).toMatch(/^Password of bob reset\.\nPassword: \S{20,}\n$/);
  expect((await cli(env, 'reset-password', '--username', 'nobody')).stderr).toContain('user does not exist');

  const self = await cli(env, 'delete-user', '--username', 'root');
  expect(self.code).toBe(1);
  expect(self.stderr).toContain('you cannot delete yourself');
  const deleted = await cli(env, 'delete-user', '--username', 'bob');
  expect(deleted).toMatchObject({ code: 0, stdout: 'Deleted user bob.\n' });
  expect((await cli(env, 'list-users')).stdout).not.toContain(' bob ');
}

/** The token commands (after accountLifecycle made root, before it deleted bob: bob is made again). */
async function tokenCommands(env: Record<string, string | undefined>): Promise<void> {
  expect(
    (await cli(env, 'create-user', '--username', 'bob', '--email', 'bob@example.com', '--password', STRONG))
      .code,
  ).toBe(0);
  // The token lifetime cap of the API applies (issue 46.4): an administrator's tokens live at most 7 days.
  const tooLong = await cli(env, 'create-token', '--username', 'root', '--lifetime-days', '99999');
  expect(tooLong.code).toBe(1);
  expect(tooLong.stderr).toContain('lifetime must be less than 168h0m0s');
  expect(tooLong.stderr).toContain('TOKEN_MAX_ADMIN_LIFETIME_SECONDS');
  expect(tooLong.stdout).toBe('');
  expect((await cli(env, 'list-tokens', '--username', 'root')).stdout.trim().split('\n')).toHaveLength(1);
  const byDefault = await cli(env, 'create-token', '--username', 'root', '--name', 'ci');
  expect(byDefault.code).toBe(0);
  const expires = Date.parse(/expires (\S+):/.exec(byDefault.stdout)![1]!);
  expect(expires).toBeGreaterThan(Date.now() + 6 * 86_400_000);
  expect(expires).toBeLessThanOrEqual(Date.now() + 7 * 86_400_000);
  expect(byDefault.stdout).toMatch(/\n[A-Za-z0-9]{10}-[A-Za-z0-9]{22}\n$/);
  // A user's cap is Coder's ~100 years: 40 days are fine for bob, refused for root.
  expect((await cli(env, 'create-token', '--username', 'root', '--lifetime-days', '40')).code).toBe(1);
  const bobs = await cli(
    env,
    'create-token',
    '--username',
    'bob',
    '--name',
    'deploy',
    '--lifetime-days',
    '40',
  );
  expect(bobs.code).toBe(0);
  const bobTokens = await cli(env, 'list-tokens', '--username', 'bob');
  const deployLine = bobTokens.stdout.split('\n').find((line) => line.includes(' deploy '))!;
  expect(deployLine).toMatch(/^\S{10}\s+deploy\s+token\s+all\s/);
  const revoked = await cli(env, 'revoke-token', '--username', 'bob', '--id', deployLine.split(' ')[0]!);
  expect(revoked).toMatchObject({ code: 0 });
  expect((await cli(env, 'list-tokens', '--username', 'bob')).stdout).not.toContain(' deploy ');
  expect((await cli(env, 'delete-user', '--username', 'bob')).code).toBe(0);
}

const embeddedTestDatabase = process.env.DATABASE_EMBEDDED === 'true';

describe('admin CLI on PostgreSQL', () => {
  const schema = `t_cli_${randomBytes(4).toString('hex')}`;
  const restoredDb = `devplane_restore_${randomBytes(4).toString('hex')}`;
  let tmp = '';
  const env = () => ({ DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema, DATA_DIR: tmp });

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'devplane-cli-'));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
    if (embeddedTestDatabase) return;
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.query(`DROP DATABASE IF EXISTS "${restoredDb}"`);
    await client.end();
  });

  // The embedded test database is one shared session (a CLI process would move its search_path):
  // there the embedded suite below covers the same commands.
  const serverOnly = embeddedTestDatabase ? it.skip : it;

  serverOnly(
    'creates, lists, resets and deletes accounts',
    async () => {
      await accountLifecycle(env());
    },
    120_000,
  );

  serverOnly(
    'creates, lists and revokes tokens within the lifetime cap of the API',
    async () => {
      await tokenCommands(env());
    },
    120_000,
  );

  serverOnly(
    'dumps the schema and restores it into another database, over existing data only with --force',
    async () => {
      const file = path.join(tmp, 'dump.tar.gz');
      const dumped = await cli(env(), 'dump', '--output', file);
      expect(dumped).toMatchObject({ code: 0 });
      expect(dumped.stdout).toMatch(new RegExp(`^Wrote a dump of the instance to ${file} \\(`));
      expect(dumped.stderr).toMatch(/^database: \d+ tables, \d+ rows/m);
      expect(dumped.stderr).toContain('secrets key: NOT in this archive');

      const admin = new Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${restoredDb}"`);
      await admin.end();
      const target = new URL(process.env.DATABASE_URL!);
      target.pathname = `/${restoredDb}`;
      const targetEnv = {
        DATABASE_URL: target.toString(),
        DATABASE_SCHEMA: schema,
        DATA_DIR: path.join(tmp, 'restored'),
      };
      const restored = await cli(targetEnv, 'restore', '--input', file);
      expect(restored).toMatchObject({ code: 0 });
      const names = async (): Promise<string[]> => {
        const check = new Client({ connectionString: target.toString() });
        await check.connect();
        const { rows } = await check.query(
          `SELECT name FROM "${schema}".users WHERE type = 'individual' ORDER BY id`,
        );
        await check.end();
        return rows.map((row: { name: string }) => row.name);
      };
      expect(await names()).toEqual(['root']);

      // The key was kept apart (no --include-key): copied by hand, as the dump's statement says.
      expect(restored.stderr).toContain('secrets key: not in the archive');
      await copyFile(path.join(tmp, 'secrets.key'), path.join(tmp, 'restored', 'secrets.key'));
      // Into a schema that holds data: refused, then --force drops it with its functions and triggers
      // (issue 36.7: "function record_user_status_change already exists").
      expect(
        (await cli(targetEnv, 'create-user', '--username', 'dave', '--email', 'dave@example.com')).code,
      ).toBe(0);
      const refused = await cli(targetEnv, 'restore', '--input', file);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('pass --force');
      const forced = await cli(targetEnv, 'restore', '--input', file, '--force');
      expect(forced.stderr).toContain('dropped and recreated the schema');
      expect(forced.code).toBe(0);
      expect(await names()).toEqual(['root']);

      // A file that is not a dump is refused before anything is touched.
      const bad = path.join(tmp, 'bad.sql');
      await import('node:fs/promises').then((fs) =>
        fs.writeFile(bad, 'CREATE TABLE half_loaded (id int);\nTHIS IS NOT SQL;\n'),
      );
      const notADump = await cli(targetEnv, 'restore', '--input', bad, '--force');
      expect(notADump.code).toBe(1);
      expect(notADump.stderr).toContain('is not a dump made by "dump"');
      expect(await names()).toEqual(['root']);
    },
    120_000,
  );
});

describe('admin CLI on the embedded database', () => {
  let dataDir = '';
  let tmp = '';
  const env = () => ({ DATA_DIR: dataDir });

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'devplane-cli-embedded-'));
    dataDir = path.join(tmp, 'data');
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('lists the users of a database it has to migrate first (the light path falls back)', async () => {
    const fresh = await cli({ DATA_DIR: path.join(tmp, 'fresh') }, 'list-users');
    expect(fresh).toMatchObject({ code: 0, stdout: 'ID  USERNAME  EMAIL  ADMIN  STATUS  LOGIN TYPE\n' });
  }, 120_000);

  it('creates, lists, resets and deletes accounts', async () => {
    await accountLifecycle(env());
  }, 180_000);

  it('creates, lists and revokes tokens within the lifetime cap of the API', async () => {
    await tokenCommands(env());
  }, 240_000);

  it('dumps the instance and restores it over existing data only with --force, keeping the old data', async () => {
    const file = path.join(tmp, 'copy.tar.gz');
    const dumped = await cli(env(), 'dump', '--output', file);
    expect(dumped.code).toBe(0);
    expect(dumped.stdout).toContain(`Wrote a dump of the instance to ${file}`);
    expect(
      (
        await cli(
          env(),
          'create-user',
          '--username',
          'carol',
          '--email',
          'carol@example.com',
          '--password',
          STRONG,
        )
      ).code,
    ).toBe(0);

    const refused = await cli(env(), 'restore', '--input', file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already holds data; pass --force');
    const restored = await cli(env(), 'restore', '--input', file, '--force');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/previous data kept in .*pglite\.replaced-/);
    const listed = (await cli(env(), 'list-users')).stdout;
    expect(listed).toContain(' root ');
    expect(listed).not.toContain(' carol '); // the state of the dump, not the later one

    const notADump = path.join(tmp, 'not-a-dump.tar.gz');
    await import('node:fs/promises').then((fs) => fs.writeFile(notADump, 'plain text'));
    const bad = await cli(env(), 'restore', '--input', notADump, '--force');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('is not a dump made by "dump"');
  }, 180_000);

  it('restores an older dump of DATA_DIR/pglite alone (before issue 36.7) with --force', async () => {
    const legacy = path.join(tmp, 'legacy.tar.gz');
    await new Promise<void>((resolve, reject) =>
      spawn('tar', ['-czf', legacy, '-C', dataDir, 'pglite']).on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`tar exited with ${code}`)),
      ),
    );
    expect((await cli(env(), 'restore', '--input', legacy)).stderr).toContain(
      'already holds data; pass --force',
    );
    const restored = await cli(env(), 'restore', '--input', legacy, '--force');
    expect(restored.stderr).toContain('an older dump of DATA_DIR/pglite only');
    expect(restored.code).toBe(0);
    expect((await cli(env(), 'list-users')).stdout).toContain(' root ');
  }, 120_000);

  it('names the S3 bucket instead of copying blobs it does not hold', async () => {
    const file = path.join(tmp, 's3.tar.gz');
    const dumped = await cli(
      { ...env(), STORAGE_TYPE: 's3', S3_BUCKET: 'team-blobs', S3_ENDPOINT: 'http://127.0.0.1:9' },
      'dump',
      '--output',
      file,
    );
    expect(dumped.code).toBe(0);
    expect(dumped.stderr).toContain('blobs: NOT in this archive: they are in the S3 bucket team-blobs');
    const manifest = await new Promise<string>((resolve, reject) => {
      const tar = spawn('tar', ['-xzOf', file, 'manifest.json']);
      let out = '';
      tar.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      tar.on('error', reject);
      tar.on('close', () => resolve(out));
    });
    expect(JSON.parse(manifest)).toMatchObject({
      format: 'devplane-dump',
      database: { kind: 'embedded' },
      blobs: { store: 's3', included: false, bucket: 'team-blobs', endpoint: 'http://127.0.0.1:9' },
      secretsKey: 'not included',
    });
  }, 120_000);
});
