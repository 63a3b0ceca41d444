import { JobQueue } from '../../src/platform/jobs/job-queue.service';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Repository } from '../../src/modules/repositories/entities/repository.entity';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

describe('branches, branch protection and merge upstream (Gitea routes, the real git client)', () => {
  let t: TestApp;
  let base: string;
  let alice: CreatedUser; // owner of alice/proj
  let bob: CreatedUser; // write collaborator
  let carol: CreatedUser; // read collaborator
  let admin: CreatedUser;
  const events: { name: string; payload: Record<string, unknown> }[] = [];
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const repoPath = (name = 'proj', owner = 'alice') => `/api/v1/repos/${owner}/${name}`;

  async function createRepo(owner: CreatedUser, name: string, autoInit = true): Promise<void> {
    const res = await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name, auto_init: autoInit });
    expect(res.status).toBe(201);
  }

  /** A clone of owner/name as `who`, with its identity set. */
  async function clone(who: CreatedUser, name = 'proj', owner = 'alice'): Promise<string> {
    const dir = await tempDir();
    const result = await git(
      ['clone', '--quiet', cloneUrl(base, owner, name, { user: who.user.name, secret: who.token }), 'wc'],
      dir,
    );
    expect(result.code).toBe(0);
    return path.join(dir, 'wc');
  }

  async function commitFile(
    wc: string,
    file: string,
    content: string,
    message = `change ${file}`,
  ): Promise<string> {
    await mkdir(path.dirname(path.join(wc, file)), { recursive: true });
    await writeFile(path.join(wc, file), content);
    await git(['add', file], wc);
    expect((await git(['commit', '--quiet', '-m', message], wc)).code).toBe(0);
    return (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
  }

  async function tipOf(branch: string, name = 'proj', owner = 'alice'): Promise<string | undefined> {
    const res = await t
      .http()
      .get(`${repoPath(name, owner)}/branches/${branch}`)
      .set(tok(alice));
    return res.status === 200 ? (res.body.commit.id as string) : undefined;
  }

  async function protect(
    body: Record<string, unknown>,
    name = 'proj',
    owner = 'alice',
    who: CreatedUser = alice,
  ) {
    const res = await t
      .http()
      .post(`${repoPath(name, owner)}/branch_protections`)
      .set(tok(who))
      .send(body);
    expect(res.status).toBe(201);
    return res.body as { rule_name: string; priority: number };
  }

  async function unprotect(rule: string, name = 'proj', owner = 'alice') {
    expect(
      (
        await t
          .http()
          .delete(`${repoPath(name, owner)}/branch_protections/${encodeURIComponent(rule)}`)
          .set(tok(alice))
      ).status,
    ).toBe(204);
  }

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
    alice = await t.factories.user({ username: 'alice' });
    bob = await t.factories.user({ username: 'bob' });
    carol = await t.factories.user({ username: 'carol' });
    admin = await t.factories.admin({ username: 'siteadmin' });
    await createRepo(alice, 'proj');
    await t
      .http()
      .put(`${repoPath()}/collaborators/bob`)
      .set(tok(alice))
      .send({ permission: 'write' })
      .expect(204);
    await t
      .http()
      .put(`${repoPath()}/collaborators/carol`)
      .set(tok(alice))
      .send({ permission: 'read' })
      .expect(204);
    const emitter = t.app.get(EventEmitter2);
    for (const name of ['branch.created', 'branch.updated', 'branch.deleted'])
      emitter.on(name, (payload: Record<string, unknown>) => events.push({ name, payload }));
  });
  afterAll(async () => {
    await t.close();
  });

  describe('branch routes', () => {
    it('lists an empty repository as an empty page', async () => {
      await createRepo(alice, 'blank', false);
      const res = await t
        .http()
        .get(`${repoPath('blank')}/branches`)
        .set(tok(alice));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      expect(res.headers['x-total-count']).toBe('0');
      const create = await t
        .http()
        .post(`${repoPath('blank')}/branches`)
        .set(tok(alice))
        .send({ new_branch_name: 'x' });
      expect(create.status).toBe(404);
      expect(create.body.message).toBe('Git Repository is empty.');
    });

    it('creates branches (201) from the default branch, a branch or any ref, and lists them newest first with paging', async () => {
      await t.app.get(JobQueue).drain(); // earlier pushes' reactions first
      events.length = 0;
      const created = await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(bob))
        .send({ new_branch_name: 'feature/one' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'feature/one',
        protected: false,
        user_can_push: true,
        user_can_merge: true,
        effective_branch_protection_name: '',
      });
      // The auto_init commit is alice's (her e-mail address): resolved to her account.
      expect(created.body.commit).toMatchObject({
        author: { username: 'alice' },
        verification: { verified: false },
        added: null,
      });
      expect(created.body.commit.url).toBe(
        `${t.config.publicUrl}alice/proj/commit/${created.body.commit.id}`,
      );
      // The API write recorded its ref change as a push does: one repositories.push job (source api).
      const recorded: { payload: { source: string; pusherId: string; refs: { ref: string }[] } }[] =
        await t.dataSource.query(
          `SELECT payload FROM jobs WHERE type = 'repositories.push' AND payload::text LIKE '%refs/heads/feature/one%'`,
        );
      expect(recorded.map((row) => row.payload)).toEqual([
        expect.objectContaining({
          source: 'api',
          pusherId: bob.user.id,
          refs: [expect.objectContaining({ ref: 'refs/heads/feature/one', forced: false })],
        }),
      ]);
      await t.app.get(JobQueue).drain(); // the reactions run from the durable push job
      expect(events.map((e) => e.name)).toEqual(['branch.created']);
      expect(events[0]!.payload).toMatchObject({ branch: 'feature/one', actorUserId: bob.user.id });

      const wc = await clone(alice);
      await git(['checkout', '--quiet', '-b', 'newer'], wc);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // a later committer second than the first commit
      const newer = await commitFile(wc, 'n.txt', 'n\n');
      expect((await git(['push', '--quiet', 'origin', 'newer'], wc)).code).toBe(0);
      const fromRef = await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(bob))
        .send({ new_branch_name: 'from-sha', old_ref_name: newer, old_branch_name: 'main' });
      expect(fromRef.status).toBe(201);
      expect(fromRef.body.commit.id).toBe(newer);
      const fromBranch = await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(bob))
        .send({ new_branch_name: 'from-newer', old_branch_name: 'newer' });
      expect(fromBranch.body.commit.id).toBe(newer);

      const all = await t.http().get(`${repoPath()}/branches`).set(tok(carol));
      expect(all.status).toBe(200);
      expect(all.body.map((b: { name: string }) => b.name)).toEqual([
        'from-newer',
        'from-sha',
        'newer',
        'feature/one',
        'main',
      ]);
      expect(all.body[0]).toMatchObject({ user_can_push: false, user_can_merge: false });
      const page = await t.http().get(`${repoPath()}/branches?page=2&limit=2`).set(tok(alice));
      expect(page.body.map((b: { name: string }) => b.name)).toEqual(['newer', 'feature/one']);
      expect(page.headers['x-total-count']).toBe('5');
      expect(page.headers.link).toContain('rel="next"');
      const one = await t.http().get(`${repoPath()}/branches/feature/one`);
      expect(one.status).toBe(200);
      expect(one.body.name).toBe('feature/one');
      expect((await t.http().get(`${repoPath()}/branches/nope`)).status).toBe(404);
    });

    it('refuses names in use, unknown sources, invalid names and callers who may not write', async () => {
      const post = (who: CreatedUser | null, body: Record<string, unknown>) => {
        const req = t.http().post(`${repoPath()}/branches`);
        return (who ? req.set(tok(who)) : req).send(body);
      };
      const wc = await clone(alice);
      await git(['tag', 'v1'], wc);
      await git(['push', '--quiet', 'origin', 'v1'], wc);
      const cases: [CreatedUser | null, Record<string, unknown>, number, string | undefined][] = [
        [bob, { new_branch_name: 'main' }, 409, 'The branch already exists.'],
        [bob, { new_branch_name: 'feature' }, 409, 'The branch with the same name already exists.'],
        [bob, { new_branch_name: 'main/sub' }, 409, 'The branch with the same name already exists.'],
        [bob, { new_branch_name: 'v1' }, 409, 'The branch with the same tag already exists.'],
        [bob, { new_branch_name: 'x', old_branch_name: 'missing' }, 404, 'The old branch does not exist'],
        [bob, { new_branch_name: 'x', old_ref_name: 'deadbeef' }, 404, undefined],
        [bob, { new_branch_name: 'bad..name' }, 422, '[BranchName]: GitRefName'],
        [bob, { new_branch_name: '' }, 422, '[BranchName]: Required'],
        [bob, { new_branch_name: 'x'.repeat(101) }, 422, '[BranchName]: MaxSize'],
        [carol, { new_branch_name: 'x' }, 403, 'user should have a permission to write to a repo'],
        [null, { new_branch_name: 'x' }, 401, undefined],
      ];
      for (const [who, body, status, message] of cases) {
        const res = await post(who, body);
        expect({ body, status: res.status }).toEqual({ body, status });
        if (message) expect(res.body.message).toBe(message);
      }
      expect(await tipOf('x')).toBeUndefined();
    });

    it('moves a branch with PUT: fast-forward, compare-and-swap, force', async () => {
      const wc = await clone(alice);
      const start = (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
      await git(['checkout', '--quiet', '-b', 'movable'], wc);
      const ahead = await commitFile(wc, 'm.txt', 'm\n');
      expect(
        (
          await git(
            ['push', '--quiet', 'origin', `${start}:refs/heads/movable`, `${ahead}:refs/heads/ahead`],
            wc,
          )
        ).code,
      ).toBe(0);
      const put = (body: Record<string, unknown>, branch = 'movable') =>
        t.http().put(`${repoPath()}/branches/${branch}`).set(tok(bob)).send(body);
      expect((await put({ new_commit_id: ahead })).status).toBe(204);
      expect(await tipOf('movable')).toBe(ahead);
      expect((await put({ new_commit_id: ahead })).status).toBe(204);
      const back = await put({ new_commit_id: start });
      expect(back.status).toBe(422);
      expect(back.body.message).toBe('Force push movable need a confirm force parameter');
      const stale = await put({ new_commit_id: start, old_commit_id: start, force: true });
      expect(stale.status).toBe(422);
      expect(stale.body.message).toBe(`branch commit does not match [expected: ${start}, given: ${ahead}]`);
      expect((await put({ new_commit_id: start, old_commit_id: ahead, force: true })).status).toBe(204);
      expect(await tipOf('movable')).toBe(start);
      expect((await put({ new_commit_id: 'no-such-commit' })).status).toBe(422);
      expect((await put({ new_commit_id: start }, 'missing')).status).toBe(404);
      expect((await put({})).status).toBe(422);
      expect(
        (await t.http().put(`${repoPath()}/branches/movable`).set(tok(carol)).send({ new_commit_id: ahead }))
          .status,
      ).toBe(403);
    });

    it('deletes branches (204) but not the default branch, a pull request target or a protected branch', async () => {
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(bob))
        .send({ new_branch_name: 'doomed' })
        .expect(201);
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(bob))
        .send({ new_branch_name: 'target' })
        .expect(201);
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(bob))
        .send({ new_branch_name: 'guarded' })
        .expect(201);
      await protect({ rule_name: 'guarded', enable_push: true });
      const wc = await clone(alice);
      await git(['checkout', '--quiet', '-b', 'topic'], wc);
      await commitFile(wc, 'topic.txt', 't\n');
      await git(['push', '--quiet', 'origin', 'topic'], wc);
      expect(
        (
          await t
            .http()
            .post(`${repoPath()}/pulls`)
            .set(tok(alice))
            .send({ title: 'into target', head: 'topic', base: 'target' })
        ).status,
      ).toBe(201);
      const del = (branch: string, who = bob) =>
        t.http().delete(`${repoPath()}/branches/${branch}`).set(tok(who));
      expect((await del('main')).body.message).toBe('can not delete default or pull request target branch');
      expect((await del('target')).status).toBe(403);
      const guarded = await del('guarded');
      expect(guarded.status).toBe(403);
      expect(guarded.body.message).toBe('branch protected');
      expect((await del('missing')).status).toBe(404);
      expect((await del('doomed', carol)).status).toBe(403);
      await t.app.get(JobQueue).drain(); // earlier pushes' reactions first
      events.length = 0;
      expect((await del('doomed')).status).toBe(204);
      expect(await tipOf('doomed')).toBeUndefined();
      await t.app.get(JobQueue).drain(); // the reactions run from the durable push job
      expect(events.map((e) => e.name)).toEqual(['branch.deleted']);
      await unprotect('guarded');
    });

    it('renames: writers rename plain branches; the default branch and exact-name protected branches need an administrator', async () => {
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(bob))
        .send({ new_branch_name: 'old-name' })
        .expect(201);
      const patch = (from: string, name: string, who = bob) =>
        t.http().patch(`${repoPath()}/branches/${from}`).set(tok(who)).send({ name });
      expect((await patch('old-name', 'new-name')).status).toBe(204);
      expect(await tipOf('old-name')).toBeUndefined();
      expect(await tipOf('new-name')).toBeDefined();
      const same = await patch('new-name', 'new-name');
      expect(same.status).toBe(422);
      expect(same.body.message).toBe(
        'Cannot rename a branch using the same name or rename to a branch that already exists.',
      );
      expect((await patch('new-name', 'main')).status).toBe(422);
      const missing = await patch('nope', 'other');
      expect(missing.status).toBe(404);
      expect(missing.body.message).toBe("Branch doesn't exist.");
      expect((await patch('new-name', 'bad..name')).body.message).toBe('[Name]: GitRefName');
      const defaultByWriter = await patch('main', 'trunk');
      expect(defaultByWriter.status).toBe(403);
      expect(defaultByWriter.body.message).toBe(
        'User must be a repo or site admin to rename default or protected branches.',
      );

      await protect({ rule_name: 'new-name', enable_push: true });
      expect((await patch('new-name', 'renamed')).status).toBe(403);
      expect((await patch('new-name', 'renamed', alice)).status).toBe(204);
      expect((await t.http().get(`${repoPath()}/branch_protections/renamed`).set(tok(alice))).status).toBe(
        200,
      );
      expect((await t.http().get(`${repoPath()}/branch_protections/new-name`).set(tok(alice))).status).toBe(
        404,
      );

      await protect({ rule_name: 'locked/*' });
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(alice))
        .send({ new_branch_name: 'locked/a' })
        .expect(403);
      await unprotect('locked/*');
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(alice))
        .send({ new_branch_name: 'locked/a' })
        .expect(201);
      await protect({ rule_name: 'locked/*' });
      const globbed = await patch('locked/a', 'free', admin);
      expect(globbed.status).toBe(403);
      expect(globbed.body.message).toBe('Failed to rename branch due to branch protection rules.');
      const intoRule = await patch('renamed', 'locked/b', alice);
      expect(intoRule.body.message).toBe('Failed to rename branch due to branch protection rules.');
      await unprotect('locked/*');
      await unprotect('renamed');

      expect((await patch('main', 'trunk', admin)).status).toBe(204);
      expect((await t.http().get(repoPath()).set(tok(alice))).body.default_branch).toBe('trunk');
      expect((await patch('trunk', 'main', alice)).status).toBe(204);
      expect((await t.http().get(repoPath()).set(tok(alice))).body.default_branch).toBe('main');
    });

    it('refuses writes on a mirror (403) and an archived repository (423)', async () => {
      await createRepo(alice, 'mirrored');
      await t.dataSource.getRepository(Repository).update({ name: 'mirrored' }, { isMirror: true });
      const mirror = await t
        .http()
        .post(`${repoPath('mirrored')}/branches`)
        .set(tok(alice))
        .send({ new_branch_name: 'x' });
      expect(mirror.status).toBe(403);
      expect(mirror.body.message).toBe('Git Repository is a mirror.');
      expect(
        (
          await t
            .http()
            .delete(`${repoPath('mirrored')}/branches/x`)
            .set(tok(alice))
        ).status,
      ).toBe(403);
      await createRepo(alice, 'frozen');
      await t.http().patch(repoPath('frozen')).set(tok(alice)).send({ archived: true }).expect(200);
      expect(
        (
          await t
            .http()
            .post(`${repoPath('frozen')}/branches`)
            .set(tok(alice))
            .send({ new_branch_name: 'x' })
        ).status,
      ).toBe(423);
      expect(
        (
          await t
            .http()
            .post(`${repoPath('frozen')}/branch_protections`)
            .set(tok(alice))
            .send({ rule_name: 'x' })
        ).status,
      ).toBe(423);
      expect(
        (
          await t
            .http()
            .get(`${repoPath('frozen')}/branches`)
            .set(tok(alice))
        ).status,
      ).toBe(200);
    });
  });

  describe('branch protection routes', () => {
    it('creates rules with Gitea derived flags, appends priorities and refuses bad input', async () => {
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(alice))
        .send({ new_branch_name: 'stable' })
        .expect(201);
      const created = await t
        .http()
        .post(`${repoPath()}/branch_protections`)
        .set(tok(alice))
        .send({
          branch_name: 'stable',
          enable_push: false,
          enable_push_whitelist: true,
          push_whitelist_usernames: ['bob', 'carol'],
          required_approvals: -3,
          enable_force_push: true,
          status_check_contexts: ['ci'],
          protected_file_patterns: 'docs/*.md',
        });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        branch_name: 'stable',
        rule_name: 'stable',
        enable_push: false,
        enable_push_whitelist: false,
        enable_force_push: false,
        required_approvals: 0,
        status_check_contexts: ['ci'],
        protected_file_patterns: 'docs/*.md',
        // carol only reads: dropped.
        push_whitelist_usernames: ['bob'],
        approvals_whitelist_username: [],
      });
      const second = await protect({ rule_name: 'release/*' });
      expect(second.priority).toBe(created.body.priority + 1);
      const globJson = await t
        .http()
        .get(`${repoPath()}/branch_protections/${encodeURIComponent('release/*')}`)
        .set(tok(alice));
      expect(globJson.body).toMatchObject({ branch_name: '', rule_name: 'release/*' });

      const post = (who: CreatedUser, body: Record<string, unknown>) =>
        t.http().post(`${repoPath()}/branch_protections`).set(tok(who)).send(body);
      const empty = await post(alice, {});
      expect(empty.status).toBe(400);
      expect(empty.body.message).toBe('both rule_name and branch_name are empty');
      const twice = await post(alice, { rule_name: 'stable' });
      expect(twice.status).toBe(403);
      expect(twice.body.message).toBe('Branch protection already exist');
      const ghost = await post(alice, { rule_name: 'g', push_whitelist_usernames: ['ghost'] });
      expect(ghost.status).toBe(422);
      expect(ghost.body.message).toBe('user does not exist [uid: 0, name: ghost]');
      expect((await post(alice, { rule_name: 'g', enable_push: 'yes' })).status).toBe(422);
      expect((await post(bob, { rule_name: 'g' })).status).toBe(403);
      expect((await t.http().get(`${repoPath()}/branch_protections`).set(tok(bob))).status).toBe(403);
      expect((await t.http().get(`${repoPath()}/branch_protections`)).status).toBe(401);
      expect((await t.http().get(`${repoPath()}/branch_protections/g`).set(tok(alice))).status).toBe(404);

      const list = await t.http().get(`${repoPath()}/branch_protections`).set(tok(admin));
      expect(list.body.map((r: { rule_name: string }) => r.rule_name)).toEqual(['stable', 'release/*']);
      const ids = (await t.dataSource.query(
        `SELECT id, rule_name FROM branch_protections WHERE rule_name IN ('stable', 'release/*')`,
      )) as { id: string; rule_name: string }[];
      const idOf = (name: string) => Number(ids.find((row) => row.rule_name === name)!.id);
      expect(
        (
          await t
            .http()
            .post(`${repoPath()}/branch_protections/priority`)
            .set(tok(alice))
            .send({ ids: [idOf('release/*'), 999999, idOf('stable')] })
        ).status,
      ).toBe(204);
      const reordered = await t.http().get(`${repoPath()}/branch_protections`).set(tok(alice));
      expect(
        reordered.body.map((r: { rule_name: string; priority: number }) => [r.rule_name, r.priority]),
      ).toEqual([
        ['release/*', 1],
        ['stable', 2],
      ]);
      expect(
        (await t.http().post(`${repoPath()}/branch_protections/priority`).set(tok(alice)).send({ ids: 'x' }))
          .status,
      ).toBe(422);

      const branch = await t.http().get(`${repoPath()}/branches/stable`).set(tok(alice));
      expect(branch.body).toMatchObject({
        protected: true,
        status_check_contexts: ['ci'],
        effective_branch_protection_name: 'stable',
        user_can_push: false,
      });
      const asWriter = await t.http().get(`${repoPath()}/branches/stable`).set(tok(bob));
      expect(asWriter.body).toMatchObject({
        protected: true,
        effective_branch_protection_name: '',
        user_can_push: false,
        user_can_merge: true,
      });
      await unprotect('release/*');
    });

    it('edits rules field by field: enable_push=false clears the whitelist, absent lists are kept', async () => {
      await protect({
        rule_name: 'edit-me',
        enable_push: true,
        enable_push_whitelist: true,
        push_whitelist_usernames: ['bob'],
        push_whitelist_deploy_keys: true,
        required_approvals: 2,
      });
      const edit = (body: Record<string, unknown>) =>
        t.http().patch(`${repoPath()}/branch_protections/edit-me`).set(tok(alice)).send(body);
      const kept = await edit({ required_approvals: -1, enable_status_check: true });
      expect(kept.status).toBe(200);
      expect(kept.body).toMatchObject({
        enable_push_whitelist: true,
        push_whitelist_usernames: ['bob'],
        push_whitelist_deploy_keys: true,
        required_approvals: 2,
        enable_status_check: true,
      });
      const off = await edit({ enable_push: false });
      expect(off.body).toMatchObject({
        enable_push: false,
        enable_push_whitelist: false,
        push_whitelist_deploy_keys: false,
        push_whitelist_usernames: ['bob'],
      });
      const cleared = await edit({ push_whitelist_usernames: [] });
      expect(cleared.body.push_whitelist_usernames).toEqual([]);
      expect((await edit({ merge_whitelist_usernames: ['ghost'] })).status).toBe(422);
      expect(
        (await t.http().patch(`${repoPath()}/branch_protections/nope`).set(tok(alice)).send({})).status,
      ).toBe(404);
      await unprotect('edit-me');
      expect((await t.http().delete(`${repoPath()}/branch_protections/edit-me`).set(tok(alice))).status).toBe(
        404,
      );
    });
  });

  describe('enforcement on push', () => {
    it('push disabled refuses everyone, the ref does not move, and git prints the reason', async () => {
      const before = await tipOf('main');
      await protect({ rule_name: 'main', enable_push: false });
      const wc = await clone(alice);
      await commitFile(wc, 'blocked.txt', 'x\n');
      const push = await git(['push', 'origin', 'main'], wc);
      expect(push.code).not.toBe(0);
      expect(push.stderr).toContain('remote: Not allowed to push to protected branch main');
      expect(push.stderr).toContain('pre-receive hook declined');
      expect(await tipOf('main')).toBe(before);
      // API writes go through the same checks.
      const local = (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
      await git(['push', '--quiet', 'origin', `${local}:refs/heads/side`], wc);
      const api = await t
        .http()
        .put(`${repoPath()}/branches/main`)
        .set(tok(alice))
        .send({ new_commit_id: local });
      expect(api.status).toBe(403);
      expect(api.body.message).toBe('Not allowed to push to protected branch main');
      const deletion = await git(['push', 'origin', '--delete', 'main'], wc);
      expect(deletion.stderr).toMatch(/refusing to delete the current branch|protected from deletion/);
      await unprotect('main');
      expect((await git(['push', '--quiet', 'origin', 'main'], wc)).code).toBe(0);
    });

    it('a push whitelist admits listed users and teams only', async () => {
      await t.factories.organization('acme', alice.user.id);
      const team = await t
        .http()
        .post('/api/v1/orgs/acme/teams')
        .set(tok(alice))
        .send({ name: 'pushers', permission: 'write', units: ['repo.code'] });
      expect(team.status).toBe(201);
      await t.http().put(`/api/v1/teams/${team.body.id}/members/carol`).set(tok(alice)).expect(204);
      await t.http().put(`/api/v1/teams/${team.body.id}/members/bob`).set(tok(alice)).expect(204);
      const created = await t
        .http()
        .post('/api/v1/orgs/acme/repos')
        .set(tok(alice))
        .send({ name: 'tool', auto_init: true });
      expect(created.status).toBe(201);
      await t.http().put(`/api/v1/teams/${team.body.id}/repos/acme/tool`).set(tok(alice)).expect(204);
      await t
        .http()
        .put('/api/v1/repos/acme/tool/collaborators/siteadmin')
        .set(tok(alice))
        .send({ permission: 'write' });
      const rule = await t
        .http()
        .post('/api/v1/repos/acme/tool/branch_protections')
        .set(tok(alice))
        .send({
          rule_name: 'main',
          enable_push: true,
          enable_push_whitelist: true,
          push_whitelist_teams: ['pushers'],
        });
      expect(rule.status).toBe(201);
      expect(rule.body.push_whitelist_teams).toEqual(['pushers']);
      expect(
        (
          await t
            .http()
            .post('/api/v1/repos/acme/tool/branch_protections')
            .set(tok(alice))
            .send({ rule_name: 'x', push_whitelist_teams: ['nobody'] })
        ).status,
      ).toBe(422);

      const byCarol = await clone(carol, 'tool', 'acme');
      await commitFile(byCarol, 'carol.txt', 'c\n');
      expect((await git(['push', 'origin', 'main'], byCarol)).code).toBe(0);
      const byAlice = await clone(alice, 'tool', 'acme');
      await commitFile(byAlice, 'alice.txt', 'a\n');
      const refused = await git(['push', 'origin', 'main'], byAlice);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('Not allowed to push to protected branch main');
      const branch = await t.http().get('/api/v1/repos/acme/tool/branches/main').set(tok(carol));
      expect(branch.body.user_can_push).toBe(true);
    });

    it('force pushes need enable_force_push (and its allowlist when on)', async () => {
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(alice))
        .send({ new_branch_name: 'forceable' })
        .expect(201);
      await protect({ rule_name: 'forceable', enable_push: true });
      const wc = await clone(bob);
      await git(['checkout', '--quiet', 'forceable'], wc);
      await git(['commit', '--quiet', '--amend', '-m', 'rewritten'], wc);
      const refused = await git(['push', '--force', 'origin', 'forceable'], wc);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('remote: branch forceable is protected from force push');
      await t
        .http()
        .patch(`${repoPath()}/branch_protections/forceable`)
        .set(tok(alice))
        .send({
          enable_force_push: true,
          enable_force_push_allowlist: true,
          force_push_allowlist_usernames: ['alice'],
        })
        .expect(200);
      const notListed = await git(['push', '--force', 'origin', 'forceable'], wc);
      expect(notListed.stderr).toContain('Not allowed to force-push to protected branch forceable');
      await t
        .http()
        .patch(`${repoPath()}/branch_protections/forceable`)
        .set(tok(alice))
        .send({ force_push_allowlist_usernames: ['bob'] })
        .expect(200);
      expect((await git(['push', '--force', 'origin', 'forceable'], wc)).code).toBe(0);
      await unprotect('forceable');
    });

    it('protected file patterns refuse changes to matching files; unprotected patterns let the rest through', async () => {
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(alice))
        .send({ new_branch_name: 'files' })
        .expect(201);
      await protect({ rule_name: 'files', enable_push: true, protected_file_patterns: 'docs/*.md;*.lock' });
      const wc = await clone(bob);
      await git(['checkout', '--quiet', 'files'], wc);
      await commitFile(wc, 'docs/Guide.md', 'guide\n');
      const refused = await git(['push', 'origin', 'files'], wc);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('remote: branch files is protected from changing file docs/Guide.md');
      await git(['reset', '--quiet', '--hard', 'origin/files'], wc);
      await commitFile(wc, 'src/ok.ts', 'ok\n');
      expect((await git(['push', 'origin', 'files'], wc)).code).toBe(0);

      await t
        .http()
        .patch(`${repoPath()}/branch_protections/files`)
        .set(tok(alice))
        .send({ enable_push: false, protected_file_patterns: '', unprotected_file_patterns: 'notes/**' })
        .expect(200);
      await commitFile(wc, 'notes/today.txt', 'n\n');
      expect((await git(['push', 'origin', 'files'], wc)).code).toBe(0);
      await commitFile(wc, 'src/no.ts', 'no\n');
      const mixed = await git(['push', 'origin', 'files'], wc);
      expect(mixed.stderr).toContain('Not allowed to push to protected branch files');
      await unprotect('files');
    });

    it('require_signed_commits refuses unsigned commits and accepts signed ones (signature present; see README)', async () => {
      await t
        .http()
        .post(`${repoPath()}/branches`)
        .set(tok(alice))
        .send({ new_branch_name: 'signed' })
        .expect(201);
      await protect({ rule_name: 'signed', enable_push: true, require_signed_commits: true });
      const wc = await clone(bob);
      await git(['checkout', '--quiet', 'signed'], wc);
      const unsigned = await commitFile(wc, 'u.txt', 'u\n');
      const refused = await git(['push', 'origin', 'signed'], wc);
      expect(refused.stderr).toContain(
        `remote: branch signed is protected from unverified commit ${unsigned}`,
      );
      // A commit object carrying a signature header, written by hand (no signing key needed).
      const raw = (await git(['cat-file', 'commit', 'HEAD'], wc)).stdout;
      const headerEnd = raw.indexOf('\n\n');
      const signedRaw = `${raw.slice(0, headerEnd)}\ngpgsig -----BEGIN SSH SIGNATURE-----\n U1NIU0lH\n -----END SSH SIGNATURE-----${raw.slice(headerEnd)}`;
      await writeFile(path.join(wc, 'signed-commit'), signedRaw);
      const signed = (await git(['hash-object', '-t', 'commit', '-w', 'signed-commit'], wc)).stdout.trim();
      expect((await git(['push', 'origin', `${signed}:refs/heads/signed`], wc)).code).toBe(0);
      await unprotect('signed');
    });

    it('glob rules: the first by priority decides between two matches', async () => {
      await protect({ rule_name: 'release/**', enable_push: false });
      await protect({ rule_name: 'release/v*', enable_push: true });
      const wc = await clone(bob);
      const refused = await git(['push', 'origin', 'HEAD:refs/heads/release/v1'], wc);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('Not allowed to push to protected branch release/v1');
      const rules = (await t.dataSource.query(
        `SELECT id, rule_name FROM branch_protections WHERE rule_name LIKE 'release/%' ORDER BY rule_name`,
      )) as { id: string; rule_name: string }[];
      const byName = new Map(rules.map((r) => [r.rule_name, Number(r.id)]));
      await t
        .http()
        .post(`${repoPath()}/branch_protections/priority`)
        .set(tok(alice))
        .send({ ids: [byName.get('release/v*'), byName.get('release/**')] })
        .expect(204);
      const allowed = await git(['push', 'origin', 'HEAD:refs/heads/release/v1'], wc);
      expect({ code: allowed.code, stderr: allowed.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      const branch = await t.http().get(`${repoPath()}/branches/release/v1`).set(tok(alice));
      expect(branch.body).toMatchObject({ protected: true, effective_branch_protection_name: 'release/v*' });
      const deletion = await git(['push', 'origin', '--delete', 'release/v1'], wc);
      expect(deletion.stderr).toContain('remote: branch release/v1 is protected from deletion');
      await unprotect('release/**');
      await unprotect('release/v*');
    });
  });

  describe('merge upstream', () => {
    let forkTip: () => Promise<string | undefined>;

    beforeAll(async () => {
      await createRepo(alice, 'upstream');
      const fork = await t.http().post('/api/v1/repos/alice/upstream/forks').set(tok(bob)).send({});
      expect(fork.status).toBe(202);
      forkTip = async () =>
        (await t.http().get('/api/v1/repos/bob/upstream/branches/main').set(tok(bob))).body.commit?.id;
    });

    const merge = (body: Record<string, unknown>, repo = '/api/v1/repos/bob/upstream', who = bob) =>
      t.http().post(`${repo}/merge-upstream`).set(tok(who)).send(body);

    it('answers up-to-date, then fast-forward after the base moves', async () => {
      const up = await merge({ branch: 'main' });
      expect(up.status).toBe(200);
      expect(up.body).toEqual({ merge_type: 'up-to-date' });
      const wc = await clone(alice, 'upstream');
      const moved = await commitFile(wc, 'base.txt', 'base\n');
      await git(['push', '--quiet', 'origin', 'main'], wc);
      await t.app.get(JobQueue).drain(); // earlier pushes' reactions first
      events.length = 0;
      expect((await merge({ branch: 'main' })).body).toEqual({ merge_type: 'fast-forward' });
      expect(await forkTip()).toBe(moved);
      await t.app.get(JobQueue).drain(); // the reactions run from the durable push job
      expect(events.map((e) => e.name)).toEqual(['branch.updated']);
    });

    it('writes a merge commit for diverged branches unless ff_only (400); conflicts are 409', async () => {
      const upstreamWc = await clone(alice, 'upstream');
      await commitFile(upstreamWc, 'upstream-only.txt', 'u\n');
      await git(['push', '--quiet', 'origin', 'main'], upstreamWc);
      const forkWc = await clone(bob, 'upstream', 'bob');
      const forkOnly = await commitFile(forkWc, 'fork-only.txt', 'f\n');
      await git(['push', '--quiet', 'origin', 'main'], forkWc);
      const ffOnly = await merge({ branch: 'main', ff_only: true });
      expect(ffOnly.status).toBe(400);
      expect(ffOnly.body.message).toBe('fast-forward merge not possible: branch has diverged');
      expect(await forkTip()).toBe(forkOnly);
      const merged = await merge({ branch: 'main' });
      expect(merged.body).toEqual({ merge_type: 'merge' });
      const tip = (await forkTip())!;
      await git(['fetch', '--quiet', 'origin'], forkWc);
      expect((await git(['log', '-1', '--format=%P %s', tip], forkWc)).stdout.trim()).toMatch(
        new RegExp(`^${forkOnly} [0-9a-f]{40} merge upstream$`),
      );

      await git(['reset', '--quiet', '--hard', 'origin/main'], forkWc);
      await commitFile(forkWc, 'clash.txt', 'fork\n');
      await git(['push', '--quiet', 'origin', 'main'], forkWc);
      await git(['pull', '--quiet', '--no-rebase', 'origin', 'main'], upstreamWc);
      await commitFile(upstreamWc, 'clash.txt', 'upstream\n');
      await git(['push', '--quiet', 'origin', 'main'], upstreamWc);
      const before = await forkTip();
      const conflict = await merge({ branch: 'main' });
      expect(conflict.status).toBe(409);
      expect(conflict.body.message).toContain('clash.txt');
      expect(await forkTip()).toBe(before);
    });

    it('refuses repositories that are not forks (400), unknown branches (404) and protected fork branches (403)', async () => {
      const notFork = await merge({ branch: 'main' }, repoPath());
      expect(notFork.status).toBe(400);
      expect(notFork.body.message).toBe('repo is not a fork');
      expect((await merge({ branch: 'nope' })).status).toBe(404);
      expect((await merge({ branch: 'main' }, '/api/v1/repos/bob/upstream', carol)).status).toBe(403);
      await createRepo(alice, 'upstream2');
      expect((await t.http().post('/api/v1/repos/alice/upstream2/forks').set(tok(bob)).send({})).status).toBe(
        202,
      );
      const wc = await clone(alice, 'upstream2');
      await commitFile(wc, 'more.txt', 'more\n');
      expect((await git(['push', '--quiet', 'origin', 'main'], wc)).code).toBe(0);
      await protect({ rule_name: 'main', enable_push: false }, 'upstream2', 'bob', bob);
      const refused = await merge({ branch: 'main' }, '/api/v1/repos/bob/upstream2');
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe('Not allowed to push to protected branch main');
    });
  });
});
