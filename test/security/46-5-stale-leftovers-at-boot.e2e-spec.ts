import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { removeStaleGitLeftovers } from '../../src/modules/repositories/git/stale-quarantines';
import { type MainProcess, startMain } from './helpers/server-main';

jest.setTimeout(400_000);

const ADMIN = {
  ADMIN_USERNAME: 'root465',
  ADMIN_EMAIL: 'root465@example.com',
  ADMIN_PASSWORD: 'Root-465-Pass-Word-x',
};

async function plant(dir: string, file = 'pack-abc.pack'): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, file), Buffer.alloc(288 * 1024, 1));
  return dir;
}

/**
 * Issue #46.5: a kill -9 during a push leaves git's quarantine (`objects/tmp_objdir-incoming-*`, 288 KB a
 * run) and a killed upload leaves its temporary file; the next start removes what no live process uses,
 * and keeps the quarantine of a push still running on this host.
 */
describe('#46.5 leftovers of a killed server are removed at boot', () => {
  let root = '';
  let server: MainProcess | undefined;
  let holder: ChildProcess | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'dp-46-5-'));
  });
  afterAll(async () => {
    holder?.kill('SIGKILL');
    await server?.stop('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  it('planted quarantines, temporary packs, half-made repositories and uploads are gone after boot; a live push’s stay', async () => {
    const dataDir = path.join(root, 'data');
    const repos = path.join(dataDir, 'repositories');
    const stale = [
      await plant(path.join(repos, 'alice', 'app.git', 'objects', 'tmp_objdir-incoming-Ab12Cd')),
      await plant(path.join(repos, 'alice', 'app.git', 'objects', 'incoming-Zz99Yy')),
      await plant(path.join(repos, '.tmp', '0b1c2d3e-0000-4000-8000-000000000000.git')),
    ];
    const tmpPack = path.join(repos, 'alice', 'app.git', 'objects', 'pack', 'tmp_pack_Q1w2E3');
    await plant(path.dirname(tmpPack), 'pack-real.pack');
    await writeFile(tmpPack, 'partial pack');
    const upload = path.join(dataDir, 'blobs', 'tmp', '7f9a8b7c-0000-4000-8000-000000000000');
    await mkdir(path.dirname(upload), { recursive: true });
    await writeFile(upload, Buffer.alloc(64 * 1024, 2));
    // A push in progress on this host: git receive-pack works inside its repository.
    const busyRepo = path.join(repos, 'bob', 'busy.git');
    const live = await plant(path.join(busyRepo, 'objects', 'tmp_objdir-incoming-Live01'));
    holder = spawn('sleep', ['600'], { cwd: busyRepo, stdio: 'ignore' });
    // Ordinary repository content is never touched.
    const keep = path.join(repos, 'alice', 'app.git', 'objects', 'pack', 'pack-real.pack');

    server = await startMain({ ...ADMIN, DATA_DIR: dataDir }, 280_000);
    for (const dir of stale) expect(existsSync(dir)).toBe(false);
    expect(existsSync(tmpPack)).toBe(false);
    expect(existsSync(upload)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(keep)).toBe(true);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('with a directory other instances may share, only leftovers untouched for the grace period go', async () => {
    const repos = path.join(root, 'shared');
    const fresh = await plant(path.join(repos, 'carol', 'x.git', 'objects', 'tmp_objdir-incoming-Fresh1'));
    const old = await plant(path.join(repos, 'carol', 'x.git', 'objects', 'tmp_objdir-incoming-Old001'));
    const hourAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(path.join(old, 'pack-abc.pack'), hourAgo, hourAgo);
    await utimes(old, hourAgo, hourAgo);
    const result = await removeStaleGitLeftovers(repos, { graceMs: 60 * 60 * 1000 });
    expect(result.removed).toEqual([old]);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(old)).toBe(false);
  });
});
