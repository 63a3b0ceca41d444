import { EventEmitter2 } from '@nestjs/event-emitter';
import { JobQueue } from '../../src/platform/jobs/job-queue.service';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GitStorage } from '../../src/modules/repositories/git/git-storage.service';
import { RepositoriesRepository } from '../../src/modules/repositories/repositories.repository';
import { RepositoryPermissions } from '../../src/modules/repositories/repository-permissions.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, credentialHelper, git, tempDir, workingCopy } from './git-client';

/** One pkt-line of git's protocol. */
function pkt(text: string): string {
  return `${(Buffer.byteLength(text) + 4).toString(16).padStart(4, '0')}${text}`;
}

describe('git smart HTTP with the real git client', () => {
  let t: TestApp;
  let base: string;
  let alice: CreatedUser;
  let bob: CreatedUser;
  const events: { name: string; payload: Record<string, unknown> }[] = [];

  const auth = (who: CreatedUser) => ({ user: who.user.name, secret: who.token });
  const api = () => t.http();

  async function createRepo(owner: CreatedUser, body: Record<string, unknown>) {
    const res = await api()
      .post('/api/v1/user/repos')
      .set('Authorization', `token ${owner.token}`)
      .send(body);
    expect(res.status).toBe(201);
    return res.body as { name: string; empty: boolean; clone_url: string };
  }

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
    alice = await t.factories.user({ username: 'alice' });
    bob = await t.factories.user({ username: 'bob' });
    const emitter = t.app.get(EventEmitter2);
    for (const name of [
      'repository.pushed',
      'branch.created',
      'branch.updated',
      'branch.deleted',
      'tag.created',
      'tag.deleted',
    ]) {
      emitter.on(name, (payload: Record<string, unknown>) => events.push({ name, payload }));
    }
  });
  const drain = () => t.app.get(JobQueue).drain();
  afterAll(async () => {
    await t.close();
  });

  it('clones a repository created with auto_init, with its README', async () => {
    await createRepo(alice, { name: 'filled', auto_init: true, description: 'A test' });
    const dir = await tempDir();
    const result = await git(
      ['clone', '--quiet', cloneUrl(base, 'alice', 'filled', auth(alice)), 'copy'],
      dir,
    );
    expect(result).toMatchObject({ code: 0 });
    expect(await readFile(path.join(dir, 'copy', 'README.md'), 'utf8')).toBe('# filled\n\nA test\n');
    expect((await git(['rev-parse', '--abbrev-ref', 'HEAD'], path.join(dir, 'copy'))).stdout.trim()).toBe(
      'main',
    );
  });

  it('clones an empty repository, then a first push fills it and emits the branch and push events', async () => {
    const created = await createRepo(alice, { name: 'empty-one' });
    expect(created.empty).toBe(true);
    const dir = await tempDir();
    const clone = await git(['clone', cloneUrl(base, 'alice', 'empty-one', auth(alice)), 'copy'], dir);
    expect(clone.code).toBe(0);
    expect(clone.stderr).toContain('cloned an empty repository');

    await drain(); // earlier pushes' reactions first
    events.length = 0;
    const wc = await workingCopy(cloneUrl(base, 'alice', 'empty-one', auth(alice)), 'trunk');
    const push = await git(['push', 'origin', 'trunk'], wc);
    expect(push).toMatchObject({ code: 0 });
    const repo = await api()
      .get('/api/v1/repos/alice/empty-one')
      .set('Authorization', `token ${alice.token}`);
    expect(repo.body).toMatchObject({ empty: false, default_branch: 'trunk' });
    const head = (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
    await drain(); // the reactions run from the push's durable job
    expect(events.map((e) => e.name).sort()).toEqual(['branch.created', 'repository.pushed']);
    expect(events.find((e) => e.name === 'branch.created')!.payload).toMatchObject({
      branch: 'trunk',
      after: head,
      repository: 'alice/empty-one',
      actorUserId: alice.user.id,
      ownerUserIds: [alice.user.id],
    });
  });

  it('pushes updates, tags, forced rewrites and deletions, each with its event', async () => {
    await createRepo(alice, { name: 'busy' });
    const url = cloneUrl(base, 'alice', 'busy', auth(alice));
    const wc = await workingCopy(url);
    expect((await git(['push', 'origin', 'main'], wc)).code).toBe(0);

    await drain(); // earlier pushes' reactions first
    events.length = 0;
    await writeFile(path.join(wc, 'hello.txt'), 'second\n');
    await git(['commit', '--quiet', '-am', 'second'], wc);
    await git(['tag', 'v1'], wc);
    await git(['branch', 'feature'], wc);
    expect((await git(['push', 'origin', 'main', 'feature', 'v1'], wc)).code).toBe(0);
    await drain(); // the reactions run from the push's durable job
    expect(events.map((e) => e.name).sort()).toEqual([
      'branch.created',
      'branch.updated',
      'repository.pushed',
      'tag.created',
    ]);
    expect(events.find((e) => e.name === 'branch.updated')!.payload).toMatchObject({
      branch: 'main',
      forced: false,
    });

    await drain(); // earlier pushes' reactions first
    events.length = 0;
    await git(['reset', '--quiet', '--hard', 'HEAD~1'], wc);
    await writeFile(path.join(wc, 'other.txt'), 'rewritten\n');
    await git(['add', 'other.txt'], wc);
    await git(['commit', '--quiet', '-m', 'rewrite'], wc);
    expect((await git(['push', 'origin', 'main'], wc)).code).toBe(1); // non-fast-forward without --force
    expect((await git(['push', '--force', 'origin', 'main', ':feature', ':refs/tags/v1'], wc)).code).toBe(0);
    await drain(); // the reactions run from the push's durable job
    expect(events.map((e) => e.name).sort()).toEqual([
      'branch.deleted',
      'branch.updated',
      'repository.pushed',
      'tag.deleted',
    ]);
    expect(events.find((e) => e.name === 'branch.updated')!.payload).toMatchObject({
      branch: 'main',
      forced: true,
    });

    const fresh = await tempDir();
    expect((await git(['clone', '--quiet', url, 'copy'], fresh)).code).toBe(0);
    expect(existsSync(path.join(fresh, 'copy', 'other.txt'))).toBe(true);
    expect(
      (await git(['ls-remote', '--heads', '--tags', url], fresh)).stdout.trim().split('\n'),
    ).toHaveLength(1);
  });

  it('fetches with protocol version 2', async () => {
    await createRepo(alice, { name: 'v2', auto_init: true });
    const dir = await tempDir();
    const result = await git(
      ['-c', 'protocol.version=2', 'clone', cloneUrl(base, 'alice', 'v2', auth(alice)), 'copy'],
      dir,
      {
        GIT_TRACE_PACKET: '1',
      },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/git< version 2/);
    const fetched = await git(['-c', 'protocol.version=2', 'fetch', 'origin'], path.join(dir, 'copy'), {
      GIT_TRACE_PACKET: '1',
    });
    expect(fetched.code).toBe(0);
    expect(fetched.stderr).toMatch(/command=ls-refs/);
  });

  it('asks anonymous callers for credentials on a private repository, and a credential helper answers', async () => {
    await createRepo(alice, { name: 'secret', private: true, auto_init: true });
    const dir = await tempDir();
    const anonymous = await git(['clone', cloneUrl(base, 'alice', 'secret'), 'copy'], dir);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/could not read Username|Authentication failed/);
    const raw = await fetch(`${base}/alice/secret.git/info/refs?service=git-upload-pack`);
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toMatch(/^Basic realm="/);

    const helper = await credentialHelper(dir, 'alice', alice.token);
    const helped = await git(
      ['-c', `credential.helper=${helper}`, 'clone', '--quiet', cloneUrl(base, 'alice', 'secret'), 'copy'],
      dir,
    );
    expect(helped.code).toBe(0);

    // Signed in without access: 404, not a challenge.
    const outsider = await git(['clone', cloneUrl(base, 'alice', 'secret', auth(bob)), 'other'], dir);
    expect(outsider.code).not.toBe(0);
    expect(outsider.stderr).toMatch(/not found/i);
    const wrong = await git(
      ['clone', cloneUrl(base, 'alice', 'secret', { user: 'alice', secret: 'wrong-password' }), 'third'],
      dir,
    );
    expect(wrong.stderr).toMatch(/Authentication failed/);
  });

  it('refuses pushes to archived repositories and from readers, and keeps the refs', async () => {
    await createRepo(alice, { name: 'frozen', auto_init: true });
    const url = cloneUrl(base, 'alice', 'frozen', auth(alice));
    const dir = await tempDir();
    await git(['clone', '--quiet', url, 'copy'], dir);
    const wc = path.join(dir, 'copy');
    await writeFile(path.join(wc, 'x.txt'), 'x\n');
    await git(['add', 'x.txt'], wc);
    await git(['commit', '--quiet', '-m', 'x'], wc);

    await api()
      .put('/api/v1/repos/alice/frozen/collaborators/bob')
      .set('Authorization', `token ${alice.token}`)
      .send({ permission: 'read' })
      .expect(204);
    const asReader = await git(['push', cloneUrl(base, 'alice', 'frozen', auth(bob)), 'main'], wc);
    expect(asReader.code).not.toBe(0);
    expect(asReader.stderr).toMatch(/403|permission denied to push/i);

    await api()
      .patch('/api/v1/repos/alice/frozen')
      .set('Authorization', `token ${alice.token}`)
      .send({ archived: true })
      .expect(200);
    const archived = await git(['push', 'origin', 'main'], wc);
    expect(archived.code).not.toBe(0);
    expect(archived.stderr).toMatch(/archived/);
    const before = (await git(['ls-remote', url, 'refs/heads/main'], dir)).stdout;
    expect(before).not.toContain((await git(['rev-parse', 'HEAD'], wc)).stdout.trim());
  });

  it('a corrupt pack and a client that hangs up mid-push move no ref', async () => {
    await createRepo(alice, { name: 'robust', auto_init: true });
    const url = cloneUrl(base, 'alice', 'robust', auth(alice));
    const dir = await tempDir();
    const before = (await git(['ls-remote', url], dir)).stdout;
    const corrupt = await fetch(`${base}/alice/robust.git/git-receive-pack`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-git-receive-pack-request',
        Authorization: `token ${alice.token}`,
      },
      body: Buffer.concat([
        Buffer.from(`${pkt(`${'0'.repeat(40)} ${'1'.repeat(40)} refs/heads/evil\0 report-status\n`)}0000`),
        Buffer.from('PACK garbage garbage'),
      ]),
    });
    // git answers with its report-status (`unpack ...` error), which a git client prints.
    expect(corrupt.status).toBe(200);
    expect(Buffer.from(await corrupt.arrayBuffer()).toString('latin1')).toMatch(/unpack (?!ok)/);
    const controller = new AbortController();
    const hangUp = fetch(`${base}/alice/robust.git/git-receive-pack`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-git-receive-pack-request',
        Authorization: `token ${alice.token}`,
      },
      body: new ReadableStream({
        start(stream) {
          stream.enqueue(
            new TextEncoder().encode(
              `${pkt(`${'0'.repeat(40)} ${'2'.repeat(40)} refs/heads/half\0 report-status\n`)}0000PACK`,
            ),
          );
          setTimeout(() => controller.abort(), 200);
        },
      }),
      duplex: 'half',
      signal: controller.signal,
    } as RequestInit).catch(() => undefined);
    await hangUp;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await git(['ls-remote', url], dir)).stdout).toBe(before);
    const storage = t.app.get(GitStorage);
    expect((await git(['fsck', '--no-progress'], storage.pathOf('alice', 'robust'))).code).toBe(0);
  });
});

