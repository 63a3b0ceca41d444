import { lstatSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type MainProcess, startMain } from './helpers/server-main';

jest.setTimeout(240_000);

const ADMIN = {
  ADMIN_USERNAME: 'root30',
  ADMIN_EMAIL: 'root30@example.com',
  ADMIN_PASSWORD: 'Root-30-Pass-Word-x',
};
const AUTH = `Basic ${Buffer.from(`${ADMIN.ADMIN_USERNAME}:${ADMIN.ADMIN_PASSWORD}`).toString('base64')}`;

/** Every entry under `root` whose mode gives the group or others any right, as "mode path". */
function groupOrOtherAccessible(root: string): string[] {
  const found: string[] = [];
  const visit = (entry: string): void => {
    const stat = lstatSync(entry);
    if (stat.isSymbolicLink()) return; // a link's own mode is meaningless (0777 on Linux)
    if ((stat.mode & 0o077) !== 0)
      found.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(root, entry)}`);
    if (stat.isDirectory()) for (const name of readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(root);
  return found;
}

/**
 * Issue 30.5: DATA_DIR and everything in it stay owner-only (0700 directories, 0600 files), so a
 * workspace's uid cannot read keys, repositories, blobs or the database files. PGlite wrote its
 * files with mode 0666 (its initdb image is copied in with explicit modes, past the umask). The
 * real server (src/main.ts) on the embedded database gets a repository (git on disk), an issue
 * attachment (blob store) and a generic package (blob store), restarts, and then every entry of
 * DATA_DIR is checked.
 */
describe('security 30.5: DATA_DIR stays owner-only', () => {
  let root = '';
  let server: MainProcess | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'dp-30-5-'));
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  it('after a start with a repository, an attachment and a package, no entry has group or other bits', async () => {
    const dataDir = path.join(root, 'data');
    server = await startMain({ ...ADMIN, DATA_DIR: dataDir });
    const api = (method: string, route: string, body?: unknown, type = 'application/json') =>
      fetch(`${server!.url}${route}`, {
        method,
        headers: { Authorization: AUTH, ...(body === undefined ? {} : { 'Content-Type': type }) },
        body:
          body === undefined
            ? undefined
            : typeof body === 'string' || body instanceof FormData
              ? body
              : JSON.stringify(body),
      });

    expect((await api('POST', '/api/v1/user/repos', { name: 'kept', auto_init: true })).status).toBe(201);
    expect((await api('POST', '/api/v1/repos/root30/kept/issues', { title: 'with a file' })).status).toBe(
      201,
    );
    const form = new FormData();
    form.append('attachment', new Blob(['attached bytes\n']), 'notes.txt');
    const attached = await fetch(`${server.url}/api/v1/repos/root30/kept/issues/1/assets`, {
      method: 'POST',
      headers: { Authorization: AUTH },
      body: form,
    });
    expect(attached.status).toBe(201);
    expect(
      (
        await api(
          'PUT',
          '/api/packages/root30/generic/tool/1.0.0/tool.bin',
          'package bytes',
          'application/octet-stream',
        )
      ).status,
    ).toBe(201);
    // A restart: the files PGlite rewrites at start (pg_internal.init, the control file) included.
    await server.stop('SIGTERM');
    server = await startMain({ ...ADMIN, DATA_DIR: dataDir });
    expect((await api('GET', '/api/v1/repos/root30/kept')).status).toBe(200);

    // What the test relies on is there: the database files, a bare repository, blobs, the key.
    const names = readdirSync(dataDir);
    expect(names).toEqual(expect.arrayContaining(['pglite', 'repositories', 'blobs', 'secrets.key']));
    expect(groupOrOtherAccessible(dataDir)).toEqual([]);
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
  });
});
