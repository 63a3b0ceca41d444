import { writeFile } from 'node:fs/promises';
import { JobQueue } from '../../src/platform/jobs/job-queue.service';
import path from 'node:path';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

describe('Gitea issues, comments, releases and pull requests', () => {
  let t: TestApp;
  let base: string;
  let owner: CreatedUser;
  let writer: CreatedUser;
  let reader: CreatedUser;
  let outsider: CreatedUser;
  let work: string;
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const repoPath = '/api/v1/repos/owner/project';

  /** Commits `content` to `file` on `branch` (created from `from`) in the working copy and pushes it. */
  async function commitAndPush(
    branch: string,
    file: string,
    content: string,
    from?: string,
  ): Promise<string> {
    if (from) {
      await git(['fetch', '--quiet', 'origin'], work);
      await git(['checkout', '--quiet', '-B', branch, `origin/${from}`], work);
    } else {
      await git(['checkout', '--quiet', branch], work);
    }
    await writeFile(path.join(work, file), content);
    await git(['add', file], work);
    await git(['commit', '--quiet', '-m', `change ${file} on ${branch}`], work);
    const pushed = await git(['push', '--quiet', 'origin', branch], work);
    expect(pushed.code).toBe(0);
    return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
  }

  async function remoteBranch(branch: string, repo = 'project', ownerName = 'owner'): Promise<string> {
    const out = await git(
      [
        'ls-remote',
        cloneUrl(base, ownerName, repo, { user: 'owner', secret: owner.token }),
        `refs/heads/${branch}`,
      ],
      work,
    );
    return out.stdout.split('\t')[0];
  }

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
    owner = await t.factories.user({ username: 'owner' });
    writer = await t.factories.user({ username: 'writer' });
    reader = await t.factories.user({ username: 'reader' });
    outsider = await t.factories.user({ username: 'outsider' });
    expect(
      (await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'project', auto_init: true }))
        .status,
    ).toBe(201);
    expect(
      (await t.http().put(`${repoPath}/collaborators/writer`).set(tok(owner)).send({ permission: 'write' }))
        .status,
    ).toBe(204);
    expect(
      (await t.http().put(`${repoPath}/collaborators/reader`).set(tok(owner)).send({ permission: 'read' }))
        .status,
    ).toBe(204);
    work = await tempDir();
    expect(
      (
        await git(
          [
            'clone',
            '--quiet',
            cloneUrl(base, 'owner', 'project', { user: 'owner', secret: owner.token }),
            work,
          ],
          path.dirname(work),
        )
      ).code,
    ).toBe(0);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('issues', () => {
    it('creates an issue (201, Gitea Issue JSON, index 1)', async () => {
      const res = await t
        .http()
        .post(`${repoPath}/issues`)
        .set(tok(reader))
        .send({ title: 'First bug', body: 'it breaks' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        number: 1,
        title: 'First bug',
        body: 'it breaks',
        state: 'open',
        comments: 0,
        user: { login: 'reader' },
        assets: [],
        pull_request: null,
        closed_at: null,
        repository: { name: 'project', owner: 'owner', full_name: 'owner/project' },
        html_url: `${t.config.publicUrl}owner/project/issues/1`,
        url: `${t.config.publicUrl}api/v1/repos/owner/project/issues/1`,
      });
    });

    it.each([
      ['no credentials', {}, 401],
      ['a wrong token', { Authorization: 'token 0123456789abcdef0123456789abcdef01234567' }, 401],
    ])('refuses %s', async (_name, headers, status) => {
      const res = await t.http().post(`${repoPath}/issues`).set(headers).send({ title: 'x' });
      expect(res.status).toBe(status);
    });

    it('refuses a token without the issue scope (403) and creates nothing', async () => {
      const narrow = await t.factories.token(owner.user, { scopes: ['write:repository'] });
      const res = await t
        .http()
        .post(`${repoPath}/issues`)
        .set('Authorization', `token ${narrow}`)
        .send({ title: 'narrow' });
      expect(res.status).toBe(403);
      const list = await t.http().get(`${repoPath}/issues?state=all`);
      expect(list.body.map((issue: { title: string }) => issue.title)).not.toContain('narrow');
    });

    it('refuses an empty title with Gitea binding text (422)', async () => {
      const res = await t.http().post(`${repoPath}/issues`).set(tok(owner)).send({ title: '' });
      expect(res.status).toBe(422);
      expect(res.body.message).toBe('[Title]: Required');
    });

    it('answers 404 for an unknown repository and an unknown issue', async () => {
      expect(
        (await t.http().post('/api/v1/repos/owner/nope/issues').set(tok(owner)).send({ title: 'x' })).status,
      ).toBe(404);
      expect((await t.http().get(`${repoPath}/issues/999`)).status).toBe(404);
      expect((await t.http().get(`${repoPath}/issues/abc`)).status).toBe(404);
    });

    it('lets the poster and writers edit, not other readers (403); PATCH answers 201', async () => {
      const created = await t.http().post(`${repoPath}/issues`).set(tok(reader)).send({ title: 'Second' });
      const index = created.body.number;
      const other = await t.factories.user({ username: 'otherreader' });
      expect(
        (await t.http().patch(`${repoPath}/issues/${index}`).set(tok(other)).send({ title: 'hijack' }))
          .status,
      ).toBe(403);
      const byPoster = await t
        .http()
        .patch(`${repoPath}/issues/${index}`)
        .set(tok(reader))
        .send({ title: 'Second (edited)' });
      expect(byPoster.status).toBe(201);
      expect(byPoster.body.title).toBe('Second (edited)');
      const closed = await t
        .http()
        .patch(`${repoPath}/issues/${index}`)
        .set(tok(writer))
        .send({ state: 'closed' });
      expect(closed.status).toBe(201);
      expect(closed.body.state).toBe('closed');
      expect(closed.body.closed_at).not.toBeNull();
      expect(
        (await t.http().patch(`${repoPath}/issues/${index}`).set(tok(writer)).send({ state: 'shut' })).status,
      ).toBe(422);
    });

    it('lists by state with X-Total-Count', async () => {
      const open = await t.http().get(`${repoPath}/issues`);
      expect(open.status).toBe(200);
      expect(open.body.every((issue: { state: string }) => issue.state === 'open')).toBe(true);
      const closed = await t.http().get(`${repoPath}/issues?state=closed`);
      expect(closed.body.map((issue: { title: string }) => issue.title)).toEqual(['Second (edited)']);
      const all = await t.http().get(`${repoPath}/issues?state=all&limit=1`);
      expect(all.body).toHaveLength(1);
      expect(Number(all.headers['x-total-count'])).toBe(2);
      const search = await t.http().get(`${repoPath}/issues?state=all&q=breaks`);
      expect(search.body.map((issue: { number: number }) => issue.number)).toEqual([1]);
    });

    it('comments: create, list, get, edit by poster only, delete, count', async () => {
      const created = await t
        .http()
        .post(`${repoPath}/issues/1/comments`)
        .set(tok(writer))
        .send({ body: 'me too' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        body: 'me too',
        user: { login: 'writer' },
        issue_url: `${t.config.publicUrl}owner/project/issues/1`,
        pull_request_url: '',
      });
      const id = created.body.id;
      expect(
        (await t.http().post(`${repoPath}/issues/1/comments`).set(tok(writer)).send({ body: '' })).status,
      ).toBe(422);
      expect(
        (await t.http().get(`${repoPath}/issues/1/comments`)).body.map((c: { id: number }) => c.id),
      ).toEqual([id]);
      expect((await t.http().get(`${repoPath}/issues/1`)).body.comments).toBe(1);
      expect((await t.http().get(`${repoPath}/issues/comments/${id}`)).body.body).toBe('me too');
      const foreign = await t
        .http()
        .patch(`${repoPath}/issues/comments/${id}`)
        .set(tok(reader))
        .send({ body: 'edited by someone else' });
      expect(foreign.status).toBe(403);
      expect(foreign.body.message).toBe('user should have permission to edit comment');
      const edited = await t
        .http()
        .patch(`${repoPath}/issues/comments/${id}`)
        .set(tok(writer))
        .send({ body: 'me too (edited)' });
      expect(edited.status).toBe(200);
      expect(edited.body.body).toBe('me too (edited)');
      expect((await t.http().get(`${repoPath}/issues/comments`)).body).toHaveLength(1);
      expect((await t.http().delete(`${repoPath}/issues/comments/${id}`).set(tok(reader))).status).toBe(403);
      expect((await t.http().delete(`${repoPath}/issues/comments/${id}`).set(tok(owner))).status).toBe(204);
      const gone = await t.http().get(`${repoPath}/issues/comments/${id}`);
      expect(gone.status).toBe(404);
      expect(gone.body.message).toBe('no matching issue comment found');
      expect((await t.http().get(`${repoPath}/issues/1`)).body.comments).toBe(0);
    });

    it('hides a private repository’s issues (404) from outsiders and anonymous callers', async () => {
      await t
        .http()
        .post('/api/v1/user/repos')
        .set(tok(owner))
        .send({ name: 'secret', private: true, auto_init: true });
      await t.http().post('/api/v1/repos/owner/secret/issues').set(tok(owner)).send({ title: 'hidden' });
      expect((await t.http().get('/api/v1/repos/owner/secret/issues/1')).status).toBe(404);
      expect((await t.http().get('/api/v1/repos/owner/secret/issues/1').set(tok(outsider))).status).toBe(404);
      expect(
        (await t.http().post('/api/v1/repos/owner/secret/issues').set(tok(outsider)).send({ title: 'x' }))
          .status,
      ).toBe(404);
      expect((await t.http().get('/api/v1/repos/owner/secret/issues/1').set(tok(owner))).status).toBe(200);
    });

    it('refuses writes on an archived repository (423)', async () => {
      await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'old', auto_init: true });
      await t.http().post('/api/v1/repos/owner/old/issues').set(tok(owner)).send({ title: 'before' });
      await t.http().patch('/api/v1/repos/owner/old').set(tok(owner)).send({ archived: true });
      expect(
        (await t.http().post('/api/v1/repos/owner/old/issues').set(tok(owner)).send({ title: 'after' }))
          .status,
      ).toBe(423);
      expect(
        (await t.http().post('/api/v1/repos/owner/old/issues/1/comments').set(tok(owner)).send({ body: 'x' }))
          .status,
      ).toBe(423);
      expect((await t.http().get('/api/v1/repos/owner/old/issues/1')).status).toBe(200);
    });
  });

  describe('releases', () => {
    it('publishes a release and creates its tag at the default branch', async () => {
      const res = await t
        .http()
        .post(`${repoPath}/releases`)
        .set(tok(writer))
        .send({ tag_name: 'v1.0.0', name: 'One', body: 'notes' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        tag_name: 'v1.0.0',
        target_commitish: 'main',
        name: 'One',
        body: 'notes',
        draft: false,
        prerelease: false,
        author: { login: 'writer' },
        assets: [],
        upload_url: `${t.config.publicUrl}api/v1/repos/owner/project/releases/${res.body.id}/assets`,
      });
      const tags = await git(['ls-remote', '--tags', cloneUrl(base, 'owner', 'project')], work);
      expect(tags.stdout).toContain(`${await remoteBranch('main')}\trefs/tags/v1.0.0`);
    });

    it.each([
      ['an existing tag', { tag_name: 'v1.0.0' }, 409],
      ['an empty tag name', { tag_name: '' }, 422],
      ['an invalid tag name', { tag_name: 'bad..name' }, 422],
      ['an unknown target', { tag_name: 'v9', target_commitish: 'no-such-branch' }, 404],
    ])('refuses %s and creates no tag', async (_name, body, status) => {
      const res = await t.http().post(`${repoPath}/releases`).set(tok(owner)).send(body);
      expect(res.status).toBe(status);
      const tags = await git(['ls-remote', '--tags', cloneUrl(base, 'owner', 'project')], work);
      expect(tags.stdout).not.toContain('refs/tags/v9');
    });

    it('refuses readers (403), anonymous callers (401) and an empty repository (422)', async () => {
      expect(
        (await t.http().post(`${repoPath}/releases`).set(tok(reader)).send({ tag_name: 'r' })).status,
      ).toBe(403);
      expect((await t.http().post(`${repoPath}/releases`).send({ tag_name: 'r' })).status).toBe(401);
      await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'empty' });
      const empty = await t
        .http()
        .post('/api/v1/repos/owner/empty/releases')
        .set(tok(owner))
        .send({ tag_name: 'v1' });
      expect(empty.status).toBe(422);
    });

    it('keeps drafts invisible (404) to readers, publishes them with their tag', async () => {
      const draft = await t
        .http()
        .post(`${repoPath}/releases`)
        .set(tok(owner))
        .send({ tag_name: 'v2.0.0', draft: true });
      expect(draft.status).toBe(201);
      const id = draft.body.id;
      expect((await t.http().get(`${repoPath}/releases/${id}`).set(tok(reader))).status).toBe(404);
      expect((await t.http().get(`${repoPath}/releases/${id}`)).status).toBe(404);
      expect((await t.http().get(`${repoPath}/releases/tags/v2.0.0`).set(tok(reader))).status).toBe(404);
      expect(
        (await t.http().get(`${repoPath}/releases`).set(tok(reader))).body.map(
          (r: { tag_name: string }) => r.tag_name,
        ),
      ).toEqual(['v1.0.0']);
      expect(
        (await t.http().get(`${repoPath}/releases`).set(tok(writer))).body.map(
          (r: { tag_name: string }) => r.tag_name,
        ),
      ).toEqual(['v2.0.0', 'v1.0.0']);
      expect((await t.http().get(`${repoPath}/releases?draft=true`).set(tok(writer))).body).toHaveLength(1);
      let tags = await git(['ls-remote', '--tags', cloneUrl(base, 'owner', 'project')], work);
      expect(tags.stdout).not.toContain('v2.0.0');
      const published = await t
        .http()
        .patch(`${repoPath}/releases/${id}`)
        .set(tok(writer))
        .send({ draft: false, name: 'Two' });
      expect(published.status).toBe(200);
      expect(published.body).toMatchObject({ draft: false, name: 'Two' });
      tags = await git(['ls-remote', '--tags', cloneUrl(base, 'owner', 'project')], work);
      expect(tags.stdout).toContain('refs/tags/v2.0.0');
      expect((await t.http().get(`${repoPath}/releases/tags/v2.0.0`).set(tok(reader))).status).toBe(200);
      expect((await t.http().get(`${repoPath}/releases/latest`)).body.tag_name).toBe('v2.0.0');
    });

    it('deletes a release (204) and keeps its tag; then 404', async () => {
      const release = await t.http().get(`${repoPath}/releases/tags/v1.0.0`);
      expect((await t.http().delete(`${repoPath}/releases/${release.body.id}`).set(tok(reader))).status).toBe(
        403,
      );
      expect((await t.http().delete(`${repoPath}/releases/${release.body.id}`).set(tok(writer))).status).toBe(
        204,
      );
      expect((await t.http().get(`${repoPath}/releases/${release.body.id}`)).status).toBe(404);
      expect((await t.http().delete(`${repoPath}/releases/${release.body.id}`).set(tok(writer))).status).toBe(
        404,
      );
      const tags = await git(['ls-remote', '--tags', cloneUrl(base, 'owner', 'project')], work);
      expect(tags.stdout).toContain('refs/tags/v1.0.0');
      expect((await t.http().delete(`${repoPath}/releases/tags/v2.0.0`).set(tok(owner))).status).toBe(204);
      expect((await t.http().get(`${repoPath}/releases/latest`)).status).toBe(404);
    });
  });

  describe('pull requests', () => {
    it('opens a pull request from a branch: 201, shared index, mergeable', async () => {
      await commitAndPush('feature', 'feature.txt', 'feature\n', 'main');
      const res = await t
        .http()
        .post(`${repoPath}/pulls`)
        .set(tok(writer))
        .send({ head: 'feature', base: 'main', title: 'Add feature' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        number: 3,
        title: 'Add feature',
        state: 'open',
        mergeable: true,
        merged: false,
        user: { login: 'writer' },
        base: { ref: 'main', label: 'main', sha: await remoteBranch('main') },
        head: { ref: 'feature', label: 'feature', sha: await remoteBranch('feature') },
      });
      const asIssue = await t.http().get(`${repoPath}/issues/3`);
      expect(asIssue.body.pull_request).toMatchObject({
        merged: false,
        html_url: `${t.config.publicUrl}owner/project/pulls/3`,
      });
      expect(
        (await t.http().get(`${repoPath}/issues?type=issues&state=all`)).body.every(
          (i: { pull_request: unknown }) => i.pull_request === null,
        ),
      ).toBe(true);
    });

    it.each([
      ['the same pull request again', { head: 'feature', base: 'main', title: 'again' }, 409],
      ['an unknown base branch', { head: 'feature', base: 'nope', title: 'x' }, 404],
      ['an unknown head branch', { head: 'nope', base: 'main', title: 'x' }, 404],
      ['the same branch as head and base', { head: 'main', base: 'main', title: 'x' }, 422],
      ['no title', { head: 'feature', base: 'main' }, 422],
    ])('refuses %s', async (_name, body, status) => {
      const res = await t.http().post(`${repoPath}/pulls`).set(tok(writer)).send(body);
      expect(res.status).toBe(status);
    });

    it('serves the diff and the patch (API route and the diff_url / patch_url the pull hands out)', async () => {
      const pull = (await t.http().get(`${repoPath}/pulls/3`)).body;
      // Gitea answers [] for the review requests (GitHub's shape), and an issue's time_estimate.
      expect(pull).toMatchObject({ requested_reviewers: [], requested_reviewers_teams: [] });
      expect((await t.http().get(`${repoPath}/issues/1`)).body.time_estimate).toBe(0);
      expect(pull.diff_url).toBe(`${t.config.publicUrl}owner/project/pulls/3.diff`);
      const diff = await t.http().get(`${repoPath}/pulls/3.diff`);
      expect(diff.status).toBe(200);
      expect(diff.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(diff.text).toContain('diff --git a/feature.txt b/feature.txt');
      expect(diff.text).toContain('+feature');
      const patch = await t.http().get(`${repoPath}/pulls/3.patch`);
      expect(patch.status).toBe(200);
      expect(patch.text).toMatch(/^From [0-9a-f]{40} /);
      expect(patch.text).toContain('Subject: [PATCH] change feature.txt on feature');
      // The web links serve the same text.
      for (const [link, text] of [
        [pull.diff_url as string, diff.text],
        [pull.patch_url as string, patch.text],
      ] as const) {
        const page = await t.http().get(new URL(link).pathname);
        expect({ link, status: page.status, same: page.text === text }).toEqual({
          link,
          status: 200,
          same: true,
        });
      }
      // Not a pull request, an unknown index, an unknown type, a bad option, and a private repository's outsider: 404 / 422.
      expect((await t.http().get(`${repoPath}/pulls/1.diff`)).status).toBe(404);
      expect((await t.http().get(`${repoPath}/pulls/99.diff`)).status).toBe(404);
      expect((await t.http().get(`${repoPath}/pulls/3.txt`)).status).toBe(404);
      expect((await t.http().get(`${repoPath}/pulls/3.diff?binary=maybe`)).status).toBe(422);
      expect((await t.http().get('/owner/project/pulls/99.patch')).status).toBe(404);
    });

    it('refuses merges by readers (405) and merges with a merge commit', async () => {
      const refused = await t.http().post(`${repoPath}/pulls/3/merge`).set(tok(reader)).send({ Do: 'merge' });
      expect(refused.status).toBe(405);
      expect(refused.body.message).toBe('User not allowed to merge PR');
      expect((await t.http().get(`${repoPath}/pulls/3/merge`)).status).toBe(404);
      expect(
        (await t.http().post(`${repoPath}/pulls/3/merge`).set(tok(writer)).send({ Do: 'octopus' })).status,
      ).toBe(422);
      const mainBefore = await remoteBranch('main');
      const featureHead = await remoteBranch('feature');
      const merged = await t.http().post(`${repoPath}/pulls/3/merge`).set(tok(writer)).send({ Do: 'merge' });
      expect(merged.status).toBe(200);
      const mainAfter = await remoteBranch('main');
      await git(['fetch', '--quiet', 'origin'], work);
      const parents = (await git(['rev-list', '--parents', '-n', '1', mainAfter], work)).stdout
        .trim()
        .split(' ')
        .slice(1);
      expect(parents).toEqual([mainBefore, featureHead]);
      const pull = await t.http().get(`${repoPath}/pulls/3`);
      expect(pull.body).toMatchObject({
        merged: true,
        state: 'closed',
        merge_commit_sha: mainAfter,
        merged_by: { login: 'writer' },
        mergeable: false,
      });
      expect((await t.http().get(`${repoPath}/pulls/3/merge`)).status).toBe(204);
      expect(
        (await t.http().post(`${repoPath}/pulls/3/merge`).set(tok(writer)).send({ Do: 'merge' })).status,
      ).toBe(405);
    });

    it('squashes into one commit authored by the poster', async () => {
      await commitAndPush('squashme', 'a.txt', 'a\n', 'main');
      await commitAndPush('squashme', 'b.txt', 'b\n');
      const created = await t
        .http()
        .post(`${repoPath}/pulls`)
        .set(tok(reader))
        .send({ head: 'squashme', base: 'main', title: 'Squash me' });
      expect(created.status).toBe(201);
      const mainBefore = await remoteBranch('main');
      expect(
        (
          await t
            .http()
            .post(`${repoPath}/pulls/${created.body.number}/merge`)
            .set(tok(owner))
            .send({ Do: 'squash' })
        ).status,
      ).toBe(200);
      const mainAfter = await remoteBranch('main');
      await git(['fetch', '--quiet', 'origin'], work);
      const parents = (await git(['rev-list', '--parents', '-n', '1', mainAfter], work)).stdout
        .trim()
        .split(' ')
        .slice(1);
      expect(parents).toEqual([mainBefore]);
      const message = (await git(['log', '-1', '--format=%an|%s', mainAfter], work)).stdout.trim();
      expect(message).toBe(`reader|Squash me (#${created.body.number})`);
      const files = (await git(['ls-tree', '--name-only', mainAfter], work)).stdout;
      expect(files).toContain('a.txt');
      expect(files).toContain('b.txt');
    });

    it('rebases onto the base branch (linear history, the original commits replayed)', async () => {
      await commitAndPush('rebaseme', 'c.txt', 'c\n', 'main');
      await commitAndPush('main', 'main-only.txt', 'm\n', 'main');
      const created = await t
        .http()
        .post(`${repoPath}/pulls`)
        .set(tok(writer))
        .send({ head: 'rebaseme', base: 'main', title: 'Rebase me' });
      const mainBefore = await remoteBranch('main');
      expect(
        (
          await t
            .http()
            .post(`${repoPath}/pulls/${created.body.number}/merge`)
            .set(tok(writer))
            .send({ Do: 'rebase' })
        ).status,
      ).toBe(200);
      const mainAfter = await remoteBranch('main');
      await git(['fetch', '--quiet', 'origin'], work);
      const parents = (await git(['rev-list', '--parents', '-n', '1', mainAfter], work)).stdout
        .trim()
        .split(' ')
        .slice(1);
      expect(parents).toEqual([mainBefore]);
      expect((await git(['log', '-1', '--format=%s', mainAfter], work)).stdout.trim()).toBe(
        'change c.txt on rebaseme',
      );
    });

    it('reports a conflict as not mergeable and refuses the merge (405)', async () => {
      await commitAndPush('left', 'conflict.txt', 'left\n', 'main');
      await commitAndPush('main', 'conflict.txt', 'right\n', 'main');
      const created = await t
        .http()
        .post(`${repoPath}/pulls`)
        .set(tok(writer))
        .send({ head: 'left', base: 'main', title: 'Conflicting' });
      expect(created.status).toBe(201);
      expect(created.body.mergeable).toBe(false);
      const mainBefore = await remoteBranch('main');
      expect(
        (
          await t
            .http()
            .post(`${repoPath}/pulls/${created.body.number}/merge`)
            .set(tok(owner))
            .send({ Do: 'merge' })
        ).status,
      ).toBe(405);
      expect(await remoteBranch('main')).toBe(mainBefore);
    });

    it('recomputes mergeability after a push fixes the conflict; a stale head_commit_id is 409', async () => {
      await git(['fetch', '--quiet', 'origin'], work);
      await git(['checkout', '--quiet', 'left'], work);
      await git(['merge', '--quiet', '-X', 'theirs', '-m', 'resolve', 'origin/main'], work);
      const stale = (await t.http().get(`${repoPath}/pulls?state=open`)).body.find(
        (p: { title: string }) => p.title === 'Conflicting',
      );
      expect((await git(['push', '--quiet', 'origin', 'left'], work)).code).toBe(0);
      // The push's durable job brought the stored row up to date, before any read of the pull request.
      await t.app.get(JobQueue).drain();
      const newHead = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
      const [row]: { head_commit_id: string; status: string }[] = await t.dataSource.query(
        `SELECT p.head_commit_id, p.status FROM pull_requests p JOIN issues i ON i.id = p.issue_id
         WHERE i.title = 'Conflicting'`,
      );
      expect(row).toEqual({ head_commit_id: newHead, status: 'mergeable' });
      const fresh = await t.http().get(`${repoPath}/pulls/${stale.number}`);
      expect(fresh.body.mergeable).toBe(true);
      expect(fresh.body.head.sha).not.toBe(stale.head.sha);
      const conflict = await t
        .http()
        .post(`${repoPath}/pulls/${stale.number}/merge`)
        .set(tok(owner))
        .send({ Do: 'merge', head_commit_id: stale.head.sha });
      expect(conflict.status).toBe(409);
      const closed = await t
        .http()
        .patch(`${repoPath}/pulls/${stale.number}`)
        .set(tok(writer))
        .send({ state: 'closed' });
      expect(closed.status).toBe(201);
      expect(closed.body.state).toBe('closed');
      expect(
        (await t.http().post(`${repoPath}/pulls/${stale.number}/merge`).set(tok(owner)).send({ Do: 'merge' }))
          .status,
      ).toBe(404);
    });

    it('opens a pull request from a fork (owner:branch) and merges it', async () => {
      const fork = await t.http().post(`${repoPath}/forks`).set(tok(outsider)).send({});
      expect(fork.status).toBe(202);
      const forkWork = await tempDir();
      expect(
        (
          await git(
            [
              'clone',
              '--quiet',
              cloneUrl(base, 'outsider', 'project', { user: 'outsider', secret: outsider.token }),
              forkWork,
            ],
            path.dirname(forkWork),
          )
        ).code,
      ).toBe(0);
      await git(['checkout', '--quiet', '-b', 'from-fork'], forkWork);
      await writeFile(path.join(forkWork, 'fork.txt'), 'fork\n');
      await git(['add', 'fork.txt'], forkWork);
      await git(['commit', '--quiet', '-m', 'from the fork'], forkWork);
      expect((await git(['push', '--quiet', 'origin', 'from-fork'], forkWork)).code).toBe(0);
      const created = await t
        .http()
        .post(`${repoPath}/pulls`)
        .set(tok(outsider))
        .send({ head: 'outsider:from-fork', base: 'main', title: 'From a fork' });
      expect(created.status).toBe(201);
      expect(created.body.head).toMatchObject({
        label: 'outsider:from-fork',
        ref: 'from-fork',
        repo: { full_name: 'outsider/project' },
      });
      expect(created.body.mergeable).toBe(true);
      expect(
        (
          await t
            .http()
            .post(`${repoPath}/pulls`)
            .set(tok(outsider))
            .send({ head: 'nobody:from-fork', base: 'main', title: 'x' })
        ).status,
      ).toBe(404);
      expect(
        (
          await t
            .http()
            .post(`${repoPath}/pulls/${created.body.number}/merge`)
            .set(tok(owner))
            .send({ Do: 'merge' })
        ).status,
      ).toBe(200);
      await git(['fetch', '--quiet', 'origin'], work);
      expect((await git(['ls-tree', '--name-only', 'origin/main'], work)).stdout).toContain('fork.txt');
    });

    it('lists pull requests with paging headers', async () => {
      const all = await t.http().get(`${repoPath}/pulls?state=all&limit=2`);
      expect(all.status).toBe(200);
      expect(all.body).toHaveLength(2);
      expect(Number(all.headers['x-total-count'])).toBe(5);
      expect(all.headers.link).toContain('rel="next"');
      expect((await t.http().get(`${repoPath}/pulls/1`)).status).toBe(404);
    });

    it('delete_branch_after_merge keeps a head branch protected from deletion and deletes an unprotected one', async () => {
      const rule = await t
        .http()
        .post(`${repoPath}/branch_protections`)
        .set(tok(owner))
        .send({ rule_name: 'keepme', enable_push: true });
      expect(rule.status).toBe(201);
      for (const head of ['keepme', 'dropme']) {
        await commitAndPush(head, `${head}.txt`, `${head}\n`, 'main');
        const created = await t
          .http()
          .post(`${repoPath}/pulls`)
          .set(tok(owner))
          .send({ head, base: 'main', title: head });
        expect(created.status).toBe(201);
        const merged = await t
          .http()
          .post(`${repoPath}/pulls/${created.body.number}/merge`)
          .set(tok(owner))
          .send({ Do: 'merge', delete_branch_after_merge: true });
        expect(merged.status).toBe(200);
      }
      expect((await t.http().get(`${repoPath}/branches/keepme`).set(tok(owner))).status).toBe(200);
      expect((await t.http().get(`${repoPath}/branches/dropme`).set(tok(owner))).status).toBe(404);
    });
  });
});
