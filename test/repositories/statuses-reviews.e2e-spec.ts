import { JobQueue } from '../../src/platform/jobs/job-queue.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Issues 49.3 and 49.4: commit statuses and reviews are recorded, and branch protection's status
 * checks (`status_check_contexts` as globs) and approvals block a merge until they are met.
 */
describe('commit statuses, reviews and the merge checks they feed (Gitea)', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let writer: CreatedUser;
  let reviewer: CreatedUser;
  let reader: CreatedUser;
  const repoPath = '/api/v1/repos/owner/checked';
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const b64 = (text: string) => Buffer.from(text).toString('base64');

  /** A branch from main with one new file, and a pull request of it into main. */
  async function pullOf(branch: string): Promise<{ index: number; head: string }> {
    const file = await t
      .http()
      .post(`${repoPath}/contents/${branch}.txt`)
      .set(tok(writer))
      .send({ content: b64(branch), new_branch: branch });
    expect(file.status).toBe(201);
    const pull = await t
      .http()
      .post(`${repoPath}/pulls`)
      .set(tok(writer))
      .send({ head: branch, base: 'main', title: branch });
    expect(pull.status).toBe(201);
    return { index: pull.body.number as number, head: file.body.commit.sha as string };
  }
  const merge = (who: CreatedUser, index: number) =>
    t.http().post(`${repoPath}/pulls/${index}/merge`).set(tok(who)).send({ Do: 'merge' });
  const status = (sha: string, context: string, state: string, who = writer) =>
    t
      .http()
      .post(`${repoPath}/statuses/${sha}`)
      .set(tok(who))
      .send({ context, state, target_url: 'https://ci.example/1' });
  const review = (who: CreatedUser, index: number, body: Record<string, unknown>) =>
    t.http().post(`${repoPath}/pulls/${index}/reviews`).set(tok(who)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.user({ username: 'owner' });
    writer = await t.factories.user({ username: 'writer' });
    reviewer = await t.factories.user({ username: 'reviewer' });
    reader = await t.factories.user({ username: 'reader' });
    await t
      .http()
      .post('/api/v1/user/repos')
      .set(tok(owner))
      .send({ name: 'checked', auto_init: true })
      .expect(201);
    for (const [who, permission] of [
      ['writer', 'write'],
      ['reviewer', 'write'],
      ['reader', 'read'],
    ])
      await t.http().put(`${repoPath}/collaborators/${who}`).set(tok(owner)).send({ permission }).expect(204);
  });
  afterAll(async () => {
    await t.close();
  });

  it('records statuses and combines the newest per context', async () => {
    const { head } = await pullOf('status-only');
    const created = await status(head, 'ci/build', 'pending');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'pending',
      context: 'ci/build',
      creator: { login: 'writer' },
    });
    await status(head, 'ci/build', 'success').expect(201);
    await status(head, 'lint', 'failure').expect(201);
    const list = await t.http().get(`${repoPath}/statuses/${head}`);
    expect(list.headers['x-total-count']).toBe('3');
    expect(list.body.map((s: { status: string }) => s.status)).toEqual(['failure', 'success', 'pending']);
    const combined = await t.http().get(`${repoPath}/commits/status-only/status`);
    expect(combined.body).toMatchObject({ state: 'failure', sha: head, total_count: 2 });
    expect((await t.http().get(`${repoPath}/commits/status-only/statuses`)).body).toHaveLength(3);
    // Readers, anonymous callers, bad states and unknown commits.
    expect((await status(head, 'x', 'success', reader)).status).toBe(403);
    expect((await t.http().post(`${repoPath}/statuses/${head}`).send({ state: 'success' })).status).toBe(401);
    expect((await status(head, 'x', 'great')).status).toBe(422);
    expect((await status('0'.repeat(40), 'x', 'success')).status).toBe(404);
    expect((await t.http().get(`${repoPath}/commits/nope/status`)).status).toBe(404);
  });

  it('a rule requiring one approval and a ci/* status blocks the merge until both exist', async () => {
    await t
      .http()
      .post(`${repoPath}/branch_protections`)
      .set(tok(owner))
      .send({
        rule_name: 'main',
        enable_push: false,
        enable_status_check: true,
        status_check_contexts: ['ci/*'],
        required_approvals: 1,
        block_on_rejected_reviews: true,
        dismiss_stale_approvals: true,
      })
      .expect(201);
    const { index, head } = await pullOf('feature');
    const refused = async (reason: string) => {
      const res = await merge(writer, index);
      expect([res.status, res.body.message]).toEqual([405, `not allowed to merge [reason: ${reason}]`]);
    };
    await refused('Not all required status checks successful');
    await status(head, 'ci/build', 'pending').expect(201);
    await refused('Not all required status checks successful');
    await status(head, 'ci/build', 'success').expect(201);
    await refused('Does not have enough approvals');

    // The poster cannot approve; a comment is not an approval; a reader's approval is not official.
    expect((await review(writer, index, { event: 'APPROVED' })).body.message).toBe(
      'approve your own pull is not allowed',
    );
    const comment = await review(reviewer, index, {
      event: 'COMMENT',
      body: 'a note',
      comments: [{ path: 'feature.txt', body: 'this line', new_position: 1 }],
    });
    expect(comment.status).toBe(200);
    expect(comment.body).toMatchObject({ state: 'COMMENT', comments_count: 1, user: { login: 'reviewer' } });
    const lines = await t.http().get(`${repoPath}/pulls/${index}/reviews/${comment.body.id}/comments`);
    expect(lines.body).toEqual([
      expect.objectContaining({ path: 'feature.txt', body: 'this line', position: 1 }),
    ]);
    const readerApproval = await review(reader, index, { event: 'APPROVED' });
    expect(readerApproval.body).toMatchObject({ state: 'APPROVED', official: false });
    await refused('Does not have enough approvals');

    // Changes requested block even with an approval; dismissing the rejection (admins only) unblocks.
    const rejection = await review(owner, index, { event: 'REQUEST_CHANGES', body: 'please fix' });
    expect(rejection.body).toMatchObject({ state: 'REQUEST_CHANGES', official: true });
    const approval = await review(reviewer, index, { event: 'APPROVED', body: 'fine' });
    expect(approval.body).toMatchObject({ state: 'APPROVED', official: true, commit_id: head });
    await refused('There are requested changes');
    const byWriter = await t
      .http()
      .post(`${repoPath}/pulls/${index}/reviews/${rejection.body.id}/dismissals`)
      .set(tok(writer))
      .send({ message: 'no' });
    expect(byWriter.status).toBe(403);
    const dismissed = await t
      .http()
      .post(`${repoPath}/pulls/${index}/reviews/${rejection.body.id}/dismissals`)
      .set(tok(owner))
      .send({ message: 'ok' });
    expect(dismissed.body).toMatchObject({ dismissed: true });

    const reviews = await t.http().get(`${repoPath}/pulls/${index}/reviews`);
    expect(reviews.body.map((r: { state: string }) => r.state)).toEqual([
      'COMMENT',
      'APPROVED',
      'REQUEST_CHANGES',
      'APPROVED',
    ]);

    // Both met: the writer merges into push-disabled main.
    const merged = await merge(writer, index);
    expect(merged.status).toBe(200);
  });

  it('dismiss_stale_approvals: an approval of an older head does not count', async () => {
    const { index, head } = await pullOf('stale');
    await status(head, 'ci/build', 'success').expect(201);
    expect((await review(reviewer, index, { event: 'APPROVED' })).status).toBe(200);
    // The head moves on: a new commit on the branch.
    const next = await t
      .http()
      .post(`${repoPath}/contents/more.txt`)
      .set(tok(writer))
      .send({ content: b64('more'), branch: 'stale' });
    expect(next.status).toBe(201);
    await status(next.body.commit.sha, 'ci/build', 'success').expect(201);
    // The pull request sees the new head once the push job ran.
    await t.app.get(JobQueue).drain();
    const res = await merge(writer, index);
    expect([res.status, res.body.message]).toEqual([
      405,
      'not allowed to merge [reason: Does not have enough approvals]',
    ]);
    expect((await review(reviewer, index, { event: 'APPROVED' })).status).toBe(200);
    expect((await merge(writer, index)).status).toBe(200);
  });
});
