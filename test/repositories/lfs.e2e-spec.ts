import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, freePort, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

const hasGitLfs = spawnSync('git-lfs', ['version'], { stdio: 'ignore' }).status === 0;
const describeLfs = hasGitLfs ? describe : describe.skip;
if (!hasGitLfs)
  process.stdout.write('SKIPPED lfs.e2e-spec.ts: needs the git-lfs client (Debian package git-lfs)\n');

const LFS = 'application/vnd.git-lfs+json';

describeLfs('Git LFS with the real git and git-lfs clients', () => {
  let t: TestApp;
  let base: string;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let home: string;
  const big = randomBytes(300 * 1024);
  const bigOid = createHash('sha256').update(big).digest('hex');

  /** git with a global config of its own where `git lfs install` put the LFS filters. */
  const lfsGit = (args: string[], cwd: string) =>
    git(args, cwd, { GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig') });
  const auth = (who: CreatedUser) => ({ user: who.user.name, secret: who.token });
  const batch = (owner: string, repo: string, operation: string, objects: { oid: string; size: number }[]) =>
    t
      .http()
      .post(`/${owner}/${repo}.git/info/lfs/objects/batch`)
      .set('Accept', LFS)
      .set('Content-Type', LFS)
      .send(JSON.stringify({ operation, transfers: ['basic'], objects }));

  async function createRepo(owner: CreatedUser, name: string, isPrivate: boolean) {
    const res = await t
      .http()
      .post('/api/v1/user/repos')
      .set('Authorization', `token ${owner.token}`)
      .send({ name, private: isPrivate });
    expect(res.status).toBe(201);
  }

  async function pushLfsRepo(
    owner: CreatedUser,
    repo: string,
  ): Promise<{ code: number | null; stderr: string }> {
    const dir = await tempDir('devplane-lfs-');
    await lfsGit(['init', '--quiet', '--initial-branch=main'], dir);
    expect((await lfsGit(['lfs', 'track', '*.bin'], dir)).code).toBe(0);
    await writeFile(path.join(dir, 'data.bin'), big);
    await writeFile(path.join(dir, 'README.md'), 'lfs\n');
    await lfsGit(['add', '.gitattributes', 'data.bin', 'README.md'], dir);
    await lfsGit(['commit', '--quiet', '-m', 'lfs'], dir);
    await lfsGit(['remote', 'add', 'origin', cloneUrl(base, owner.user.name, repo, auth(owner))], dir);
    const pushed = await lfsGit(['push', '--quiet', 'origin', 'main'], dir);
    return { code: pushed.code, stderr: pushed.stderr };
  }

  beforeAll(async () => {
    // The batch answer's links are absolute under PUBLIC_URL: it must be where we listen.
    const port = await freePort();
    t = await createTestApp({
      env: { PUBLIC_URL: `http://127.0.0.1:${port}/`, LFS_MAX_FILE_SIZE: '1048576' },
    });
    base = (await t.listen(port)).replace(/\/$/, '');
    alice = await t.factories.user({ username: 'alice' });
    bob = await t.factories.user({ username: 'bob' });
    home = await tempDir('devplane-lfs-home-');
    const installed = await git(['lfs', 'install', '--skip-repo'], home, {
      GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig'),
    });
    expect(installed.code).toBe(0);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('pushes an LFS object with git push, and a fresh clone gets the content back', async () => {
    await createRepo(alice, 'media', true);
    const pushed = await pushLfsRepo(alice, 'media');
    expect(pushed).toMatchObject({ code: 0 });

    // git holds the pointer only; the object is in the blob store, counted in the repository's size.
    const raw = await t
      .http()
      .get('/api/v1/repos/alice/media/raw/data.bin')
      .set('Authorization', `token ${alice.token}`);
    expect(raw.status).toBe(200);
    expect(raw.text).toContain(`oid sha256:${bigOid}`);
    const repo = await t.http().get('/api/v1/repos/alice/media').set('Authorization', `token ${alice.token}`);
    expect(repo.body.size).toBeGreaterThanOrEqual(300);

    const dir = await tempDir('devplane-lfs-clone-');
    const clone = await lfsGit(
      ['clone', '--quiet', cloneUrl(base, 'alice', 'media', auth(alice)), 'copy'],
      dir,
    );
    expect(clone).toMatchObject({ code: 0 });
    expect((await readFile(path.join(dir, 'copy', 'data.bin'))).equals(big)).toBe(true);

    // git lfs pull in a clone made without the smudge filter fetches the object too.
    const bare = await tempDir('devplane-lfs-pull-');
    const skip = await git(
      ['clone', '--quiet', cloneUrl(base, 'alice', 'media', auth(alice)), 'copy'],
      bare,
      {
        GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig'),
        GIT_LFS_SKIP_SMUDGE: '1',
      },
    );
    expect(skip.code).toBe(0);
    expect(
      (await readFile(path.join(bare, 'copy', 'data.bin'), 'utf8')).startsWith('version https://git-lfs'),
    ).toBe(true);
    const pull = await lfsGit(['lfs', 'pull'], path.join(bare, 'copy'));
    expect(pull).toMatchObject({ code: 0 });
    expect((await readFile(path.join(bare, 'copy', 'data.bin'))).equals(big)).toBe(true);
  });

  it('stores the same content once: a second repository uploads it and both serve it', async () => {
    await createRepo(alice, 'again', false);
    expect(await pushLfsRepo(alice, 'again')).toMatchObject({ code: 0 });
    const rows = (await t.dataSource.query('SELECT oid, blob_key FROM lfs_objects WHERE oid = $1', [
      bigOid,
    ])) as { blob_key: string }[];
    expect(rows).toHaveLength(1);
    const links = (await t.dataSource.query(
      'SELECT repository_id FROM lfs_repository_objects WHERE oid = $1',
      [bigOid],
    )) as unknown[];
    expect(links).toHaveLength(2);
    // Held: an upload batch asks for nothing.
    const res = await batch('alice', 'again', 'upload', [{ oid: bigOid, size: big.length }]).set(
      'Authorization',
      `token ${alice.token}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain(LFS);
    expect(res.body).toBeDefined();
    const body = JSON.parse(res.text) as { transfer: string; objects: { actions?: unknown }[] };
    expect(body.transfer).toBe('basic');
    expect(body.objects[0]!.actions).toBeUndefined();
  });

  it('a reader cannot push LFS objects (403), and the batch says so before any upload', async () => {
    await t
      .http()
      .put('/api/v1/repos/alice/media/collaborators/bob')
      .set('Authorization', `token ${alice.token}`)
      .send({ permission: 'read' })
      .expect(204);
    const res = await batch('alice', 'media', 'upload', [{ oid: 'a'.repeat(64), size: 3 }]).set(
      'Authorization',
      `token ${bob.token}`,
    );
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({
      message: 'User permission denied to push to this repository.',
    });
    // The reader may download.
    const down = await batch('alice', 'media', 'download', [{ oid: bigOid, size: big.length }]).set(
      'Authorization',
      `token ${bob.token}`,
    );
    expect(down.status).toBe(200);
    // The reader's direct PUT (own credentials, no link) is refused as a push is.
    const put = await t
      .http()
      .put(`/alice/media.git/info/lfs/objects/${'b'.repeat(64)}`)
      .set('Authorization', `token ${bob.token}`)
      .send(Buffer.from('abc'));
    expect(put.status).toBe(403);

    // With the real client: the reader's push of a new LFS object fails.
    const dir = await tempDir('devplane-lfs-reader-');
    const clone = await lfsGit(
      ['clone', '--quiet', cloneUrl(base, 'alice', 'media', auth(bob)), 'copy'],
      dir,
    );
    expect(clone.code).toBe(0);
    const copy = path.join(dir, 'copy');
    await writeFile(path.join(copy, 'other.bin'), randomBytes(1000));
    await lfsGit(['add', 'other.bin'], copy);
    await lfsGit(['commit', '--quiet', '-m', 'more'], copy);
    const pushed = await lfsGit(['push', 'origin', 'main'], copy);
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toMatch(/403|denied|Authorization error/i);
  });

  it('anonymous callers cannot read a private repository: 401 with a Basic challenge; public ones they can', async () => {
    const res = await batch('alice', 'media', 'download', [{ oid: bigOid, size: big.length }]);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic /);
    const direct = await t.http().get(`/alice/media.git/info/lfs/objects/${bigOid}`);
    expect(direct.status).toBe(401);
    // The real client without credentials cannot fetch the object.
    const dir = await tempDir('devplane-lfs-anon-');
    const clone = await lfsGit(['clone', '--quiet', cloneUrl(base, 'alice', 'media'), 'copy'], dir);
    expect(clone.code).not.toBe(0);

    const pub = await batch('alice', 'again', 'download', [{ oid: bigOid, size: big.length }]);
    expect(pub.status).toBe(200);
    const action = (
      JSON.parse(pub.text) as {
        objects: { actions: { download: { href: string; header: Record<string, string> } } }[];
      }
    ).objects[0]!.actions.download;
    expect(action.header.Authorization).toMatch(/^LFS /);
    const href = new URL(action.href);
    const got = await t
      .http()
      .get(href.pathname)
      .set('Authorization', action.header.Authorization)
      .buffer(true);
    expect(got.status).toBe(200);
    expect(Buffer.from(got.body as Buffer).equals(big)).toBe(true);
    // Anonymous uploads are challenged, as a push is.
    const up = await batch('alice', 'again', 'upload', [{ oid: bigOid, size: big.length }]);
    expect(up.status).toBe(401);
  });

  it('links are bound to their repository, object and operation; bad links are 401', async () => {
    const res = await batch('alice', 'again', 'download', [{ oid: bigOid, size: big.length }]);
    const header = (
      JSON.parse(res.text) as { objects: { actions: { download: { header: Record<string, string> } } }[] }
    ).objects[0]!.actions.download.header.Authorization!;
    // Another repository's object route: refused.
    expect(
      (await t.http().get(`/alice/media.git/info/lfs/objects/${bigOid}`).set('Authorization', header)).status,
    ).toBe(401);
    // A download link does not upload.
    expect(
      (
        await t
          .http()
          .put(`/alice/again.git/info/lfs/objects/${bigOid}`)
          .set('Authorization', header)
          .send(big)
      ).status,
    ).toBe(401);
    // A forged link.
    expect(
      (
        await t
          .http()
          .get(`/alice/again.git/info/lfs/objects/${bigOid}`)
          .set('Authorization', 'LFS v1.x.y.z.w')
      ).status,
    ).toBe(401);
  });

  it('checks uploads: content that does not hash to the oid is 400, over LFS_MAX_FILE_SIZE 413; verify', async () => {
    const content = Buffer.from('hello lfs\n');
    const oid = createHash('sha256').update(content).digest('hex');
    const res = await batch('alice', 'again', 'upload', [
      { oid, size: content.length },
      { oid: 'not-an-oid', size: 1 },
      { oid: 'c'.repeat(64), size: 2 * 1024 * 1024 },
    ]).set('Authorization', `token ${alice.token}`);
    expect(res.status).toBe(200);
    const objects = (
      JSON.parse(res.text) as {
        objects: {
          error?: { code: number };
          actions?: { upload: { href: string; header: Record<string, string> }; verify: { href: string } };
        }[];
      }
    ).objects;
    expect(objects[1]!.error).toMatchObject({ code: 422 });
    expect(objects[2]!.error).toMatchObject({ code: 422 });
    const upload = objects[0]!.actions!.upload;
    const path_ = new URL(upload.href).pathname;
    const wrong = await t
      .http()
      .put(path_)
      .set('Authorization', upload.header.Authorization!)
      .send(Buffer.from('other'));
    expect(wrong.status).toBe(400); // the git dialect answers validation as 400
    const verifyPath = new URL(objects[0]!.actions!.verify.href).pathname;
    const before = await t
      .http()
      .post(verifyPath)
      .set('Authorization', upload.header.Authorization!)
      .set('Content-Type', LFS)
      .send(JSON.stringify({ oid, size: content.length }));
    expect(before.status).toBe(404);
    const ok = await t.http().put(path_).set('Authorization', upload.header.Authorization!).send(content);
    expect(ok.status).toBe(200);
    const after = await t
      .http()
      .post(verifyPath)
      .set('Authorization', upload.header.Authorization!)
      .set('Content-Type', LFS)
      .send(JSON.stringify({ oid, size: content.length }));
    expect(after.status).toBe(200);
    // Over the limit: a declared size above LFS_MAX_FILE_SIZE is refused before it is stored.
    const huge = await t
      .http()
      .put(`/alice/again.git/info/lfs/objects/${'d'.repeat(64)}`)
      .set('Authorization', `token ${alice.token}`)
      .send(Buffer.alloc(1024 * 1024 + 1));
    expect(huge.status).toBe(413);
    // A bad batch body is a 4xx JSON error, nothing stored.
    const bad = await batch('alice', 'again', 'delete', []).set('Authorization', `token ${alice.token}`);
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    // A key without write:repository cannot upload.
    const narrow = await t.factories.token(alice.user, { scopes: ['read:repository'] });
    const refused = await batch('alice', 'again', 'upload', [{ oid, size: content.length }]).set(
      'Authorization',
      `token ${narrow}`,
    );
    expect(refused.status).toBe(403);
  });

  it('locks are not served: 404', async () => {
    const res = await t
      .http()
      .get('/alice/again.git/info/lfs/locks')
      .set('Authorization', `token ${alice.token}`);
    expect(res.status).toBe(404);
  });
});
