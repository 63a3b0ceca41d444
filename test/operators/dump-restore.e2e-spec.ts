import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { git } from '../repositories/git-client';
import { coderClient, createTemplate } from '../workspaces/helpers';
import { killAgents, waitFor } from '../helpers/provisioner-process';
import { type CliResult, runCli } from '../helpers/cli-process';
import { type MainProcess, startMain } from '../security/helpers/server-main';

const ADMIN = { username: 'root', password: 'Backup-Admin-Pass-1234' };

/** An instance: its DATA_DIR and, on PostgreSQL, its database (else the embedded one in DATA_DIR). */
interface Instance {
  dataDir: string;
  databaseUrl?: string;
}

/** The admin CLI from source, on the instance's database (nothing else of the test's environment). */
function cli(instance: Instance, ...args: string[]): Promise<CliResult> {
  return runCli(
    { DATA_DIR: instance.dataDir, ...(instance.databaseUrl ? { DATABASE_URL: instance.databaseUrl } : {}) },
    ...args,
  );
}

/** The server creates the bootstrap administrator once it listens: /readyz says when. */
async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await fetch(`${url}/readyz`)).status !== 200) {
    if (Date.now() > deadline) throw new Error('server not ready');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const serverEnv = (instance: Instance): Record<string, string> => ({
  DATA_DIR: instance.dataDir,
  // With DATABASE_URL no provisioner daemon runs in the server unless asked (the template import needs one).
  ...(instance.databaseUrl ? { DATABASE_URL: instance.databaseUrl, PROVISIONER_DAEMONS: '1' } : {}),
  ADMIN_USERNAME: ADMIN.username,
  ADMIN_EMAIL: 'root@example.com',
  ADMIN_PASSWORD: ADMIN.password,
});

/** CI's PostgreSQL pass (DATABASE_URL of a server, not the embedded test database). */
const ON_POSTGRES = Boolean(process.env.DATABASE_URL) && process.env.DATABASE_EMBEDDED !== 'true';

/**
 * Issue 36 item 7: `dump` of a running instance is a backup of the instance. A server with a repository
 * pushed by the real git client, an issue attachment, a generic package, a token, a template and a
 * workspace is dumped while it runs, stopped, and restored elsewhere; a server started there serves all of
 * it. Embedded: into a fresh DATA_DIR. PostgreSQL (CI's PostgreSQL pass only): into a database that already
 * holds another instance's data, which needs --force (it failed on record_user_status_change before).
 * Workspace directories are not in a dump (README): the workspace's rows are checked.
 */
describe.each([
  { kind: 'embedded database', postgres: false },
  { kind: 'PostgreSQL', postgres: true },
])('dump and restore of a running instance ($kind)', ({ postgres }) => {
  let tmp = '';
  let server: MainProcess | undefined;
  const databases: string[] = [];

  /** A new database on the test's PostgreSQL server. */
  async function newDatabase(): Promise<string> {
    const name = `dp_backup_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    databases.push(name);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    return url.toString();
  }

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'dp-backup-'));
  });
  afterAll(async () => {
    await server?.stop();
    // Workspace agents outlive the server that started them (as Coder's do): stop the test's own.
    for (const instance of ['source', 'restored']) killAgents(path.join(tmp, instance, 'workspaces'));
    await rm(tmp, { recursive: true, force: true });
    if (databases.length === 0) return;
    const admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.end();
  });

  (postgres && !ON_POSTGRES ? it.skip : it)(
    'restores repositories, attachments, packages, users, tokens and workspaces',
    async () => {
      const source: Instance = {
        dataDir: path.join(tmp, 'source'),
        databaseUrl: postgres ? await newDatabase() : undefined,
      };
      server = await startMain(serverEnv(source));
      await ready(server.url);
      const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
      const api = (url: string, init: RequestInit = {}, authorization = basic) =>
        fetch(`${server!.url}${url}`, { ...init, headers: { authorization, ...(init.headers ?? {}) } });
      const json = { 'content-type': 'application/json' };

      // A token, minted by the CLI beside the running server.
      const minted = await cli(source, 'create-token', '--username', 'root', '--name', 'backup-test');
      expect(minted.code).toBe(0);
      const token = minted.stdout.trim().split('\n').pop()!;
      const tokenAuth = `token ${token}`;

      expect(
        (
          await api('/api/v1/user/repos', {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ name: 'demo' }),
          })
        ).status,
      ).toBe(201);
      const work = path.join(tmp, 'work');
      await mkdir(work);
      expect((await git(['init', '--quiet', '--initial-branch=main'], work)).code).toBe(0);
      await writeFile(path.join(work, 'hello.txt'), 'hello\n');
      await git(['add', 'hello.txt'], work);
      await git(['commit', '--quiet', '-m', 'first'], work);
      await git(['checkout', '--quiet', '-b', 'feature'], work);
      await writeFile(path.join(work, 'feature.txt'), 'feature\n');
      await git(['add', 'feature.txt'], work);
      await git(['commit', '--quiet', '-m', 'second'], work);
      const remote = new URL(`${server.url}/root/demo.git`);
      remote.username = 'root';
      remote.password = token;
      const pushed = await git(['push', '--quiet', remote.toString(), 'main', 'feature'], work);
      expect(pushed).toMatchObject({ code: 0 });
      const heads = (await git(['rev-parse', 'main', 'feature'], work)).stdout.trim();

      expect(
        (
          await api('/api/v1/repos/root/demo/issues', {
            method: 'POST',
            headers: json,
            body: '{"title":"bug"}',
          })
        ).status,
      ).toBe(201);
      const attachmentBytes = Buffer.from(randomBytes(25_000).toString('hex'));
      const form = new FormData();
      form.append('attachment', new Blob([attachmentBytes]), 'trace.txt');
      const uploaded = await api('/api/v1/repos/root/demo/issues/1/assets', { method: 'POST', body: form });
      expect(uploaded.status).toBe(201);
      const attachmentUrl = new URL(
        ((await uploaded.json()) as { browser_download_url: string }).browser_download_url,
      ).pathname;

      const packageBytes = randomBytes(120_000);
      expect(
        (await api('/api/packages/root/generic/tool/1.0.0/tool.bin', { method: 'PUT', body: packageBytes }))
          .status,
      ).toBe(201);

      // A template and a workspace (built by the server's embedded provisioner daemon).
      const coder = coderClient(() => server!.url);
      const { templateId } = await createTemplate(coder, token, 'backup-tpl', {});
      const workspaceId = (
        await coder.json<{ id: string }>(
          await coder.api(token, 'POST', '/api/v2/users/me/workspaces', {
            name: 'backup-ws',
            template_id: templateId,
          }),
          201,
        )
      ).id;
      await waitFor(
        async () => {
          const workspace = await coder.json<{ latest_build: { job: { status: string } } }>(
            await coder.api(token, 'GET', `/api/v2/workspaces/${workspaceId}`),
            200,
          );
          return workspace.latest_build.job.status === 'succeeded' ? true : undefined;
        },
        60_000,
        'workspace build',
      );

      // The dump, while the server runs (the CLI goes through the server's socket).
      const archive = path.join(tmp, 'backup.tar.gz');
      let started = Date.now();
      // A push racing the dump: whether it lands before or after the snapshot, the copy must be whole.
      await git(['checkout', '--quiet', '-b', 'during'], work);
      await writeFile(path.join(work, 'during.txt'), randomBytes(200_000).toString('hex'));
      await git(['add', 'during.txt'], work);
      await git(['commit', '--quiet', '-m', 'during the dump'], work);
      const racing = git(['push', '--quiet', remote.toString(), 'during'], work);
      const dumped = await cli(source, 'dump', '--output', archive, '--include-key');
      expect((await racing).code).toBe(0);
      const dumpMs = Date.now() - started;
      expect(dumped.stderr).toMatch(/^database: \d+ tables, \d+ rows/m);
      expect(dumped.stderr).toMatch(/^repositories: 1 copied/m);
      expect(dumped.stderr).toMatch(/^blobs: 2 files/m);
      expect(dumped.stderr).toMatch(/^secrets key: included/m);
      expect(dumped.code).toBe(0);
      // The server kept serving during and after the dump.
      expect((await api('/api/v1/user', {}, tokenAuth)).status).toBe(200);
      await server.stop();
      server = undefined;

      const target: Instance = {
        dataDir: path.join(tmp, 'restored'),
        databaseUrl: postgres ? await newDatabase() : undefined,
      };
      if (postgres) {
        // The target database already holds another instance's data: refused, then replaced with --force.
        expect((await cli(target, 'migrate')).code).toBe(0);
        expect(
          (await cli(target, 'create-user', '--username', 'stranger', '--email', 'stranger@example.com'))
            .code,
        ).toBe(0);
        const refused = await cli(target, 'restore', '--input', archive);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('pass --force');
      }
      started = Date.now();
      const restored = await cli(target, 'restore', '--input', archive, ...(postgres ? ['--force'] : []));
      const restoreMs = Date.now() - started;
      expect(restored.stderr).toMatch(/^repositories: 1 restored/m);
      expect(restored.code).toBe(0);
      process.stdout.write(
        `${postgres ? 'PostgreSQL' : 'embedded'}: dump of the test instance ${dumpMs} ms, restore ${restoreMs} ms\n`,
      );
      // A second restore into the now populated DATA_DIR needs --force.
      const again = await cli(target, 'restore', '--input', archive);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('pass --force');

      server = await startMain(serverEnv(target));
      await ready(server.url);
      const restoredApi = (url: string, authorization = tokenAuth) =>
        fetch(`${server!.url}${url}`, { headers: { authorization } });
      expect((await restoredApi('/api/v1/user')).status).toBe(200);
      expect((await restoredApi('/api/v1/user', basic)).status).toBe(200);
      // The target's own data was replaced, not merged.
      if (postgres) expect((await restoredApi('/api/v1/users/stranger')).status).toBe(404);

      const branches = await restoredApi('/api/v1/repos/root/demo/branches');
      expect(branches.status).toBe(200);
      expect(((await branches.json()) as { name: string }[]).map((branch) => branch.name)).toEqual(
        expect.arrayContaining(['feature', 'main']),
      );
      const fsck = await git(
        ['fsck', '--no-dangling'],
        path.join(target.dataDir, 'repositories', 'root', 'demo.git'),
      );
      expect(fsck).toMatchObject({ code: 0 });
      const cloned = path.join(tmp, 'clone');
      const cloneUrl = new URL(`${server.url}/root/demo.git`);
      cloneUrl.username = 'root';
      cloneUrl.password = token;
      expect((await git(['clone', '--quiet', cloneUrl.toString(), cloned], tmp)).code).toBe(0);
      expect((await git(['rev-parse', 'origin/main', 'origin/feature'], cloned)).stdout.trim()).toBe(heads);
      expect(await readFile(path.join(cloned, 'hello.txt'), 'utf8')).toBe('hello\n');

      const attachment = await restoredApi(attachmentUrl);
      expect(attachment.status).toBe(200);
      expect(Buffer.from(await attachment.arrayBuffer()).equals(attachmentBytes)).toBe(true);
      const pkg = await restoredApi('/api/packages/root/generic/tool/1.0.0/tool.bin');
      expect(pkg.status).toBe(200);
      expect(Buffer.from(await pkg.arrayBuffer()).equals(packageBytes)).toBe(true);

      const workspace = await coder.json<{ name: string; template_id: string }>(
        await coder.api(token, 'GET', `/api/v2/workspaces/${workspaceId}`),
        200,
      );
      expect(workspace).toMatchObject({ name: 'backup-ws', template_id: templateId });

      // New rows continue after the restored ids (sequences moved on).
      expect(
        (
          await fetch(`${server.url}/api/v1/repos/root/demo/issues`, {
            method: 'POST',
            headers: { authorization: tokenAuth, ...json },
            body: '{"title":"after restore"}',
          })
        ).status,
      ).toBe(201);
    },
    420_000,
  );
});
