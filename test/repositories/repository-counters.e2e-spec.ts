import path from 'node:path';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

/**
 * Issue 34 item 2: the repository JSON's counters follow the data, as Gitea's do: `forks_count`,
 * `open_issues_count` (issues only), `open_pr_counter` and `release_counter` (drafts left out), on
 * the repository, in lists and in search.
 */
describe('Gitea repository counters', () => {
  let t: TestApp;
  let base: string;
  let owner: CreatedUser;
  let other: CreatedUser;
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const repoPath = '/api/v1/repos/counter/tally';
  const counters = async () => {
    const body = (await t.http().get(repoPath)).body;
    return {
      forks: body.forks_count,
      issues: body.open_issues_count,
      pulls: body.open_pr_counter,
      releases: body.release_counter,
    };
  };

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
    owner = await t.factories.user({ username: 'counter' });
    other = await t.factories.user({ username: 'forker' });
    expect(
      (await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'tally', auto_init: true }))
        .status,
    ).toBe(201);
  });
  afterAll(async () => {
    await t.close();
  });

  it('starts at zero', async () => {
    expect(await counters()).toEqual({ forks: 0, issues: 0, pulls: 0, releases: 0 });
    // Fields Gitea's convert.ToRepo sets for a repository with the issue unit on.
    expect((await t.http().get(repoPath)).body).toMatchObject({
      default_target_branch: 'main',
      internal_tracker: {
        enable_time_tracker: true,
        allow_only_contributors_to_track_time: true,
        enable_issue_dependencies: true,
      },
    });
  });

  it('open issues follow create, close and reopen; pull requests count apart', async () => {
    for (const title of ['one', 'two'])
      expect((await t.http().post(`${repoPath}/issues`).set(tok(owner)).send({ title })).status).toBe(201);
    expect((await counters()).issues).toBe(2);
    expect(
      (await t.http().patch(`${repoPath}/issues/1`).set(tok(owner)).send({ state: 'closed' })).status,
    ).toBe(201);
    expect((await counters()).issues).toBe(1);
    expect(
      (await t.http().patch(`${repoPath}/issues/1`).set(tok(owner)).send({ state: 'open' })).status,
    ).toBe(201);
    expect((await counters()).issues).toBe(2);

    const work = await tempDir();
    const remote = cloneUrl(base, 'counter', 'tally', { user: 'counter', secret: owner.token });
    expect((await git(['clone', '--quiet', remote, work], path.dirname(work))).code).toBe(0);
    await git(['checkout', '--quiet', '-b', 'topic'], work);
    await git(
      [
        '-c',
        'user.email=c@example.com',
        '-c',
        'user.name=c',
        'commit',
        '--quiet',
        '--allow-empty',
        '-m',
        'topic',
      ],
      work,
    );
    expect((await git(['push', '--quiet', 'origin', 'topic'], work)).code).toBe(0);
    expect(
      (
        await t
          .http()
          .post(`${repoPath}/pulls`)
          .set(tok(owner))
          .send({ head: 'topic', base: 'main', title: 'pr' })
      ).status,
    ).toBe(201);
    expect(await counters()).toMatchObject({ issues: 2, pulls: 1 });
    expect(
      (await t.http().patch(`${repoPath}/pulls/3`).set(tok(owner)).send({ state: 'closed' })).status,
    ).toBe(201);
    expect(await counters()).toMatchObject({ issues: 2, pulls: 0 });
  });

  it('forks_count counts the forks; releases count without drafts', async () => {
    expect((await t.http().post(`${repoPath}/forks`).set(tok(other)).send({})).status).toBe(202);
    expect((await counters()).forks).toBe(1);
    expect(
      (await t.http().post(`${repoPath}/releases`).set(tok(owner)).send({ tag_name: 'v1', name: 'v1' }))
        .status,
    ).toBe(201);
    expect(
      (
        await t
          .http()
          .post(`${repoPath}/releases`)
          .set(tok(owner))
          .send({ tag_name: 'v2', name: 'v2', draft: true })
      ).status,
    ).toBe(201);
    expect(await counters()).toEqual({ forks: 1, issues: 2, pulls: 0, releases: 1 });
    // The same figures in a list and in search.
    const listed = (await t.http().get('/api/v1/users/counter/repos')).body.find(
      (repo: { name: string }) => repo.name === 'tally',
    );
    expect(listed).toMatchObject({
      forks_count: 1,
      open_issues_count: 2,
      open_pr_counter: 0,
      release_counter: 1,
    });
    const found = (await t.http().get('/api/v1/repos/search?q=tally')).body.data.find(
      (repo: { full_name: string }) => repo.full_name === 'counter/tally',
    );
    expect(found).toMatchObject({ forks_count: 1, open_issues_count: 2 });
    // Deleting the fork takes it out of the count.
    expect((await t.http().delete('/api/v1/repos/forker/tally').set(tok(other))).status).toBe(204);
    expect((await counters()).forks).toBe(0);
  });
});
