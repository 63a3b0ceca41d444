import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { git, tempDir } from './git-client';

/**
 * Issue 49.6 (milestones and the issue/pull filters): milestones CRUD with open/closed counts, an issue's
 * or pull's milestone and labels set on create/edit, the `labels`/`milestones` list filters, and the
 * Issue/PullRequest JSON carrying both (Gitea's shapes).
 */
describe('milestones and the labels/milestones of issues and pulls (Gitea)', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let reader: CreatedUser;
  let admin: CreatedUser;
  const repoPath = '/api/v1/repos/owner/planned';
  const tok = (who: CreatedUser | string) => ({
    Authorization: `token ${typeof who === 'string' ? who : who.token}`,
  });

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.user({ username: 'owner' });
    reader = await t.factories.user({ username: 'reader' });
    admin = await t.factories.admin({ username: 'site-admin' });
    await t
      .http()
      .post('/api/v1/user/repos')
      .set(tok(owner))
      .send({ name: 'planned', auto_init: true })
      .expect(201);
    await t
      .http()
      .put(`${repoPath}/collaborators/reader`)
      .set(tok(owner))
      .send({ permission: 'read' })
      .expect(204);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates, reads, edits, lists and deletes milestones with Gitea shapes, states and due dates', async () => {
    const v1 = await t
      .http()
      .post(`${repoPath}/milestones`)
      .set(tok(owner))
      .send({ title: 'v1', description: 'first', due_on: '2030-01-02T03:04:05Z' });
    expect(v1.status).toBe(201);
    expect(v1.body).toEqual({
      id: expect.any(Number),
      title: 'v1',
      description: 'first',
      state: 'open',
      open_issues: 0,
      closed_issues: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      closed_at: null,
      due_on: '2030-01-02T03:04:05.000Z',
    });
    const old = await t
      .http()
      .post(`${repoPath}/milestones`)
      .set(tok(owner))
      .send({ title: 'v0', state: 'closed' });
    expect(old.status).toBe(201);
    expect(old.body).toMatchObject({ state: 'closed', closed_at: expect.any(String), due_on: null });

    // Lists: open by default, state=closed|all, name search, paging headers.
    const open = await t.http().get(`${repoPath}/milestones`);
    expect(open.status).toBe(200);
    expect(open.body.map((m: { title: string }) => m.title)).toEqual(['v1']);
    expect(open.headers['x-total-count']).toBe('1');
    const all = await t.http().get(`${repoPath}/milestones?state=all`);
    expect(all.body.map((m: { title: string }) => m.title).sort()).toEqual(['v0', 'v1']);
    expect((await t.http().get(`${repoPath}/milestones?state=closed`)).body).toHaveLength(1);
    expect((await t.http().get(`${repoPath}/milestones?state=all&name=V0`)).body).toHaveLength(1);

    // One by id or by name.
    expect((await t.http().get(`${repoPath}/milestones/${v1.body.id}`)).body.title).toBe('v1');
    expect((await t.http().get(`${repoPath}/milestones/v0`)).body.id).toBe(old.body.id);
    expect((await t.http().get(`${repoPath}/milestones/999999`)).status).toBe(404);

    const closed = await t
      .http()
      .patch(`${repoPath}/milestones/${old.body.id}`)
      .set(tok(owner))
      .send({ state: 'open', title: 'v0.9' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ title: 'v0.9', state: 'open', closed_at: null });
    expect((await t.http().delete(`${repoPath}/milestones/${old.body.id}`).set(tok(owner))).status).toBe(204);
    expect((await t.http().get(`${repoPath}/milestones/${old.body.id}`)).status).toBe(404);
  });

  it('refuses: anonymous 401, a reader 403, a key without write:issue 403, bad input 422 (nothing written)', async () => {
    expect((await t.http().post(`${repoPath}/milestones`).send({ title: 'x' })).status).toBe(401);
    expect((await t.http().post(`${repoPath}/milestones`).set(tok(reader)).send({ title: 'x' })).status).toBe(
      403,
    );
    const narrow = await t.factories.token(owner.user, { scopes: ['read:issue', 'read:repository'] });
    expect((await t.http().post(`${repoPath}/milestones`).set(tok(narrow)).send({ title: 'x' })).status).toBe(
      403,
    );
    expect((await t.http().post(`${repoPath}/milestones`).set(tok(owner)).send({ title: '' })).status).toBe(
      422,
    );
    expect(
      (await t.http().post(`${repoPath}/milestones`).set(tok(owner)).send({ title: 'x', state: 'later' }))
        .status,
    ).toBe(422);
    expect(
      (await t.http().post(`${repoPath}/milestones`).set(tok(owner)).send({ title: 'x', due_on: 'tomorrow' }))
        .status,
    ).toBe(422);
    expect((await t.http().post(`${repoPath}/milestones`).set(tok(owner)).send({ title: 5 })).status).toBe(
      422,
    );
    const listed = await t.http().get(`${repoPath}/milestones?state=all`);
    expect(listed.body.map((m: { title: string }) => m.title)).not.toContain('x');
    // A site administrator may write; a reader may read.
    const byAdmin = await t.http().post(`${repoPath}/milestones`).set(tok(admin)).send({ title: 'by-admin' });
    expect(byAdmin.status).toBe(201);
    expect((await t.http().delete(`${repoPath}/milestones/${byAdmin.body.id}`).set(tok(reader))).status).toBe(
      403,
    );
    expect((await t.http().get(`${repoPath}/milestones/${byAdmin.body.id}`).set(tok(reader))).status).toBe(
      200,
    );
    expect((await t.http().patch(`${repoPath}/milestones/999999`).set(tok(owner)).send({})).status).toBe(404);
  });

  it('sets milestones and labels on issues, counts them open/closed, filters lists and shows them in the JSON', async () => {
    const v2 = (await t.http().post(`${repoPath}/milestones`).set(tok(owner)).send({ title: 'v2' })).body as {
      id: number;
    };
    const v3 = (await t.http().post(`${repoPath}/milestones`).set(tok(owner)).send({ title: 'v3' })).body as {
      id: number;
    };
    const bug = (
      await t.http().post(`${repoPath}/labels`).set(tok(owner)).send({ name: 'bug', color: 'ee0701' })
    ).body as { id: number };
    const ui = (
      await t.http().post(`${repoPath}/labels`).set(tok(owner)).send({ name: 'ui', color: '00aabb' })
    ).body as { id: number };

    const a = await t
      .http()
      .post(`${repoPath}/issues`)
      .set(tok(owner))
      .send({ title: 'a', labels: [bug.id, ui.id], milestone: v2.id });
    expect(a.status).toBe(201);
    expect(a.body.milestone).toMatchObject({ id: v2.id, title: 'v2', open_issues: 1, closed_issues: 0 });
    expect(a.body.labels.map((l: { name: string }) => l.name)).toEqual(['bug', 'ui']);
    expect(a.body.labels[0]).toEqual({
      id: bug.id,
      name: 'bug',
      exclusive: false,
      is_archived: false,
      color: 'ee0701',
      description: '',
      url: expect.stringMatching(new RegExp(`/api/v1/repos/owner/planned/labels/${bug.id}$`)),
    });
    const b = await t
      .http()
      .post(`${repoPath}/issues`)
      .set(tok(owner))
      .send({ title: 'b', labels: [bug.id], milestone: v2.id, closed: true });
    expect(b.status).toBe(201);
    await t
      .http()
      .post(`${repoPath}/issues`)
      .set(tok(owner))
      .send({ title: 'c', milestone: v3.id })
      .expect(201);
    // Unknown milestone or label: 422, no issue created.
    const before = Number((await t.http().get(`${repoPath}/issues?state=all`)).headers['x-total-count']);
    expect(
      (await t.http().post(`${repoPath}/issues`).set(tok(owner)).send({ title: 'bad', milestone: 999999 }))
        .status,
    ).toBe(422);
    expect(
      (
        await t
          .http()
          .post(`${repoPath}/issues`)
          .set(tok(owner))
          .send({ title: 'bad', labels: [999999] })
      ).status,
    ).toBe(422);
    expect(Number((await t.http().get(`${repoPath}/issues?state=all`)).headers['x-total-count'])).toBe(
      before,
    );
    // A reader's issue: labels and milestone are ignored (Gitea: writers only).
    const byReader = await t
      .http()
      .post(`${repoPath}/issues`)
      .set(tok(reader))
      .send({ title: 'r', labels: [bug.id], milestone: v2.id });
    expect(byReader.status).toBe(201);
    expect(byReader.body).toMatchObject({ labels: [], milestone: null });

    // Counts on the milestone.
    const counted = await t.http().get(`${repoPath}/milestones/${v2.id}`);
    expect(counted.body).toMatchObject({ open_issues: 1, closed_issues: 1 });

    // Filters.
    const titles = async (query: string) =>
      ((await t.http().get(`${repoPath}/issues?state=all&${query}`)).body as { title: string }[])
        .map((issue) => issue.title)
        .sort();
    expect(await titles('labels=bug')).toEqual(['a', 'b']);
    expect(await titles('labels=bug,ui')).toEqual(['a']);
    expect(await titles(`labels=${ui.id}`)).toEqual(['a']);
    expect(await titles('labels=nope')).toEqual([]);
    expect(await titles('milestones=v2')).toEqual(['a', 'b']);
    expect(await titles(`milestones=v2,${v3.id}`)).toEqual(['a', 'b', 'c']);
    expect(await titles('milestones=v3&labels=bug')).toEqual([]);
    expect(await titles('milestones=nope')).toEqual([]);
    expect((await t.http().get(`${repoPath}/issues?state=all&milestones=v2`)).headers['x-total-count']).toBe(
      '2',
    );

    // Edit: move to v3, then remove with 0; a reader (poster) cannot change it.
    const moved = await t
      .http()
      .patch(`${repoPath}/issues/${a.body.number}`)
      .set(tok(owner))
      .send({ milestone: v3.id });
    expect(moved.status).toBe(201);
    expect(moved.body.milestone).toMatchObject({ id: v3.id, open_issues: 2 });
    const cleared = await t
      .http()
      .patch(`${repoPath}/issues/${a.body.number}`)
      .set(tok(owner))
      .send({ milestone: 0 });
    expect(cleared.body.milestone).toBeNull();
    const readerEdit = await t
      .http()
      .patch(`${repoPath}/issues/${byReader.body.number}`)
      .set(tok(reader))
      .send({ milestone: v3.id, title: 'r2' });
    expect(readerEdit.status).toBe(201);
    expect(readerEdit.body).toMatchObject({ title: 'r2', milestone: null });

    // Deleting a milestone leaves its issues without one.
    await t.http().delete(`${repoPath}/milestones/${v3.id}`).set(tok(owner)).expect(204);
    const c = (
      (await t.http().get(`${repoPath}/issues?state=all&q=c`)).body as { title: string; milestone: unknown }[]
    ).find((issue) => issue.title === 'c');
    expect(c?.milestone).toBeNull();
  });

  it('pull requests: labels and milestone on create and edit, the list filters, and the PullRequest JSON', async () => {
    const dir = await tempDir();
    const url = `${t.url ?? (await t.listen())}/owner/planned.git`.replace('://', `://owner:${owner.token}@`);
    expect((await git(['clone', '--quiet', url, 'copy'], dir)).code).toBe(0);
    const copy = `${dir}/copy`;
    for (const branch of ['feature-1', 'feature-2']) {
      await git(['checkout', '--quiet', '-b', branch, 'main'], copy);
      await git(['commit', '--quiet', '--allow-empty', '-m', branch], copy);
      expect((await git(['push', '--quiet', 'origin', branch], copy)).code).toBe(0);
    }
    const v4 = (await t.http().post(`${repoPath}/milestones`).set(tok(owner)).send({ title: 'v4' })).body as {
      id: number;
    };
    const ready = (
      await t.http().post(`${repoPath}/labels`).set(tok(owner)).send({ name: 'ready', color: '0f0' })
    ).body as { id: number };
    const p1 = await t
      .http()
      .post(`${repoPath}/pulls`)
      .set(tok(owner))
      .send({ head: 'feature-1', base: 'main', title: 'p1', labels: [ready.id], milestone: v4.id });
    expect(p1.status).toBe(201);
    expect(p1.body.milestone).toMatchObject({ id: v4.id, title: 'v4', open_issues: 1 });
    expect(p1.body.labels.map((l: { name: string }) => l.name)).toEqual(['ready']);
    const p2 = await t
      .http()
      .post(`${repoPath}/pulls`)
      .set(tok(owner))
      .send({ head: 'feature-2', base: 'main', title: 'p2' });
    expect(p2.status).toBe(201);
    expect(p2.body).toMatchObject({ labels: [], milestone: null });

    const pullTitles = async (query: string) =>
      ((await t.http().get(`${repoPath}/pulls?${query}`)).body as { title: string }[])
        .map((p) => p.title)
        .sort();
    expect(await pullTitles('')).toEqual(['p1', 'p2']);
    expect(await pullTitles('labels=ready')).toEqual(['p1']);
    expect(await pullTitles(`labels=${ready.id}`)).toEqual(['p1']);
    expect(await pullTitles(`milestone=${v4.id}`)).toEqual(['p1']);
    expect(await pullTitles('milestones=v4')).toEqual(['p1']);

    const edited = await t
      .http()
      .patch(`${repoPath}/pulls/${p2.body.number}`)
      .set(tok(owner))
      .send({ labels: [ready.id], milestone: v4.id });
    expect(edited.status).toBe(201);
    expect(edited.body.milestone).toMatchObject({ id: v4.id, open_issues: 2 });
    expect(await pullTitles('labels=ready')).toEqual(['p1', 'p2']);
    // Issue lists of type=pulls carry them too.
    const asIssues = (await t.http().get(`${repoPath}/issues?type=pulls&milestones=v4`)).body as {
      milestone: { id: number };
      labels: unknown[];
    }[];
    expect(asIssues).toHaveLength(2);
    expect(asIssues.every((issue) => issue.milestone.id === v4.id && issue.labels.length === 1)).toBe(true);
  });

  it('loads labels and milestones per page: the query count does not grow with the page', async () => {
    const count = async (limit: number) => {
      const logger = t.dataSource.logger;
      const original = logger.logQuery.bind(logger);
      let n = 0;
      logger.logQuery = (...args: Parameters<typeof original>) => {
        n++;
        return original(...args);
      };
      try {
        const res = await t.http().get(`${repoPath}/issues?state=all&type=issues&limit=${limit}`);
        expect(res.status).toBe(200);
        expect(res.body.length).toBeGreaterThanOrEqual(Math.min(limit, 4));
      } finally {
        logger.logQuery = original;
      }
      return n;
    };
    // The newest three already carry a milestone and labels (issue "b"): the same queries as for all of them.
    const small = await count(3);
    const large = await count(10);
    expect(small).toBeGreaterThan(0);
    expect(large).toBe(small);
  });
});
