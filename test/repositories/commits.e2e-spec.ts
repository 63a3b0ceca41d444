import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** Issue 49.2: Gitea's history routes — commits (paged, by path), one commit, compare, refs, trees, blobs. */
describe('commits, compare, refs, trees and blobs (Gitea)', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let outsider: CreatedUser;
  const repoPath = '/api/v1/repos/owner/history';
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const shas: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.user({ username: 'owner', email: 'owner@example.com' });
    outsider = await t.factories.user({ username: 'outsider' });
    await t
      .http()
      .post('/api/v1/user/repos')
      .set(tok(owner))
      .send({ name: 'history', auto_init: true, private: true })
      .expect(201);
    for (const [file, text] of [
      ['a.txt', 'one\n'],
      ['dir/b.txt', 'two\nlines\n'],
      ['a2.txt', 'three\n'],
    ] as const) {
      const res = await t
        .http()
        .post(`${repoPath}/contents/${file}`)
        .set(tok(owner))
        .send({ content: b64(text) });
      expect(res.status).toBe(201);
      shas.push(res.body.commit.sha as string);
    }
    await t
      .http()
      .post(`${repoPath}/contents/topic.txt`)
      .set(tok(owner))
      .send({ content: b64('topic\n'), new_branch: 'topic' })
      .expect(201);
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists commits paged with Gitea headers, by ref and by path', async () => {
    const page = await t.http().get(`${repoPath}/commits?limit=2`).set(tok(owner));
    expect(page.status).toBe(200);
    expect(page.headers['x-total-count']).toBe('4');
    expect(page.headers['x-hasmore']).toBe('true');
    expect(page.headers['x-pagecount']).toBe('2');
    expect(page.body.map((c: { sha: string }) => c.sha)).toEqual([shas[2], shas[1]]);
    expect(page.body[0]).toMatchObject({
      sha: shas[2],
      commit: { message: 'Add a2.txt\n', author: { email: 'owner@example.com' } },
      author: { login: 'owner' },
      files: [{ filename: 'a2.txt', status: 'added' }],
      stats: { additions: 1, deletions: 0, total: 1 },
      parents: [{ sha: shas[1] }],
    });
    const last = await t.http().get(`${repoPath}/commits?limit=2&page=2`).set(tok(owner));
    expect(last.headers['x-hasmore']).toBe('false');
    expect(last.body).toHaveLength(2);
    const byPath = await t.http().get(`${repoPath}/commits?path=dir`).set(tok(owner));
    expect(byPath.body.map((c: { sha: string }) => c.sha)).toEqual([shas[1]]);
    const topic = await t.http().get(`${repoPath}/commits?sha=topic&stat=false&files=false`).set(tok(owner));
    expect(topic.headers['x-total-count']).toBe('5');
    expect(topic.body[0]).toMatchObject({ stats: null, files: null });
    expect((await t.http().get(`${repoPath}/commits?sha=nope`).set(tok(owner))).status).toBe(404);
    // A private repository: 404 for outsiders and anonymous callers.
    expect((await t.http().get(`${repoPath}/commits`).set(tok(outsider))).status).toBe(404);
    expect((await t.http().get(`${repoPath}/commits`)).status).toBe(404);
  });

  it('answers 409 for an empty repository', async () => {
    await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'void' }).expect(201);
    const res = await t.http().get('/api/v1/repos/owner/void/commits').set(tok(owner));
    expect([res.status, res.body.message]).toEqual([409, 'Git Repository is empty.']);
  });

  it('one commit, compare, refs', async () => {
    const one = await t.http().get(`${repoPath}/git/commits/${shas[1]}`).set(tok(owner));
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ sha: shas[1], files: [{ filename: 'dir/b.txt', status: 'added' }] });
    expect(
      (
        await t
          .http()
          .get(`${repoPath}/git/commits/${'0'.repeat(40)}`)
          .set(tok(owner))
      ).status,
    ).toBe(404);

    const compare = await t.http().get(`${repoPath}/compare/main...topic`).set(tok(owner));
    expect(compare.status).toBe(200);
    expect(compare.body.total_commits).toBe(1);
    expect(compare.body.commits[0].commit.message).toBe('Add topic.txt\n');
    expect((await t.http().get(`${repoPath}/compare/main...nope`).set(tok(owner))).status).toBe(404);

    const refs = await t.http().get(`${repoPath}/git/refs`).set(tok(owner));
    expect(refs.body.map((r: { ref: string }) => r.ref)).toEqual(['refs/heads/main', 'refs/heads/topic']);
    expect(refs.body[0].object).toMatchObject({ type: 'commit', sha: shas[2] });
    const heads = await t.http().get(`${repoPath}/git/refs/heads/top`).set(tok(owner));
    expect(heads.body.map((r: { ref: string }) => r.ref)).toEqual(['refs/heads/topic']);
    expect((await t.http().get(`${repoPath}/git/refs/tags`).set(tok(owner))).status).toBe(404);
  });

  it('trees (paged, recursive) and blobs', async () => {
    const tree = await t.http().get(`${repoPath}/git/trees/main`).set(tok(owner));
    expect(tree.status).toBe(200);
    expect(tree.body.tree.map((e: { path: string; type: string }) => `${e.type}:${e.path}`)).toEqual([
      'blob:README.md',
      'blob:a.txt',
      'blob:a2.txt',
      'tree:dir',
    ]);
    const deep = await t
      .http()
      .get(`${repoPath}/git/trees/main?recursive=true&per_page=2&page=2`)
      .set(tok(owner));
    expect(deep.body).toMatchObject({ total_count: 5, truncated: true, page: 2 });
    expect(deep.body.tree).toHaveLength(2);
    const blobEntry = tree.body.tree[1];
    const blob = await t.http().get(`${repoPath}/git/blobs/${blobEntry.sha}`).set(tok(owner));
    expect(blob.body).toMatchObject({
      encoding: 'base64',
      content: b64('one\n'),
      size: 4,
      sha: blobEntry.sha,
    });
    expect(
      (
        await t
          .http()
          .get(`${repoPath}/git/blobs/${'1'.repeat(40)}`)
          .set(tok(owner))
      ).status,
    ).toBe(404);
    expect(
      (
        await t
          .http()
          .get(`${repoPath}/git/trees/${'1'.repeat(40)}`)
          .set(tok(owner))
      ).status,
    ).toBe(404);
  });
});
