import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** Issue 49.6 (labels): repository labels CRUD and the labels of an issue (add, replace, remove, clear). */
describe('labels (Gitea)', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let reader: CreatedUser;
  const repoPath = '/api/v1/repos/owner/tagged';
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.user({ username: 'owner' });
    reader = await t.factories.user({ username: 'reader' });
    await t
      .http()
      .post('/api/v1/user/repos')
      .set(tok(owner))
      .send({ name: 'tagged', auto_init: true })
      .expect(201);
    await t
      .http()
      .put(`${repoPath}/collaborators/reader`)
      .set(tok(owner))
      .send({ permission: 'read' })
      .expect(204);
    await t.http().post(`${repoPath}/issues`).set(tok(owner)).send({ title: 'first' }).expect(201);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates, lists, edits and deletes labels', async () => {
    const bug = await t
      .http()
      .post(`${repoPath}/labels`)
      .set(tok(owner))
      .send({ name: 'bug', color: '#EE0701' });
    expect(bug.status).toBe(201);
    expect(bug.body).toMatchObject({ name: 'bug', color: 'ee0701', exclusive: false, is_archived: false });
    expect(bug.body.url).toMatch(new RegExp(`/api/v1/repos/owner/tagged/labels/${bug.body.id}$`));
    const bad = await t
      .http()
      .post(`${repoPath}/labels`)
      .set(tok(owner))
      .send({ name: 'x', color: 'purple' });
    expect(bad.status).toBe(422);
    expect((await t.http().post(`${repoPath}/labels`).set(tok(owner)).send({ color: '#fff' })).status).toBe(
      422,
    );
    expect(
      (await t.http().post(`${repoPath}/labels`).set(tok(reader)).send({ name: 'r', color: '#fff' })).status,
    ).toBe(403);
    expect((await t.http().post(`${repoPath}/labels`).send({ name: 'r', color: '#fff' })).status).toBe(401);
    await t
      .http()
      .post(`${repoPath}/labels`)
      .set(tok(owner))
      .send({ name: 'area/docs', color: 'abc' })
      .expect(201);
    const list = await t.http().get(`${repoPath}/labels`);
    expect(list.headers['x-total-count']).toBe('2');
    expect(list.body.map((l: { name: string; color: string }) => [l.name, l.color])).toEqual([
      ['area/docs', 'aabbcc'],
      ['bug', 'ee0701'],
    ]);
    const edited = await t
      .http()
      .patch(`${repoPath}/labels/${bug.body.id}`)
      .set(tok(owner))
      .send({ description: 'broken', color: '00ff00' });
    expect(edited.body).toMatchObject({ name: 'bug', description: 'broken', color: '00ff00' });
    expect((await t.http().get(`${repoPath}/labels/999`)).status).toBe(404);
    const temp = await t
      .http()
      .post(`${repoPath}/labels`)
      .set(tok(owner))
      .send({ name: 'temp', color: '#123456' });
    await t.http().delete(`${repoPath}/labels/${temp.body.id}`).set(tok(owner)).expect(204);
    expect((await t.http().get(`${repoPath}/labels/${temp.body.id}`)).status).toBe(404);
  });

  it('adds, replaces, removes and clears the labels of an issue', async () => {
    const labels = (await t.http().get(`${repoPath}/labels`)).body as { id: number; name: string }[];
    const [docs, bug] = labels;
    const added = await t
      .http()
      .post(`${repoPath}/issues/1/labels`)
      .set(tok(owner))
      .send({ labels: [bug!.id] });
    expect(added.status).toBe(200);
    expect(added.body.map((l: { name: string }) => l.name)).toEqual(['bug']);
    const byName = await t
      .http()
      .post(`${repoPath}/issues/1/labels`)
      .set(tok(owner))
      .send({ labels: ['area/docs'] });
    expect(byName.body.map((l: { name: string }) => l.name)).toEqual(['area/docs', 'bug']);
    expect(
      (
        await t
          .http()
          .post(`${repoPath}/issues/1/labels`)
          .set(tok(owner))
          .send({ labels: [99999] })
      ).status,
    ).toBe(422);
    expect(
      (
        await t
          .http()
          .post(`${repoPath}/issues/1/labels`)
          .set(tok(reader))
          .send({ labels: [bug!.id] })
      ).status,
    ).toBe(403);
    const replaced = await t
      .http()
      .put(`${repoPath}/issues/1/labels`)
      .set(tok(owner))
      .send({ labels: [docs!.id] });
    expect(replaced.body.map((l: { name: string }) => l.name)).toEqual(['area/docs']);
    await t.http().delete(`${repoPath}/issues/1/labels/${docs!.id}`).set(tok(owner)).expect(204);
    expect((await t.http().get(`${repoPath}/issues/1/labels`)).body).toEqual([]);
    expect((await t.http().delete(`${repoPath}/issues/1/labels/99999`).set(tok(owner))).status).toBe(422);
    await t
      .http()
      .post(`${repoPath}/issues/1/labels`)
      .set(tok(owner))
      .send({ labels: [docs!.id, bug!.id] })
      .expect(200);
    await t.http().delete(`${repoPath}/issues/1/labels`).set(tok(owner)).expect(204);
    expect((await t.http().get(`${repoPath}/issues/1/labels`)).body).toEqual([]);
    expect((await t.http().get(`${repoPath}/issues/9/labels`)).status).toBe(404);
  });
});
