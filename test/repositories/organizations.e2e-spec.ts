import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

describe('Gitea organization and team routes', () => {
  let t: TestApp;
  let base: string;
  let owner: CreatedUser;
  let member: CreatedUser;
  let outsider: CreatedUser;
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
    owner = await t.factories.user({ username: 'orgowner' });
    member = await t.factories.user({ username: 'orgmember' });
    outsider = await t.factories.user({ username: 'orgoutsider' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates an organization (201) with an Owners team; the name shares the user namespace (422)', async () => {
    const res = await t.http().post('/api/v1/orgs').set(tok(owner)).send({
      username: 'widgets',
      full_name: 'Widgets Inc',
      description: 'we make widgets',
      website: 'https://widgets.example',
      location: 'Earth',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'widgets',
      username: 'widgets',
      full_name: 'Widgets Inc',
      description: 'we make widgets',
      website: 'https://widgets.example',
      location: 'Earth',
      visibility: 'public',
    });
    expect(
      (await t.http().post('/api/v1/orgs').set(tok(owner)).send({ username: 'orgmember' })).body.message,
    ).toBe('user already exists [name: orgmember]');
    expect((await t.http().post('/api/v1/orgs').set(tok(owner)).send({ username: 'bad name!' })).status).toBe(
      422,
    );
    expect((await t.http().post('/api/v1/orgs').send({ username: 'anon' })).status).toBe(401);
    const teams = await t.http().get('/api/v1/orgs/widgets/teams').set(tok(owner));
    expect(teams.status).toBe(200);
    expect(teams.body).toEqual([
      expect.objectContaining({
        name: 'Owners',
        permission: 'owner',
        includes_all_repositories: true,
        can_create_org_repo: true,
      }),
    ]);
    expect(
      (await t.http().get('/api/v1/user/orgs').set(tok(owner))).body.map((o: { name: string }) => o.name),
    ).toContain('widgets');
  });

  it('edits (owners only), hides private organizations from outsiders', async () => {
    expect(
      (await t.http().patch('/api/v1/orgs/widgets').set(tok(outsider)).send({ description: 'x' })).status,
    ).toBe(403);
    const edited = await t
      .http()
      .patch('/api/v1/orgs/widgets')
      .set(tok(owner))
      .send({ description: 'updated', visibility: 'private' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ description: 'updated', visibility: 'private' });
    expect((await t.http().get('/api/v1/orgs/widgets').set(tok(outsider))).status).toBe(404);
    expect((await t.http().get('/api/v1/orgs/widgets')).status).toBe(404);
    expect((await t.http().get('/api/v1/orgs/widgets').set(tok(owner))).status).toBe(200);
    expect(
      (await t.http().patch('/api/v1/orgs/widgets').set(tok(owner)).send({ visibility: 'secret' })).status,
    ).toBe(422);
  });

  it('teams: create, add a member, link a repository; the member then pushes with the team permission', async () => {
    const created = await t
      .http()
      .post('/api/v1/orgs/widgets/teams')
      .set(tok(owner))
      .send({ name: 'devs', permission: 'write', units: ['repo.code', 'repo.pulls'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'devs',
      permission: 'write',
      units: ['repo.code', 'repo.pulls'],
      units_map: { 'repo.code': 'write', 'repo.pulls': 'write' },
      organization: { name: 'widgets' },
    });
    const teamId = created.body.id as number;
    expect(
      (await t.http().post('/api/v1/orgs/widgets/teams').set(tok(owner)).send({ name: 'DEVS' })).status,
    ).toBe(422);
    expect(
      (
        await t
          .http()
          .post('/api/v1/orgs/widgets/teams')
          .set(tok(owner))
          .send({ name: 'x', permission: 'owner' })
      ).status,
    ).toBe(422);
    // The organization is private now: an outsider does not see it (404 before any 403).
    expect(
      (await t.http().post('/api/v1/orgs/widgets/teams').set(tok(outsider)).send({ name: 'evil' })).status,
    ).toBe(404);

    await t.http().put(`/api/v1/teams/${teamId}/members/orgmember`).set(tok(owner)).expect(204);
    expect(
      (await t.http().get(`/api/v1/teams/${teamId}/members`).set(tok(member))).body.map(
        (u: { login: string }) => u.login,
      ),
    ).toEqual(['orgmember']);
    expect(
      (await t.http().get('/api/v1/orgs/widgets/members').set(tok(member))).body
        .map((u: { login: string }) => u.login)
        .sort(),
    ).toEqual(['orgmember', 'orgowner']);
    const notOwner = await t
      .http()
      .post('/api/v1/orgs/widgets/teams')
      .set(tok(member))
      .send({ name: 'mine' });
    expect(notOwner.status).toBe(403);
    expect(notOwner.body.message).toBe('Must be an organization owner');

    await t
      .http()
      .post('/api/v1/orgs/widgets/repos')
      .set(tok(owner))
      .send({ name: 'gadget', private: true, auto_init: true })
      .expect(201);
    const dir = await tempDir();
    const url = cloneUrl(base, 'widgets', 'gadget', { user: 'orgmember', secret: member.token });
    expect((await git(['clone', '--quiet', url, 'c'], dir)).code).not.toBe(0); // team not linked yet
    await t.http().put(`/api/v1/teams/${teamId}/repos/widgets/gadget`).set(tok(owner)).expect(204);
    expect((await git(['clone', '--quiet', url, 'c'], dir)).code).toBe(0);
    const repo = await t.http().get('/api/v1/repos/widgets/gadget').set(tok(member));
    expect(repo.body.permissions).toEqual({ admin: false, push: true, pull: true });
    await t.http().delete(`/api/v1/teams/${teamId}/repos/widgets/gadget`).set(tok(owner)).expect(204);
    expect((await t.http().get('/api/v1/repos/widgets/gadget').set(tok(member))).status).toBe(404);
  });

  it('the Owners team can be neither deleted nor left by its last owner; other teams are deleted (204)', async () => {
    const teams = (await t.http().get('/api/v1/orgs/widgets/teams').set(tok(owner))).body as {
      id: number;
      name: string;
    }[];
    const owners = teams.find((team) => team.name === 'Owners')!;
    expect((await t.http().delete(`/api/v1/teams/${owners.id}`).set(tok(owner))).status).toBe(422);
    expect(
      (await t.http().delete(`/api/v1/teams/${owners.id}/members/orgowner`).set(tok(owner))).status,
    ).toBe(422);
    const devs = teams.find((team) => team.name === 'devs')!;
    expect((await t.http().delete(`/api/v1/teams/${devs.id}`).set(tok(member))).status).toBe(403);
    expect((await t.http().delete(`/api/v1/teams/${devs.id}`).set(tok(owner))).status).toBe(204);
    expect((await t.http().get(`/api/v1/teams/${devs.id}`).set(tok(owner))).status).toBe(404);
  });

  it('members leave (204); deleting an organization that owns repositories is 422, then 204 once empty', async () => {
    await t.http().delete('/api/v1/orgs/widgets/members/orgmember').set(tok(owner)).expect(204);
    expect(
      (await t.http().get('/api/v1/orgs/widgets/members').set(tok(owner))).body.map(
        (u: { login: string }) => u.login,
      ),
    ).toEqual(['orgowner']);
    const refused = await t.http().delete('/api/v1/orgs/widgets').set(tok(owner));
    expect(refused.status).toBe(422);
    expect(refused.body.message).toMatch(/^organization still has ownership of repositories/);
    await t.http().delete('/api/v1/repos/widgets/gadget').set(tok(owner)).expect(204);
    expect((await t.http().delete('/api/v1/orgs/widgets').set(tok(outsider))).status).toBe(404);
    expect((await t.http().delete('/api/v1/orgs/widgets').set(tok(owner))).status).toBe(204);
    expect((await t.http().get('/api/v1/orgs/widgets').set(tok(owner))).status).toBe(404);
  });
});
