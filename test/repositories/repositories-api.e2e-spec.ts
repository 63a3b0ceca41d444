import { existsSync, readdirSync } from 'node:fs';
import { OrganizationsService } from '../../src/modules/identity/organizations.service';
import { GitStorage } from '../../src/modules/repositories/git/git-storage.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir, workingCopy } from './git-client';

describe('Gitea repository routes', () => {
  let t: TestApp;
  let base: string;
  let owner: CreatedUser;
  let admin: CreatedUser;
  let adminCollab: CreatedUser;
  let writer: CreatedUser;
  let reader: CreatedUser;
  let teamMember: CreatedUser;
  let outsider: CreatedUser;
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
    owner = await t.factories.user({ username: 'owner' });
    admin = await t.factories.admin({ username: 'siteadmin' });
    adminCollab = await t.factories.user({ username: 'admincollab' });
    writer = await t.factories.user({ username: 'writer' });
    reader = await t.factories.user({ username: 'reader' });
    teamMember = await t.factories.user({ username: 'teammember' });
    outsider = await t.factories.user({ username: 'outsider' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('create', () => {
    it('answers 201 with Gitea Repository JSON, and the repository exists on disk', async () => {
      const res = await t.http().post('/api/v1/user/repos').set(tok(owner)).send({
        name: 'Project',
        description: 'd',
        private: false,
        auto_init: true,
        default_branch: 'develop',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        name: 'Project',
        full_name: 'owner/Project',
        description: 'd',
        private: false,
        empty: false,
        fork: false,
        mirror: false,
        archived: false,
        default_branch: 'develop',
        owner: { login: 'owner' },
        permissions: { admin: true, push: true, pull: true },
        clone_url: `${t.config.publicUrl}owner/Project.git`,
        html_url: `${t.config.publicUrl}owner/Project`,
      });
      expect(typeof res.body.id).toBe('number');
      expect(existsSync(t.app.get(GitStorage).pathOf('owner', 'Project'))).toBe(true);
    });

    it.each([
      [{ name: 'Project' }, 409, 'The repository with the same name already exists.'],
      [{ name: 'project' }, 409, 'The repository with the same name already exists.'],
      [{ name: 'bad name' }, 422, '[Name]: AlphaDashDot'],
      [{ name: '' }, 422, '[Name]: Required'],
      [{ name: 'x'.repeat(101) }, 422, '[Name]: MaxSize'],
      [
        { name: '..' },
        422,
        'name is invalid [..]: must be valid alpha or numeric or dash(-_) or dot characters',
      ],
      [
        { name: 'a..b' },
        422,
        'name is invalid [a..b]: must be valid alpha or numeric or dash(-_) or dot characters',
      ],
      [{ name: '.' }, 422, 'name is reserved [name: .]'],
      [{ name: '-' }, 422, 'name is reserved [name: -]'],
      [{ name: 'thing.git' }, 422, 'name pattern is not allowed [pattern: *.git]'],
      [{ name: 'Thing.WIKI' }, 422, 'name pattern is not allowed [pattern: *.wiki]'],
      [{ name: 'feed.rss' }, 422, 'name pattern is not allowed [pattern: *.rss]'],
      [{ name: 'feed.atom' }, 422, 'name pattern is not allowed [pattern: *.atom]'],
      [{ name: 'ok', default_branch: 'bad..branch' }, 422, '[DefaultBranch]: GitRefName'],
    ])('%j → %i', async (body, status, message) => {
      const res = await t.http().post('/api/v1/user/repos').set(tok(owner)).send(body);
      expect(res.status).toBe(status);
      expect(res.body.message).toBe(message);
    });

    it('refuses bad input without a row or a directory left behind', async () => {
      const res = await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 42 });
      expect([400, 422]).toContain(res.status);
      const root = t.app.get(GitStorage).root;
      expect(readdirSync(`${root}/.tmp`)).toEqual([]);
      expect(
        (await t.http().get('/api/v1/users/owner/repos').set(tok(owner))).body.map(
          (r: { name: string }) => r.name,
        ),
      ).toEqual(['Project']);
    });

    it('needs credentials (401) and a repository-write token scope (403)', async () => {
      expect((await t.http().post('/api/v1/user/repos').send({ name: 'anon' })).status).toBe(401);
      const narrow = await t.factories.token(owner.user, { scopes: ['read:repository'] });
      const res = await t
        .http()
        .post('/api/v1/user/repos')
        .set('Authorization', `token ${narrow}`)
        .send({ name: 'narrow' });
      expect(res.status).toBe(403);
      expect(res.body.message).toContain('required=[write:repository]');
    });

    it('in an organization: owners may, members without a creating team may not (403), unknown org 404', async () => {
      const org = await t.factories.organization('acme', owner.user.id);
      await t.app.get(OrganizationsService).addMember(org.id, outsider.user.id);
      const created = await t
        .http()
        .post('/api/v1/orgs/acme/repos')
        .set(tok(owner))
        .send({ name: 'tools', private: true });
      expect(created.status).toBe(201);
      expect(created.body.owner.login).toBe('acme');
      const refused = await t
        .http()
        .post('/api/v1/orgs/acme/repos')
        .set(tok(outsider))
        .send({ name: 'nope' });
      expect(refused.status).toBe(403);
      expect(
        (await t.http().post('/api/v1/orgs/nosuchorg/repos').set(tok(owner)).send({ name: 'x' })).status,
      ).toBe(404);
    });
  });

  describe('permissions (API and git)', () => {
    const matrix: [
      string,
      () => CreatedUser | null,
      { publicRead: boolean; privateRead: boolean; push: boolean; admin: boolean },
    ][] = [
      ['owner', () => owner, { publicRead: true, privateRead: true, push: true, admin: true }],
      ['site admin', () => admin, { publicRead: true, privateRead: true, push: true, admin: true }],
      [
        'admin collaborator',
        () => adminCollab,
        { publicRead: true, privateRead: true, push: true, admin: true },
      ],
      ['write collaborator', () => writer, { publicRead: true, privateRead: true, push: true, admin: false }],
      ['read collaborator', () => reader, { publicRead: true, privateRead: true, push: false, admin: false }],
      [
        'team member (write team)',
        () => teamMember,
        { publicRead: true, privateRead: true, push: true, admin: false },
      ],
      ['outsider', () => outsider, { publicRead: true, privateRead: false, push: false, admin: false }],
      ['anonymous', () => null, { publicRead: true, privateRead: false, push: false, admin: false }],
    ];

    beforeAll(async () => {
      const organizations = t.app.get(OrganizationsService);
      const org = await t.factories.organization('matrixorg', owner.user.id);
      const team = await organizations.createTeam(org.id, 'devs', 'write');
      await organizations.addMember(org.id, teamMember.user.id);
      await organizations.addTeamMember(team.id, teamMember.user.id);
      for (const visibility of ['public', 'private']) {
        const name = `${visibility}repo`;
        await t
          .http()
          .post('/api/v1/orgs/matrixorg/repos')
          .set(tok(owner))
          .send({ name, private: visibility === 'private', auto_init: true })
          .expect(201);
        await t.http().put(`/api/v1/repos/matrixorg/${name}/teams/devs`).set(tok(owner)).expect(204);
        // Gitea: adding a team twice, or removing one that is not added, is 422 (issue 49.8).
        const again = await t.http().put(`/api/v1/repos/matrixorg/${name}/teams/devs`).set(tok(owner));
        expect([again.status, again.body.message]).toEqual([422, "team 'devs' is already added to repo"]);
        await t.http().delete(`/api/v1/repos/matrixorg/${name}/teams/devs`).set(tok(owner)).expect(204);
        const gone = await t.http().delete(`/api/v1/repos/matrixorg/${name}/teams/devs`).set(tok(owner));
        expect([gone.status, gone.body.message]).toEqual([422, "team 'devs' was not added to repo"]);
        await t.http().put(`/api/v1/repos/matrixorg/${name}/teams/devs`).set(tok(owner)).expect(204);
        for (const [who, permission] of [
          [adminCollab, 'admin'],
          [writer, 'write'],
          [reader, 'read'],
        ] as const) {
          await t
            .http()
            .put(`/api/v1/repos/matrixorg/${name}/collaborators/${who.user.name}`)
            .set(tok(owner))
            .send({ permission })
            .expect(204);
        }
      }
    });

    it.each(matrix)(
      '%s',
      async (_label, who, expected) => {
        const caller = who();
        const headers = caller ? tok(caller) : {};
        for (const visibility of ['public', 'private'] as const) {
          const name = `${visibility}repo`;
          const canRead = visibility === 'public' ? expected.publicRead : expected.privateRead;
          const get = await t.http().get(`/api/v1/repos/matrixorg/${name}`).set(headers);
          expect([visibility, get.status]).toEqual([visibility, canRead ? 200 : 404]);
          if (canRead && caller)
            expect(get.body.permissions).toEqual({ admin: expected.admin, push: expected.push, pull: true });
          // Gitea's convert.ToRepo: anonymous callers get their permissions too (issue 34.1).
          if (canRead && !caller)
            expect(get.body.permissions).toEqual({ admin: false, push: false, pull: true });

          const patch = await t
            .http()
            .patch(`/api/v1/repos/matrixorg/${name}`)
            .set(headers)
            .send({ description: 'changed' });
          expect([visibility, 'patch', patch.status]).toEqual([
            visibility,
            'patch',
            // Gitea's order: repository assignment (404 when unreadable, anonymous too) before reqToken (401).
            !canRead ? 404 : !caller ? 401 : expected.admin ? 200 : 403,
          ]);

          const dir = await tempDir();
          const credentials = caller ? { user: caller.user.name, secret: caller.token } : undefined;
          const clone = await git(
            ['clone', '--quiet', cloneUrl(base, 'matrixorg', name, credentials), 'copy'],
            dir,
          );
          expect([visibility, 'clone', clone.code === 0]).toEqual([visibility, 'clone', canRead]);
          if (!canRead) continue;
          const wc = await workingCopy(
            cloneUrl(base, 'matrixorg', name, credentials),
            `by-${_label.replace(/\W+/g, '-')}`,
          );
          const push = await git(['push', 'origin', 'HEAD'], wc);
          expect([visibility, 'push', push.code === 0]).toEqual([visibility, 'push', expected.push]);
        }
      },
      120_000,
    );
  });

  describe('edit, rename and delete', () => {
    it('renames with a 307 redirect from the old name, moves the directory, archives', async () => {
      await t
        .http()
        .post('/api/v1/user/repos')
        .set(tok(owner))
        .send({ name: 'oldname', auto_init: true })
        .expect(201);
      const storage = t.app.get(GitStorage);
      const res = await t
        .http()
        .patch('/api/v1/repos/owner/oldname')
        .set(tok(owner))
        .send({ name: 'newname', description: 'renamed', archived: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'newname', description: 'renamed', archived: true });
      expect(existsSync(storage.pathOf('owner', 'newname'))).toBe(true);
      expect(existsSync(storage.pathOf('owner', 'oldname'))).toBe(false);
      const redirect = await t.http().get('/api/v1/repos/owner/oldname').set(tok(owner));
      expect(redirect.status).toBe(307);
      expect(redirect.headers.location).toBe('/api/v1/repos/owner/newname');
      const dir = await tempDir();
      expect(
        (
          await git(
            [
              'clone',
              '--quiet',
              cloneUrl(base, 'owner', 'oldname', { user: 'owner', secret: owner.token }),
              'c',
            ],
            dir,
          )
        ).code,
      ).toBe(0);
    });

    it('refuses a rename onto an existing name (422) and an unknown default branch (404), changing nothing', async () => {
      const taken = await t
        .http()
        .patch('/api/v1/repos/owner/newname')
        .set(tok(owner))
        .send({ name: 'Project', description: 'not applied' });
      expect(taken.status).toBe(422);
      const branch = await t
        .http()
        .patch('/api/v1/repos/owner/newname')
        .set(tok(owner))
        .send({ default_branch: 'nope', description: 'not applied' });
      expect(branch.status).toBe(404);
      expect((await t.http().get('/api/v1/repos/owner/newname').set(tok(owner))).body.description).toBe(
        'renamed',
      );
    });

    it('deletes: 403 for a write collaborator, 204 for the owner, row and directory gone', async () => {
      await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'doomed' }).expect(201);
      await t
        .http()
        .put('/api/v1/repos/owner/doomed/collaborators/writer')
        .set(tok(owner))
        .send({ permission: 'write' })
        .expect(204);
      expect((await t.http().delete('/api/v1/repos/owner/doomed').set(tok(writer))).status).toBe(403);
      expect((await t.http().delete('/api/v1/repos/owner/doomed').set(tok(owner))).status).toBe(204);
      expect((await t.http().get('/api/v1/repos/owner/doomed').set(tok(owner))).status).toBe(404);
      expect(existsSync(t.app.get(GitStorage).pathOf('owner', 'doomed'))).toBe(false);
    });

    it('unknown owner and unknown repository are 404', async () => {
      const noOwner = await t.http().get('/api/v1/repos/nobody/x');
      expect(noOwner.status).toBe(404);
      expect(noOwner.body.errors).toEqual(['user does not exist [uid: 0, name: nobody]']);
      expect((await t.http().get('/api/v1/repos/owner/x')).status).toBe(404);
    });
  });

  describe('collaborators', () => {
    it('lists, checks, updates and removes; unknown users are 422; only repository admins manage', async () => {
      await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'team-work' }).expect(201);
      await t
        .http()
        .put('/api/v1/repos/owner/team-work/collaborators/reader')
        .set(tok(owner))
        .send({})
        .expect(204);
      const list = await t.http().get('/api/v1/repos/owner/team-work/collaborators').set(tok(owner));
      expect(list.status).toBe(200);
      expect(list.headers['x-total-count']).toBe('1');
      expect(list.body.map((u: { login: string }) => u.login)).toEqual(['reader']);
      expect(
        (await t.http().get('/api/v1/repos/owner/team-work/collaborators/reader').set(tok(owner))).status,
      ).toBe(204);
      expect(
        (await t.http().get('/api/v1/repos/owner/team-work/collaborators/writer').set(tok(owner))).status,
      ).toBe(404);
      expect(
        (await t.http().put('/api/v1/repos/owner/team-work/collaborators/ghost').set(tok(owner)).send({}))
          .status,
      ).toBe(422);
      expect(
        (await t.http().put('/api/v1/repos/owner/team-work/collaborators/writer').set(tok(reader)).send({}))
          .status,
      ).toBe(403);
      expect(
        (
          await t
            .http()
            .put('/api/v1/repos/owner/team-work/collaborators/writer')
            .set(tok(owner))
            .send({ permission: 'owner' })
        ).status,
      ).toBe(422);
      await t.http().delete('/api/v1/repos/owner/team-work/collaborators/reader').set(tok(owner)).expect(204);
      expect(
        (await t.http().get('/api/v1/repos/owner/team-work/collaborators').set(tok(owner))).body,
      ).toEqual([]);
    });
  });

  describe('lists and search', () => {
    it('GET /users/{u}/repos shows private repositories only to those who may read them', async () => {
      await t.http().post('/api/v1/user/repos').set(tok(outsider)).send({ name: 'mine-public' }).expect(201);
      await t
        .http()
        .post('/api/v1/user/repos')
        .set(tok(outsider))
        .send({ name: 'mine-private', private: true })
        .expect(201);
      const names = async (headers: Record<string, string>) =>
        (await t.http().get('/api/v1/users/outsider/repos').set(headers)).body.map(
          (r: { name: string }) => r.name,
        );
      expect(await names({})).toEqual(['mine-public']);
      expect(await names(tok(reader))).toEqual(['mine-public']);
      expect(await names(tok(outsider))).toEqual(['mine-private', 'mine-public']);
      expect(await names(tok(admin))).toEqual(['mine-private', 'mine-public']);
    });

    it('GET /user/repos pages with Link and X-Total-Count', async () => {
      const res = await t.http().get('/api/v1/user/repos?limit=1&page=2').set(tok(outsider));
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
      expect(Number(res.headers['x-total-count'])).toBeGreaterThanOrEqual(2);
      expect(res.headers.link).toContain('rel="prev"');
    });

    it('GET /repos/search answers {ok, data}, filters by q, and refuses a bad sort (422)', async () => {
      const res = await t.http().get('/api/v1/repos/search?q=mine&limit=10').set(tok(outsider));
      expect(res.status).toBe(200);
      expect(res.body.ok).toBe(true);
      expect(res.body.data.map((r: { name: string }) => r.name)).toEqual(['mine-private', 'mine-public']);
      expect(res.headers['x-total-count']).toBe('2');
      const anonymous = await t.http().get('/api/v1/repos/search?q=mine');
      expect(anonymous.body.data.map((r: { name: string }) => r.name)).toEqual(['mine-public']);
      expect((await t.http().get('/api/v1/repos/search?sort=bogus')).status).toBe(422);
    });
  });

  describe('deleting the owner', () => {
    it('is refused (422) while the user owns repositories; purge removes them and their directories', async () => {
      const doomed = await t.factories.user({ username: 'leaving' });
      await t
        .http()
        .post('/api/v1/user/repos')
        .set(tok(doomed))
        .send({ name: 'leftover', auto_init: true })
        .expect(201);
      const refused = await t.http().delete('/api/v1/admin/users/leaving').set(tok(admin));
      expect(refused.status).toBe(422);
      expect(refused.body.message).toBe(`user still has ownership of repositories [uid: ${doomed.user.id}]`);
      expect((await t.http().delete('/api/v1/admin/users/leaving?purge=true').set(tok(admin))).status).toBe(
        204,
      );
      expect(existsSync(t.app.get(GitStorage).pathOf('leaving', 'leftover'))).toBe(false);
    });
  });
});