describe('forks', () => {
  let t: TestApp;
  let base: string;
  let alice: CreatedUser;
  let bob: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
    alice = await t.factories.user({ username: 'alice' });
    bob = await t.factories.user({ username: 'bob' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('forks into the caller (202, parent filled), then the fork clones and takes pushes of its own', async () => {
    await t
      .http()
      .post('/api/v1/user/repos')
      .set('Authorization', `token ${alice.token}`)
      .send({ name: 'upstream', auto_init: true })
      .expect(201);
    const fork = await t
      .http()
      .post('/api/v1/repos/alice/upstream/forks')
      .set('Authorization', `token ${bob.token}`)
      .send({});
    expect(fork.status).toBe(202);
    expect(fork.body).toMatchObject({
      full_name: 'bob/upstream',
      fork: true,
      empty: false,
      parent: { full_name: 'alice/upstream' },
    });
    const again = await t
      .http()
      .post('/api/v1/repos/alice/upstream/forks')
      .set('Authorization', `token ${bob.token}`)
      .send({ name: 'second' });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('repository is already forked by user');

    const dir = await tempDir();
    const url = cloneUrl(base, 'bob', 'upstream', { user: 'bob', secret: bob.token });
    expect((await git(['clone', '--quiet', url, 'copy'], dir)).code).toBe(0);
    const wc = path.join(dir, 'copy');
    expect(await readFile(path.join(wc, 'README.md'), 'utf8')).toBe('# upstream\n');
    await writeFile(path.join(wc, 'fork.txt'), 'only in the fork\n');
    await git(['add', 'fork.txt'], wc);
    await git(['commit', '--quiet', '-m', 'fork work'], wc);
    expect((await git(['push', 'origin', 'main'], wc)).code).toBe(0);
    const upstream = await git(['ls-remote', cloneUrl(base, 'alice', 'upstream'), 'refs/heads/main'], dir);
    const forked = await git(['ls-remote', url, 'refs/heads/main'], dir);
    expect(upstream.stdout).not.toBe(forked.stdout);

    const forks = await t.http().get('/api/v1/repos/alice/upstream/forks');
    expect(forks.status).toBe(200);
    expect(forks.body.map((r: { full_name: string }) => r.full_name)).toEqual(['bob/upstream']);
    expect(forks.headers['x-total-count']).toBe('1');
  });

  it('cannot fork what the caller may not read (404) nor into an unknown organization (404)', async () => {
    await t
      .http()
      .post('/api/v1/user/repos')
      .set('Authorization', `token ${alice.token}`)
      .send({ name: 'hidden', private: true })
      .expect(201);
    expect(
      (
        await t
          .http()
          .post('/api/v1/repos/alice/hidden/forks')
          .set('Authorization', `token ${bob.token}`)
          .send({})
      ).status,
    ).toBe(404);
    expect(
      (
        await t
          .http()
          .post('/api/v1/repos/alice/upstream/forks')
          .set('Authorization', `token ${bob.token}`)
          .send({ organization: 'none' })
      ).status,
    ).toBe(404);
  });
});

/**
 * Issue 34 item 1: the push path authorizes once. A `git push` is two HTTP requests (info/refs and
 * receive-pack), each authorized by @RepoAccess (one repository read, one permission computation);
 * the pre-receive and post-receive hook calls act on what receive-pack decided (the one-push session),
 * so they add neither, also when branch protection has to judge the pusher. The hook calls are not
 * counted by the rate limiter (the one-push token guards them).
 */
describe('one push, one authorization', () => {
  let t: TestApp;
  let base: string;
  let alice: CreatedUser;

  beforeAll(async () => {
    // No job runs here (JOBS_CONCURRENCY=0): the push's reactions (which read the repository in their
    // job, after the push) stay queued, so only the push path is counted.
    t = await createTestApp({
      env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_API_PER_MINUTE: '12', JOBS_CONCURRENCY: '0' },
    });
    base = await t.listen();
    alice = await t.factories.user({ username: 'alice' });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  it('reads and authorizes once per request of the push; hooks neither read, authorize nor count against the rate limit', async () => {
    const auth = { user: alice.user.name, secret: alice.token };
    await t
      .http()
      .post('/api/v1/user/repos')
      .set('Authorization', `token ${alice.token}`)
      .send({ name: 'counted', auto_init: true })
      .expect(201);
    // A protection rule that lets alice push: the pre-receive hook judges her against it.
    await t
      .http()
      .post('/api/v1/repos/alice/counted/branch_protections')
      .set('Authorization', `token ${alice.token}`)
      .send({ rule_name: 'main', enable_push: true })
      .expect(201);
    // Hook calls with a bad token are refused by the token (404: no such route for them, issue #46.3),
    // never by the limiter (more than the limit).
    for (let i = 0; i < 15; i++) {
      const res = await t
        .http()
        .post('/api/internal/git-hooks/pre-receive')
        .set('X-Devplane-Hook-Token', 'not-a-session')
        .send({ hook: 'pre-receive', refs: [] });
      expect(res.status).toBe(404);
    }

    const dir = await tempDir();
    expect((await git(['clone', '--quiet', cloneUrl(base, 'alice', 'counted', auth), 'wc'], dir)).code).toBe(
      0,
    );
    const wc = path.join(dir, 'wc');
    await writeFile(path.join(wc, 'counted.txt'), 'one\n');
    await git(['add', 'counted.txt'], wc);
    await git(['commit', '--quiet', '-m', 'one'], wc);

    const permissions = t.app.get(RepositoryPermissions);
    const rows = t.app.get(RepositoriesRepository);
    const modeOf = jest.spyOn(permissions, 'modeOf');
    const findByName = jest.spyOn(rows, 'findByName');
    const findById = jest.spyOn(rows, 'findById');
    const push = await git(['push', 'origin', 'main'], wc);
    expect(push).toMatchObject({ code: 0 });
    // git asks info/refs anonymously first (the 401 challenge), then with credentials, then posts
    // receive-pack: one read and one permission computation per request; the hooks add none.
    expect(findByName.mock.calls.length).toBe(3);
    expect(modeOf.mock.calls.map((call) => call[0]?.id ?? null)).toEqual([
      null,
      alice.user.id,
      alice.user.id,
    ]);
    expect(findById).not.toHaveBeenCalled();
    modeOf.mockRestore();
    findByName.mockRestore();
    findById.mockRestore();
    const jobs: { n: string }[] = await t.dataSource.query(
      `SELECT count(*)::text AS n FROM jobs WHERE type = 'repositories.push' AND status = 'pending'`,
    );
    expect(jobs[0]!.n).toBe('1');
  });
});
