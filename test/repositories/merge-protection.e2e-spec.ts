import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

/**
 * Issue 31.2: a pull request merge moves the base branch, so it meets the base branch's protection as
 * a push would, in Gitea's texts (405): the merge whitelist (any code writer when it is off, issue 49.8:
 * also into a branch nobody may push to), required status checks and approvals, an outdated head, protected files.
 * A refused merge changes nothing: the base branch stays where it was and the pull request stays open.
 */
describe('pull request merges meet branch protection', () => {
  let t: TestApp;
  let base: string;
  let owner: CreatedUser;
  let writer: CreatedUser;
  let reader: CreatedUser;
  let work: string;
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const repoPath = '/api/v1/repos/owner/guarded';

  async function commitAndPush(branch: string, file: string, from: string): Promise<void> {
    await git(['fetch', '--quiet', 'origin'], work);
    await git(['checkout', '--quiet', '-B', branch, `origin/${from}`], work);
    await mkdir(path.dirname(path.join(work, file)), { recursive: true });
    await writeFile(path.join(work, file), `${branch} ${file}\n`);
    await git(['add', file], work);
    await git(['commit', '--quiet', '-m', `change ${file} on ${branch}`], work);
    expect((await git(['push', '--quiet', 'origin', branch], work)).code).toBe(0);
  }

  async function tip(branch: string): Promise<string> {
    const res = await t.http().get(`${repoPath}/branches/${branch}`).set(tok(owner));
    expect(res.status).toBe(200);
    return res.body.commit.id as string;
  }

  /** A protected base branch (from main) with `rule`, and a pull request into it changing `file`. */
  async function guardedPull(baseBranch: string, rule: Record<string, unknown>, file = 'change.txt') {
    await commitAndPush(baseBranch, `${baseBranch}.base`, 'main');
    const created = await t
      .http()
      .post(`${repoPath}/branch_protections`)
      .set(tok(owner))
      .send({ rule_name: baseBranch, ...rule });
    expect(created.status).toBe(201);
    await commitAndPush(`${baseBranch}-head`, file, baseBranch);
    const pull = await t
      .http()
      .post(`${repoPath}/pulls`)
      .set(tok(writer))
      .send({ head: `${baseBranch}-head`, base: baseBranch, title: `into ${baseBranch}` });
    expect(pull.status).toBe(201);
    return pull.body.number as number;
  }

  const merge = (who: CreatedUser, index: number) =>
    t.http().post(`${repoPath}/pulls/${index}/merge`).set(tok(who)).send({ Do: 'merge' });

  async function expectRefused(who: CreatedUser, index: number, baseBranch: string, message: string) {
    const before = await tip(baseBranch);
    const res = await merge(who, index);
    expect(res.status).toBe(405);
    expect(res.body.message).toBe(message);
    expect(await tip(baseBranch)).toBe(before);
    const pull = await t.http().get(`${repoPath}/pulls/${index}`).set(tok(owner));
    expect(pull.body).toMatchObject({ merged: false, state: 'open' });
  }

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
    owner = await t.factories.user({ username: 'owner' });
    writer = await t.factories.user({ username: 'writer' });
    reader = await t.factories.user({ username: 'reader' });
    expect(
      (await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'guarded', auto_init: true }))
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
    const url = cloneUrl(base, 'owner', 'guarded', { user: 'owner', secret: owner.token });
    expect((await git(['clone', '--quiet', url, work], path.dirname(work))).code).toBe(0);
  });
  afterAll(async () => {
    await t.close();
  });

  it("push disabled, merge whitelist off: a writer merges (Gitea's IsUserMergeWhitelisted), a reader does not", async () => {
    const index = await guardedPull('frozen', { enable_push: false });
    // Nobody may push there...
    await git(['fetch', '--quiet', 'origin'], work);
    await git(['checkout', '--quiet', '-B', 'frozen', 'origin/frozen'], work);
    await writeFile(path.join(work, 'direct.txt'), 'direct\n');
    await git(['add', 'direct.txt'], work);
    await git(['commit', '--quiet', '-m', 'direct'], work);
    expect((await git(['push', '--quiet', 'origin', 'frozen'], work)).code).not.toBe(0);
    // ...but a reader's merge is refused and a writer's goes through.
    await expectRefused(reader, index, 'frozen', 'User not allowed to merge PR');
    const before = await tip('frozen');
    expect((await merge(writer, index)).status).toBe(200);
    expect(await tip('frozen')).not.toBe(before);
    expect((await t.http().get(`${repoPath}/pulls/${index}`).set(tok(owner))).body.merged).toBe(true);
  });

  it('merge whitelist on: only the listed users merge', async () => {
    const index = await guardedPull('listed', {
      enable_push: true,
      enable_merge_whitelist: true,
      merge_whitelist_usernames: ['owner'],
    });
    await expectRefused(writer, index, 'listed', 'User not allowed to merge PR');
    expect((await merge(owner, index)).status).toBe(200);
    expect((await t.http().get(`${repoPath}/pulls/${index}`).set(tok(owner))).body.merged).toBe(true);
  });

  it('merge whitelist off: the push whitelist does not decide who merges', async () => {
    const rule = { enable_push: true, enable_push_whitelist: true, push_whitelist_usernames: ['owner'] };
    const code = await guardedPull('pushers', rule);
    const before = await tip('pushers');
    expect((await merge(writer, code)).status).toBe(200);
    expect(await tip('pushers')).not.toBe(before);
  });

  it('required status checks, approvals and an up-to-date head are conditions no role skips', async () => {
    const checks = await guardedPull('checked', {
      enable_push: true,
      enable_status_check: true,
      status_check_contexts: ['ci/build'],
    });
    await expectRefused(
      owner,
      checks,
      'checked',
      'not allowed to merge [reason: Not all required status checks successful]',
    );
    const approvals = await guardedPull('reviewed', { enable_push: true, required_approvals: 1 });
    await expectRefused(
      owner,
      approvals,
      'reviewed',
      'not allowed to merge [reason: Does not have enough approvals]',
    );

    const outdated = await guardedPull('current', { enable_push: true, block_on_outdated_branch: true });
    // The base moves on after the pull request was opened (the owner may push there).
    await commitAndPush('current', 'later.txt', 'current');
    await expectRefused(
      owner,
      outdated,
      'current',
      'not allowed to merge [reason: The head branch is behind the base branch]',
    );
  });

  it('a change to a protected file pattern is refused to everyone', async () => {
    const index = await guardedPull(
      'files',
      { enable_push: true, protected_file_patterns: 'secret.*' },
      'secret.txt',
    );
    await expectRefused(owner, index, 'files', 'not allowed to merge [reason: Changed protected files]');
    const other = await guardedPull('files-ok', { enable_push: true, protected_file_patterns: 'secret.*' });
    expect((await merge(owner, other)).status).toBe(200);
  });

  it('an unprotected base branch merges as before', async () => {
    await commitAndPush('free-head', 'free.txt', 'main');
    const pull = await t
      .http()
      .post(`${repoPath}/pulls`)
      .set(tok(writer))
      .send({ head: 'free-head', base: 'main', title: 'free' });
    expect(pull.status).toBe(201);
    expect((await merge(writer, pull.body.number)).status).toBe(200);
  });
});
