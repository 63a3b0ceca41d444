import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

/**
 * Issue 49.1: Gitea's contents routes. Reads from any ref; writes are real commits that `git clone`
 * sees and that branch protection refuses as it refuses a push; raw bytes and streamed archives.
 */
describe('repository contents (Gitea)', () => {
  let t: TestApp;
  let base: string;
  let owner: CreatedUser;
  let writer: CreatedUser;
  let reader: CreatedUser;
  const repoPath = '/api/v1/repos/owner/files';
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const blobSha = (text: string) =>
    execFileSync('git', ['hash-object', '--stdin'], { input: text }).toString().trim();

  async function cloneFile(file: string, branch = 'main'): Promise<string | null> {
    const dir = await tempDir();
    const url = cloneUrl(base, 'owner', 'files', { user: 'owner', secret: owner.token });
    expect((await git(['clone', '--quiet', '--branch', branch, url, dir], path.dirname(dir))).code).toBe(0);
    return readFile(path.join(dir, file), 'utf8').catch(() => null);
  }

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
    owner = await t.factories.user({ username: 'owner' });
    writer = await t.factories.user({ username: 'writer' });
    reader = await t.factories.user({ username: 'reader' });
    await t
      .http()
      .post('/api/v1/user/repos')
      .set(tok(owner))
      .send({ name: 'files', auto_init: true })
      .expect(201);
    for (const [who, permission] of [
      ['writer', 'write'],
      ['reader', 'read'],
    ])
      await t.http().put(`${repoPath}/collaborators/${who}`).set(tok(owner)).send({ permission }).expect(204);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates, reads, updates and deletes a file as commits git sees', async () => {
    const created = await t
      .http()
      .post(`${repoPath}/contents/docs/guide.md`)
      .set(tok(writer))
      .send({
        content: b64('hello\n'),
        message: 'add the guide',
        author: { name: 'Ann', email: 'ann@example.com' },
      });
    expect(created.status).toBe(201);
    expect(created.body.content).toMatchObject({
      name: 'guide.md',
      path: 'docs/guide.md',
      type: 'file',
      sha: blobSha('hello\n'),
      size: 6,
      encoding: 'base64',
      content: b64('hello\n'),
    });
    expect(created.body.commit).toMatchObject({
      message: 'add the guide\n',
      author: { name: 'Ann', email: 'ann@example.com' },
    });
    expect(created.body.commit.parents).toHaveLength(1);
    expect(await cloneFile('docs/guide.md')).toBe('hello\n');

    // Read back: the file, the directory listing, the root.
    const file = await t.http().get(`${repoPath}/contents/docs/guide.md`);
    expect(file.status).toBe(200);
    expect(Buffer.from(file.body.content, 'base64').toString()).toBe('hello\n');
    expect(file.body.last_commit_sha).toBe(created.body.commit.sha);
    const dir = await t.http().get(`${repoPath}/contents/docs`);
    expect(dir.body).toEqual([expect.objectContaining({ name: 'guide.md', type: 'file', content: null })]);
    const root = await t.http().get(`${repoPath}/contents`);
    expect(root.body.map((entry: { name: string; type: string }) => [entry.name, entry.type])).toEqual([
      ['README.md', 'file'],
      ['docs', 'dir'],
    ]);

    // Creating it again, or updating with a wrong or missing sha: 422, nothing moves.
    const again = await t
      .http()
      .post(`${repoPath}/contents/docs/guide.md`)
      .set(tok(writer))
      .send({ content: b64('x') });
    expect([again.status, again.body.message]).toEqual([
      422,
      'repository file already exists [path: docs/guide.md]',
    ]);
    const wrong = await t
      .http()
      .put(`${repoPath}/contents/docs/guide.md`)
      .set(tok(writer))
      .send({ content: b64('x'), sha: blobSha('other') });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toMatch(/^sha does not match/);
    expect(
      (
        await t
          .http()
          .put(`${repoPath}/contents/docs/guide.md`)
          .set(tok(writer))
          .send({ content: b64('x') })
      ).status,
    ).toBe(422);
    expect(await cloneFile('docs/guide.md')).toBe('hello\n');

    const updated = await t
      .http()
      .put(`${repoPath}/contents/docs/guide.md`)
      .set(tok(writer))
      .send({ content: b64('hello again\n'), sha: blobSha('hello\n') });
    expect(updated.status).toBe(200);
    expect(updated.body.commit.message).toBe('Update docs/guide.md\n');
    expect(await cloneFile('docs/guide.md')).toBe('hello again\n');

    // ?ref= reads the older commit.
    const old = await t.http().get(`${repoPath}/contents/docs/guide.md?ref=${created.body.commit.sha}`);
    expect(Buffer.from(old.body.content, 'base64').toString()).toBe('hello\n');

    // On a new branch.
    const branched = await t
      .http()
      .put(`${repoPath}/contents/docs/guide.md`)
      .set(tok(writer))
      .send({ content: b64('on a branch\n'), sha: blobSha('hello again\n'), new_branch: 'topic' });
    expect(branched.status).toBe(200);
    expect(await cloneFile('docs/guide.md', 'topic')).toBe('on a branch\n');
    expect(await cloneFile('docs/guide.md')).toBe('hello again\n');
    const taken = await t
      .http()
      .post(`${repoPath}/contents/other.md`)
      .set(tok(writer))
      .send({ content: b64('x'), new_branch: 'topic' });
    expect([taken.status, taken.body.message]).toEqual([422, 'branch already exists [name: topic]']);
    const noBranch = await t
      .http()
      .post(`${repoPath}/contents/other.md`)
      .set(tok(writer))
      .send({ content: b64('x'), branch: 'nope' });
    expect(noBranch.status).toBe(404);

    const deleted = await t
      .http()
      .delete(`${repoPath}/contents/docs/guide.md`)
      .set(tok(writer))
      .send({ sha: blobSha('hello again\n') });
    expect(deleted.status).toBe(200);
    expect(deleted.body.content).toBeNull();
    expect(deleted.body.commit.message).toBe('Delete docs/guide.md\n');
    expect(await cloneFile('docs/guide.md')).toBeNull();
    expect((await t.http().get(`${repoPath}/contents/docs/guide.md`)).status).toBe(404);
  });

  it('changes several files in one commit (POST contents)', async () => {
    const res = await t
      .http()
      .post(`${repoPath}/contents`)
      .set(tok(writer))
      .send({
        message: 'two files',
        files: [
          { operation: 'create', path: 'a.txt', content: b64('a') },
          { operation: 'create', path: 'b/c.txt', content: b64('c') },
        ],
      });
    expect(res.status).toBe(201);
    expect(res.body.files.map((file: { path: string }) => file.path)).toEqual(['a.txt', 'b/c.txt']);
    expect(await cloneFile('b/c.txt')).toBe('c');
  });

  it('refuses writes by readers, anonymous callers, read-only keys, bad paths and bad base64', async () => {
    const send = (headers: Record<string, string>) =>
      t
        .http()
        .post(`${repoPath}/contents/x.txt`)
        .set(headers)
        .send({ content: b64('x') });
    expect((await send({})).status).toBe(401);
    expect((await send(tok(reader))).status).toBe(403);
    const narrow = await t.factories.token(owner.user, { scopes: ['read:repository'] });
    expect((await send({ Authorization: `token ${narrow}` })).status).toBe(403);
    expect(
      (
        await t
          .http()
          .get(`${repoPath}/contents/README.md`)
          .set({ Authorization: `token ${narrow}` })
      ).status,
    ).toBe(200);
    const dotGit = await t
      .http()
      .post(`${repoPath}/contents/.git/config`)
      .set(tok(writer))
      .send({ content: b64('x') });
    expect(dotGit.status).toBe(422);
    const bad = await t.http().post(`${repoPath}/contents/x.txt`).set(tok(writer)).send({ content: '%%%' });
    expect(bad.status).toBe(422);
    expect(await cloneFile('x.txt')).toBeNull();
  });

  it('passes branch protection like a push', async () => {
    await t
      .http()
      .post(`${repoPath}/branch_protections`)
      .set(tok(owner))
      .send({ rule_name: 'main', enable_push: false })
      .expect(201);
    const refused = await t
      .http()
      .post(`${repoPath}/contents/blocked.txt`)
      .set(tok(writer))
      .send({ content: b64('x') });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Not allowed to push to protected branch main');
    expect(await cloneFile('blocked.txt')).toBeNull();
    // A new branch from main is not protected.
    const aside = await t
      .http()
      .post(`${repoPath}/contents/blocked.txt`)
      .set(tok(writer))
      .send({ content: b64('x'), new_branch: 'aside' });
    expect(aside.status).toBe(201);
    await t.http().delete(`${repoPath}/branch_protections/main`).set(tok(owner)).expect(204);
  });

  it('serves raw bytes (ref as query or path prefix) and 404s', async () => {
    const raw = await t.http().get(`${repoPath}/raw/README.md`);
    expect(raw.status).toBe(200);
    expect(raw.text).toContain('files');
    expect(raw.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect((await t.http().get(`${repoPath}/raw/main/README.md`)).text).toBe(raw.text);
    expect((await t.http().get(`${repoPath}/raw/README.md?ref=main`)).text).toBe(raw.text);
    expect((await t.http().get(`${repoPath}/media/README.md`)).text).toBe(raw.text);
    expect((await t.http().get(`${repoPath}/raw/missing.md`)).status).toBe(404);
    expect((await t.http().get(`${repoPath}/raw/README.md?ref=nope`)).status).toBe(404);
  });

  it('streams archives of a ref', async () => {
    const zip = await t
      .http()
      .get(`${repoPath}/archive/main.zip`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(zip.status).toBe(200);
    expect(zip.headers['content-disposition']).toContain('files-main.zip');
    expect((zip.body as Buffer).subarray(0, 2).toString()).toBe('PK');
    const tgz = await t
      .http()
      .get(`${repoPath}/archive/main.tar.gz`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(tgz.status).toBe(200);
    expect(gunzipSync(tgz.body as Buffer).toString('latin1')).toContain('files/README.md');
    expect((await t.http().get(`${repoPath}/archive/nope.zip`)).status).toBe(404);
    expect((await t.http().get(`${repoPath}/archive/main.rar`)).status).toBe(404);
  });

  it('writes the first commit of an empty repository', async () => {
    await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'blank' }).expect(201);
    expect((await t.http().get('/api/v1/repos/owner/blank/contents').set(tok(owner))).body).toEqual([]);
    const first = await t
      .http()
      .post('/api/v1/repos/owner/blank/contents/hello.txt')
      .set(tok(owner))
      .send({ content: b64('hi') });
    expect(first.status).toBe(201);
    expect(first.body.commit.parents).toEqual([]);
    const repo = await t.http().get('/api/v1/repos/owner/blank').set(tok(owner));
    expect(repo.body).toMatchObject({ empty: false, default_branch: 'main' });
    expect((await t.http().get('/api/v1/repos/owner/blank/raw/hello.txt').set(tok(owner))).text).toBe('hi');
  });
});
