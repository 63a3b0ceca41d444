import childProcess from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { JobQueue } from '../../src/platform/jobs/job-queue.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

/**
 * Issues 47.3 / 52.1: reads of pull requests show stored state (no git, no write); mergeability is
 * kept by a queue fed by pushes and by branch protection rule changes (`checking` while queued).
 */
describe('pull request lists read stored state; the mergeability queue keeps it', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let work: string;
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const repoPath = '/api/v1/repos/owner/busy';
  const PULLS = 30;

  const statusOf = async (title: string): Promise<string> => {
    const [row]: { status: string }[] = await t.dataSource.query(
      `SELECT p.status FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE i.title = $1`,
      [title],
    );
    return row.status;
  };

  /** Counts the child processes (git or any other) started while `action` runs. */
  async function childProcessesDuring(action: () => Promise<void>): Promise<number> {
    const spawn = jest.spyOn(childProcess, 'spawn');
    const execFile = jest.spyOn(childProcess, 'execFile');
    try {
      await action();
      return spawn.mock.calls.length + execFile.mock.calls.length;
    } finally {
      spawn.mockRestore();
      execFile.mockRestore();
    }
  }

  beforeAll(async () => {
    t = await createTestApp();
    const base = await t.listen();
    owner = await t.factories.user({ username: 'owner' });
    expect(
      (await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'busy', auto_init: true }))
        .status,
    ).toBe(201);
    work = await tempDir();
    const url = cloneUrl(base, 'owner', 'busy', { user: 'owner', secret: owner.token });
    expect((await git(['clone', '--quiet', url, work], path.dirname(work))).code).toBe(0);
    // 30 branches, each changing its own file, pushed at once.
    for (let i = 0; i < PULLS; i++) {
      await git(['checkout', '--quiet', '-B', `topic-${i}`, 'origin/main'], work);
      await writeFile(path.join(work, `file-${i}.txt`), `topic ${i}\n`);
      await git(['add', '.'], work);
      await git(['commit', '--quiet', '-m', `topic ${i}`], work);
    }
    const refs = Array.from({ length: PULLS }, (_, i) => `topic-${i}`);
    expect((await git(['push', '--quiet', 'origin', ...refs], work)).code).toBe(0);
    for (let i = 0; i < PULLS; i++) {
      const created = await t
        .http()
        .post(`${repoPath}/pulls`)
        .set(tok(owner))
        .send({ head: `topic-${i}`, base: 'main', title: `Topic ${i}` });
      expect(created.status).toBe(201);
    }
    await t.app.get(JobQueue).drain({ timeoutMs: 120_000 });
  }, 600_000);
  afterAll(async () => {
    await t.close();
  });

  it('lists 30 open pull requests without starting a process and without writing', async () => {
    const before: { status: string; head_commit_id: string }[] = await t.dataSource.query(
      'SELECT status, head_commit_id FROM pull_requests ORDER BY issue_id',
    );
    let listed: { mergeable: boolean; head: { sha: string } }[] = [];
    const spawned = await childProcessesDuring(async () => {
      const res = await t.http().get(`${repoPath}/pulls?state=open&limit=50`);
      expect(res.status).toBe(200);
      expect(res.headers['x-total-count']).toBe(String(PULLS));
      listed = res.body;
      const one = await t.http().get(`${repoPath}/pulls/5`);
      expect(one.status).toBe(200);
      const issues = await t.http().get(`${repoPath}/issues?type=pulls&limit=50`);
      expect(issues.status).toBe(200);
      expect(issues.body).toHaveLength(PULLS);
    });
    expect(spawned).toBe(0);
    // The spy sees git where a read needs it (a diff is git's output): the zero above is not blind.
    const diffSpawned = await childProcessesDuring(async () => {
      expect((await t.http().get('/owner/busy/pulls/1.diff')).status).toBe(200);
    });
    expect(diffSpawned).toBeGreaterThan(0);
    expect(listed).toHaveLength(PULLS);
    expect(listed.every((pull) => pull.mergeable && /^[0-9a-f]{40}$/.test(pull.head.sha))).toBe(true);
    expect(
      await t.dataSource.query('SELECT status, head_commit_id FROM pull_requests ORDER BY issue_id'),
    ).toEqual(before);
  });

  it('recomputes mergeability after a push, with no read of the pull requests', async () => {
    expect(await statusOf('Topic 3')).toBe('mergeable');
    // main now changes file-3.txt differently: topic-3 conflicts.
    await git(['checkout', '--quiet', '-B', 'main', 'origin/main'], work);
    await writeFile(path.join(work, 'file-3.txt'), 'main says otherwise\n');
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'conflict with topic 3'], work);
    const jobs = t.app.get(JobQueue);
    expect((await git(['push', '--quiet', 'origin', 'main'], work)).code).toBe(0);
    await jobs.drain({ timeoutMs: 240_000 });
    expect(await statusOf('Topic 3')).toBe('conflict');
    expect(await statusOf('Topic 4')).toBe('mergeable');
    const [{ base }]: { base: string }[] = await t.dataSource.query(
      `SELECT p.base_commit_id AS base FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE i.title = 'Topic 4'`,
    );
    expect(base).toBe((await git(['rev-parse', 'HEAD'], work)).stdout.trim());
    // Pull numbers start at 1: Topic 4 is pull 5.
    const shown = await t.http().get(`${repoPath}/pulls/5`);
    expect(shown.body.mergeable).toBe(true);
    const conflicting = (await t.http().get(`${repoPath}/pulls?state=open&limit=50`)).body.find(
      (pull: { title: string }) => pull.title === 'Topic 3',
    );
    expect(conflicting.mergeable).toBe(false);
  });

  it('shows `checking` (not mergeable) while a rule change is queued, then the recomputed state', async () => {
    const jobs = t.app.get(JobQueue);
    const rule = await t
      .http()
      .post(`${repoPath}/branch_protections`)
      .set(tok(owner))
      .send({ rule_name: 'main' });
    expect(rule.status).toBe(201);
    const queued: { type: string; payload: { issueIds: string[] } }[] = await t.dataSource.query(
      `SELECT type, payload FROM jobs WHERE type = 'repositories.pull-check' ORDER BY id DESC LIMIT 1`,
    );
    expect(queued).toHaveLength(1);
    expect(queued[0].payload.issueIds).toHaveLength(PULLS);
    await jobs.drain({ timeoutMs: 240_000 });
    expect(await statusOf('Topic 7')).toBe('mergeable');
    expect(await statusOf('Topic 3')).toBe('conflict');
    // A rule that governs no open pull request's base queues nothing.
    const countJobs = async () =>
      Number(
        (
          await t.dataSource.query(
            `SELECT count(*)::int AS n FROM jobs WHERE type = 'repositories.pull-check'`,
          )
        )[0].n,
      );
    const jobsBefore = await countJobs();
    expect(
      (await t.http().post(`${repoPath}/branch_protections`).set(tok(owner)).send({ rule_name: 'release/*' }))
        .status,
    ).toBe(201);
    expect(await countJobs()).toBe(jobsBefore);
    // A refused rule (a name taken) changes nothing and queues nothing.
    expect(
      (await t.http().post(`${repoPath}/branch_protections`).set(tok(owner)).send({ rule_name: 'main' }))
        .status,
    ).toBe(403);
    expect(await countJobs()).toBe(jobsBefore);
  });

  it('a merge after a base move works from the state it computes itself (no read refreshed it)', async () => {
    const jobs = t.app.get(JobQueue);
    // The protection rule of the previous test would refuse merges into main: drop it (a rule change too).
    for (const rule of ['main', 'release%2F*'])
      expect((await t.http().delete(`${repoPath}/branch_protections/${rule}`).set(tok(owner))).status).toBe(
        204,
      );
    await jobs.drain({ timeoutMs: 240_000 });
    const merged = await t.http().post(`${repoPath}/pulls/10/merge`).set(tok(owner)).send({ Do: 'merge' });
    expect(merged.status).toBe(200);
    // Merging moved main: the other open pulls into main are `checking` until the push job ran.
    const pending: { status: string }[] = await t.dataSource.query(
      `SELECT p.status FROM pull_requests p JOIN issues i ON i.id = p.issue_id WHERE i.title = 'Topic 11'`,
    );
    expect(['checking', 'mergeable']).toContain(pending[0].status);
    // A second merge right away refreshes its own pull request first.
    const second = await t.http().post(`${repoPath}/pulls/11/merge`).set(tok(owner)).send({ Do: 'merge' });
    expect(second.status).toBe(200);
    await jobs.drain({ timeoutMs: 240_000 });
    expect(await statusOf('Topic 12')).toBe('mergeable');
  });
});
