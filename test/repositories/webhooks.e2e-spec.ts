import { createHmac } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { JobQueue } from '../../src/platform/jobs/job-queue.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

jest.setTimeout(120_000);

interface Payload {
  action?: string;
  ref?: string;
  comment?: { body?: string };
  [key: string]: unknown;
}

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Payload;
}

/** A receiver on loopback recording every delivery (raw body and headers); `status` is what it answers. */
async function startReceiver() {
  const deliveries: Delivery[] = [];
  const state = { status: 200 };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      let body: Payload = {};
      try {
        body =
          req.headers['content-type'] === 'application/x-www-form-urlencoded'
            ? JSON.parse(new URLSearchParams(raw).get('payload') ?? '{}')
            : JSON.parse(raw);
      } catch {
        // recorded as {}
      }
      deliveries.push({ path: req.url ?? '', headers: req.headers, raw, body });
      res.writeHead(state.status).end('received');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deliveries,
    state,
    at: (p: string) => deliveries.filter((d) => d.path === p),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Issue 49.5: repository and organization webhooks. Gitea's routes, shapes, texts and permission
 * order; a receiver on loopback (allowed by WEBHOOK_ALLOWED_HOST_LIST=loopback) gets signed Gitea
 * payloads for a push by the real git client, a new branch, a new pull request and a comment; the
 * outbound address rule refuses a private target.
 */
describe('repository webhooks (Gitea)', () => {
  let t: TestApp;
  let base: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let owner: CreatedUser;
  let admin: CreatedUser;
  let writer: CreatedUser;
  let repoAdmin: CreatedUser;
  let wc: string;
  const repoPath = '/api/v1/repos/owner/hooked';
  const tok = (who: CreatedUser | string) => ({
    Authorization: `token ${typeof who === 'string' ? who : who.token}`,
  });
  const drain = () => t.app.get(JobQueue).drain({ timeoutMs: 60_000 });
  const hook = (url: string, extra: Record<string, unknown> = {}) => ({
    type: 'gitea',
    config: { url, content_type: 'json', secret: 's3cret' },
    events: ['push', 'create', 'pull_request', 'issue_comment', 'release'],
    active: true,
    ...extra,
  });
  const sign = (raw: string, secret = 's3cret') => createHmac('sha256', secret).update(raw).digest('hex');

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        WEBHOOK_ALLOWED_HOST_LIST: 'loopback',
        WEBHOOK_RETRY_BACKOFF_MS: '50',
        WEBHOOK_MAX_ATTEMPTS: '2',
        WEBHOOK_DELIVER_TIMEOUT_SECONDS: '5',
      },
    });
    base = await t.listen();
    receiver = await startReceiver();
    owner = await t.factories.user({ username: 'owner' });
    admin = await t.factories.admin({ username: 'siteadmin' });
    writer = await t.factories.user({ username: 'writer' });
    repoAdmin = await t.factories.user({ username: 'repoadmin' });
    await t
      .http()
      .post('/api/v1/user/repos')
      .set(tok(owner))
      .send({ name: 'hooked', auto_init: true })
      .expect(201);
    await t
      .http()
      .put(`${repoPath}/collaborators/writer`)
      .set(tok(owner))
      .send({ permission: 'write' })
      .expect(204);
    await t
      .http()
      .put(`${repoPath}/collaborators/repoadmin`)
      .set(tok(owner))
      .send({ permission: 'admin' })
      .expect(204);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('creates, lists, reads, edits and deletes hooks with Gitea shapes; the secret is never returned', async () => {
    const created = await t
      .http()
      .post(`${repoPath}/hooks`)
      .set(tok(repoAdmin))
      .send(hook(`${receiver.url}/crud`, { events: ['issues'], branch_filter: 'main' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.any(Number),
      type: 'gitea',
      active: true,
      branch_filter: 'main',
      config: { url: `${receiver.url}/crud`, content_type: 'json' },
      events: ['issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment'],
    });
    expect(JSON.stringify(created.body)).not.toContain('s3cret');
    const id = created.body.id as number;

    const list = await t.http().get(`${repoPath}/hooks`).set(tok(owner));
    expect(list.status).toBe(200);
    expect(list.headers['x-total-count']).toBe('1');
    expect(list.body.map((h: { id: number }) => h.id)).toEqual([id]);
    expect((await t.http().get(`${repoPath}/hooks/${id}`).set(tok(admin))).body.id).toBe(id);

    const edited = await t
      .http()
      .patch(`${repoPath}/hooks/${id}`)
      .set(tok(owner))
      .send({ config: { content_type: 'form' }, active: false });
    expect(edited.status).toBe(200);
    // Gitea's editHook: no events means push; the branch filter is replaced.
    expect(edited.body).toMatchObject({
      active: false,
      events: ['push'],
      branch_filter: '',
      config: { content_type: 'form' },
    });

    expect((await t.http().delete(`${repoPath}/hooks/${id}`).set(tok(owner))).status).toBe(204);
    expect((await t.http().get(`${repoPath}/hooks/${id}`).set(tok(owner))).status).toBe(404);
    expect((await t.http().delete(`${repoPath}/hooks/${id}`).set(tok(owner))).status).toBe(404);
    expect((await t.http().get(`${repoPath}/hooks/abc`).set(tok(owner))).status).toBe(404);
  });

  it("refuses bad input with Gitea's texts (422) and stores nothing", async () => {
    const post = (body: unknown) =>
      t
        .http()
        .post(`${repoPath}/hooks`)
        .set(tok(owner))
        .send(body as object);
    const cases: [unknown, string][] = [
      [{ ...hook('http://127.0.0.1/x'), type: 'nope' }, 'Invalid hook type: nope'],
      [{ ...hook('http://127.0.0.1/x'), type: 'slack' }, 'Invalid hook type: slack'],
      [{ type: 'gitea', config: { content_type: 'json' } }, 'Missing config option: url'],
      [{ type: 'gitea', config: { url: 'http://127.0.0.1/x' } }, 'Missing config option: content_type'],
      [{ type: 'gitea', config: { url: 'http://127.0.0.1/x', content_type: 'xml' } }, 'Invalid content type'],
      [{ type: 'gitea', config: { url: 'ftp://x', content_type: 'json' } }, 'Invalid url'],
      [{ type: 'gitea' }, '[Config]: Required'],
      [{ type: 'gitea', config: 'x' }, 'json: cannot unmarshal string'],
      [{ ...hook('http://127.0.0.1/x'), branch_filter: '{main' }, '[BranchFilter]: GlobPattern'],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect([res.status, res.body.message]).toEqual([422, expect.stringContaining(message)]);
    }
    expect((await t.http().get(`${repoPath}/hooks`).set(tok(owner))).body).toEqual([]);
  });

  it('answers 401 without credentials, 403 to a writer and to narrow keys, 404 for an unknown repository', async () => {
    const body = hook('http://127.0.0.1/x');
    expect((await t.http().get(`${repoPath}/hooks`)).status).toBe(401);
    expect((await t.http().post(`${repoPath}/hooks`).send(body)).status).toBe(401);
    expect((await t.http().get(`${repoPath}/hooks`).set(tok(writer))).status).toBe(403);
    expect((await t.http().post(`${repoPath}/hooks`).set(tok(writer)).send(body)).status).toBe(403);
    const reader = await t.factories.token(owner.user, { scopes: ['read:repository'] });
    expect((await t.http().get(`${repoPath}/hooks`).set(tok(reader))).status).toBe(200);
    expect((await t.http().post(`${repoPath}/hooks`).set(tok(reader)).send(body)).status).toBe(403);
    const userOnly = await t.factories.token(owner.user, { scopes: ['read:user'] });
    expect((await t.http().get(`${repoPath}/hooks`).set(tok(userOnly))).status).toBe(403);
    expect((await t.http().get('/api/v1/repos/owner/missing/hooks').set(tok(owner))).status).toBe(404);
  });

  it('organization hooks: owners only (site administrators too), organization scope', async () => {
    const org = await t.factories.organization('hookorg', owner.user.id);
    const member = await t.factories.user({ username: 'orgmember' });
    await t.factories.team(org, 'devs', [member.user]);
    const orgPath = '/api/v1/orgs/hookorg/hooks';
    const created = await t
      .http()
      .post(orgPath)
      .set(tok(owner))
      .send(hook(`${receiver.url}/org`));
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await t.http().get(orgPath)).status).toBe(401);
    expect((await t.http().get(orgPath).set(tok(member))).status).toBe(403);
    expect((await t.http().post(orgPath).set(tok(member)).send(hook('http://127.0.0.1/x'))).status).toBe(403);
    expect((await t.http().get(`${orgPath}/${id}`).set(tok(admin))).status).toBe(200);
    const repoKey = await t.factories.token(owner.user, { scopes: ['write:repository'] });
    expect((await t.http().get(orgPath).set(tok(repoKey))).status).toBe(403);
    expect((await t.http().get('/api/v1/orgs/nosuchorg/hooks').set(tok(owner))).status).toBe(404);
    const list = await t.http().get(orgPath).set(tok(owner));
    expect([list.status, list.body.map((h: { id: number }) => h.id)]).toEqual([200, [id]]);
    // A repository hook id is not an organization hook.
    expect(
      (await t.http().patch(`${orgPath}/${id}`).set(tok(owner)).send({ active: false })).body.active,
    ).toBe(false);
    expect((await t.http().delete(`${orgPath}/${id}`).set(tok(owner))).status).toBe(204);
  });

  it("an organization's hook fires for the organization's repositories", async () => {
    const created = await t
      .http()
      .post('/api/v1/orgs/hookorg/hooks')
      .set(tok(owner))
      .send(hook(`${receiver.url}/org-events`, { events: ['issues'] }));
    expect(created.status).toBe(201);
    await t.http().post('/api/v1/orgs/hookorg/repos').set(tok(owner)).send({ name: 'orgrepo' }).expect(201);
    await t
      .http()
      .post('/api/v1/repos/hookorg/orgrepo/issues')
      .set(tok(owner))
      .send({ title: 'org issue' })
      .expect(201);
    // An issue of a repository the organization does not own does not reach it.
    await t.http().post(`${repoPath}/issues`).set(tok(owner)).send({ title: 'elsewhere' }).expect(201);
    await drain();
    const hits = receiver.at('/org-events');
    expect(
      hits.map((d) => [
        d.headers['x-gitea-event'],
        d.body.action,
        (d.body.repository as { full_name: string }).full_name,
      ]),
    ).toEqual([['issues', 'opened', 'hookorg/orgrepo']]);
    expect(hits[0]!.headers['x-gitea-signature']).toBe(sign(hits[0]!.raw));
    await t.http().delete(`/api/v1/orgs/hookorg/hooks/${created.body.id}`).set(tok(owner)).expect(204);
  });

  it('delivers a signed push by the real git client, a new branch, a new pull request and a comment', async () => {
    const created = await t
      .http()
      .post(`${repoPath}/hooks`)
      .set(tok(owner))
      .send(hook(`${receiver.url}/all`));
    expect(created.status).toBe(201);
    const filtered = await t
      .http()
      .post(`${repoPath}/hooks`)
      .set(tok(owner))
      .send(
        hook(`${receiver.url}/release-only`, {
          branch_filter: 'release/*',
          config: { url: `${receiver.url}/release-only`, content_type: 'form', secret: 's3cret' },
        }),
      );
    expect(filtered.status).toBe(201);
    await drain();

    const dir = await tempDir();
    const clone = await git(
      ['clone', '--quiet', cloneUrl(base, 'owner', 'hooked', { user: 'owner', secret: owner.token }), 'wc'],
      dir,
    );
    expect(clone.code).toBe(0);
    wc = path.join(dir, 'wc');
    await git(['checkout', '--quiet', '-b', 'feature'], wc);
    await import('node:fs/promises').then((fs) => fs.writeFile(path.join(wc, 'feature.txt'), 'feature\n'));
    await git(['add', 'feature.txt'], wc);
    await git(['commit', '--quiet', '-m', 'add feature'], wc);
    const after = (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
    expect((await git(['push', '--quiet', 'origin', 'feature'], wc)).code).toBe(0);
    await drain();

    const all = receiver.at('/all');
    const push = all.find((d) => d.headers['x-gitea-event'] === 'push');
    const create = all.find((d) => d.headers['x-gitea-event'] === 'create');
    expect(push).toBeDefined();
    expect(create).toBeDefined();
    expect(push!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-gitea-event': 'push',
      'x-gitea-event-type': 'push',
      'x-gitea-signature': sign(push!.raw),
      'x-gitea-delivery': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'x-github-event': 'push',
      'x-gogs-event': 'push',
      'x-hub-signature-256': `sha256=${sign(push!.raw)}`,
    });
    expect(push!.body).toMatchObject({
      ref: 'refs/heads/feature',
      before: '0000000000000000000000000000000000000000',
      after,
      total_commits: 1,
      commits: [{ id: after, message: 'add feature\n', added: ['feature.txt'] }],
      head_commit: { id: after },
      repository: { full_name: 'owner/hooked' },
      pusher: { login: 'owner' },
      sender: { login: 'owner' },
    });
    expect(create!.body).toMatchObject({ ref: 'feature', ref_type: 'branch', sha: after });
    // The filtered hook takes only release/* branches.
    expect(receiver.at('/release-only')).toEqual([]);

    const pull = await t
      .http()
      .post(`${repoPath}/pulls`)
      .set(tok(writer))
      .send({ head: 'feature', base: 'main', title: 'Add feature' });
    expect(pull.status).toBe(201);
    await drain();
    const opened = receiver.at('/all').filter((d) => d.headers['x-gitea-event'] === 'pull_request');
    expect(opened).toHaveLength(1);
    expect(opened[0]!.headers['x-gitea-signature']).toBe(sign(opened[0]!.raw));
    expect(opened[0]!.body).toMatchObject({
      action: 'opened',
      number: pull.body.number,
      pull_request: {
        number: pull.body.number,
        title: 'Add feature',
        head: { ref: 'feature' },
        base: { ref: 'main' },
      },
      repository: { full_name: 'owner/hooked' },
      sender: { login: 'writer' },
    });

    // A second push to the head: pull_request "synchronized" (X-Gitea-Event-Type pull_request_sync).
    await import('node:fs/promises').then((fs) => fs.writeFile(path.join(wc, 'feature.txt'), 'feature 2\n'));
    await git(['commit', '--quiet', '-am', 'more'], wc);
    expect((await git(['push', '--quiet', 'origin', 'feature'], wc)).code).toBe(0);
    await drain();
    const sync = receiver.at('/all').filter((d) => d.headers['x-gitea-event-type'] === 'pull_request_sync');
    expect(sync.map((d) => [d.headers['x-gitea-event'], d.body.action])).toEqual([
      ['pull_request', 'synchronized'],
    ]);

    const comment = await t
      .http()
      .post(`${repoPath}/issues/${pull.body.number}/comments`)
      .set(tok(writer))
      .send({ body: 'looks good' });
    expect(comment.status).toBe(201);
    await drain();
    const commented = receiver.at('/all').filter((d) => d.headers['x-gitea-event'] === 'issue_comment');
    expect(
      commented.map((d) => [d.headers['x-gitea-event-type'], d.body.action, d.body.comment?.body]),
    ).toEqual([['pull_request_comment', 'created', 'looks good']]);

    // Each delivery is recorded; the hook's deliveries all succeeded.
    const rows: { status: string; response_status: number }[] = await t.dataSource.query(
      `SELECT status, response_status FROM webhook_deliveries WHERE hook_id = $1`,
      [String(created.body.id)],
    );
    expect(rows.length).toBe(receiver.at('/all').length);
    expect(rows.every((r) => r.status === 'delivered' && r.response_status === 200)).toBe(true);

    // A push to release/1 reaches the filtered hook, as a form body signed over the JSON payload.
    await git(['checkout', '--quiet', '-b', 'release/1'], wc);
    expect((await git(['push', '--quiet', 'origin', 'release/1'], wc)).code).toBe(0);
    await drain();
    const release = receiver.at('/release-only').find((d) => d.headers['x-gitea-event'] === 'push');
    expect(release?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const payload = new URLSearchParams(release!.raw).get('payload')!;
    expect(release!.headers['x-gitea-signature']).toBe(sign(payload));
    expect(release!.body.ref).toBe('refs/heads/release/1');

    // A merge: pull_request "closed" with merged true (and a push of main); a release: release "published".
    const merged = await t
      .http()
      .post(`${repoPath}/pulls/${pull.body.number}/merge`)
      .set(tok(writer))
      .send({ Do: 'merge' });
    expect(merged.status).toBe(200);
    const published = await t
      .http()
      .post(`${repoPath}/releases`)
      .set(tok(writer))
      .send({ tag_name: 'v1.0.0', name: 'One' });
    expect(published.status).toBe(201);
    await drain();
    const later = receiver.at('/all');
    const closed = later.filter(
      (d) => d.headers['x-gitea-event'] === 'pull_request' && d.body.action === 'closed',
    );
    expect(closed.map((d) => (d.body.pull_request as { merged: boolean }).merged)).toEqual([true]);
    expect(later.some((d) => d.headers['x-gitea-event'] === 'push' && d.body.ref === 'refs/heads/main')).toBe(
      true,
    );
    const releases = later.filter((d) => d.headers['x-gitea-event'] === 'release');
    expect(releases.map((d) => [d.body.action, (d.body.release as { tag_name: string }).tag_name])).toEqual([
      ['published', 'v1.0.0'],
    ]);
    expect(later.some((d) => d.headers['x-gitea-event'] === 'create' && d.body.ref === 'v1.0.0')).toBe(true);
  });

  it('the test route queues a push of the default branch; failures are retried and recorded', async () => {
    receiver.state.status = 500;
    const created = await t
      .http()
      .post(`${repoPath}/hooks`)
      .set(tok(owner))
      .send(hook(`${receiver.url}/test`));
    const id = created.body.id as number;
    expect((await t.http().post(`${repoPath}/hooks/${id}/tests`).set(tok(owner))).status).toBe(204);
    expect((await t.http().post(`${repoPath}/hooks/${id}/tests`).set(tok(writer))).status).toBe(403);
    expect((await t.http().post(`${repoPath}/hooks/999999/tests`).set(tok(owner))).status).toBe(404);
    await drain();
    receiver.state.status = 200;
    const hits = receiver.at('/test');
    // WEBHOOK_MAX_ATTEMPTS=2: two attempts, both answered 500.
    expect(hits).toHaveLength(2);
    expect(hits[0]!.body).toMatchObject({ ref: 'refs/heads/main', total_commits: 1 });
    expect(hits[0]!.headers['x-gitea-delivery']).toBe(hits[1]!.headers['x-gitea-delivery']);
    const [row] = await t.dataSource.query(
      `SELECT status, attempts, response_status FROM webhook_deliveries WHERE hook_id = $1`,
      [String(id)],
    );
    expect(row).toMatchObject({ status: 'failed', attempts: 2, response_status: 500 });
  });

  it('refuses a private target the allowed-host list does not name (no connection made)', async () => {
    const created = await t
      .http()
      .post(`${repoPath}/hooks`)
      .set(tok(owner))
      .send(hook('http://10.1.2.3:9/private', { events: ['issues'] }));
    expect(created.status).toBe(201);
    await t.http().post(`${repoPath}/issues`).set(tok(owner)).send({ title: 'ping' }).expect(201);
    await drain();
    const [row] = await t.dataSource.query(
      `SELECT status, attempts, response_status, response_body FROM webhook_deliveries WHERE hook_id = $1`,
      [String(created.body.id)],
    );
    expect(row).toMatchObject({ status: 'failed', attempts: 1, response_status: null });
    expect(row.response_body).toContain('WEBHOOK_ALLOWED_HOST_LIST');
    // The server keeps answering.
    expect((await t.http().get(`${repoPath}/hooks`).set(tok(owner))).status).toBe(200);
  });
});
