import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkRemoteAddress } from '../../src/modules/repositories/mirrors/remote-address';
import { GitStorage } from '../../src/modules/repositories/git/git-storage.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir, workingCopy } from './git-client';

describe('remote addresses of migrations', () => {
  it.each([
    ['not a url', 'Invalid URL'],
    ['ftp://example.com/repo.git', 'Invalid protocol'],
    ['file:///etc/passwd', 'Invalid protocol'],
    ['http://127.0.0.1/repo.git', 'You can not import from disallowed hosts.'],
    ['http://localhost:3000/repo.git', 'You can not import from disallowed hosts.'],
    ['http://10.1.2.3/repo.git', 'You can not import from disallowed hosts.'],
    ['http://[::1]/repo.git', 'You can not import from disallowed hosts.'],
  ])('refuses %s unless local networks are allowed', async (url, message) => {
    await expect(checkRemoteAddress(url, false)).rejects.toThrow(message);
  });

  it('pins the checked address and drops credentials from the URL', async () => {
    await expect(checkRemoteAddress('http://user:secret@127.0.0.1:8080/a.git', true)).resolves.toEqual({
      url: 'http://127.0.0.1:8080/a.git',
      pin: '127.0.0.1:8080:127.0.0.1',
    });
  });
});

describe('migrations and mirrors (POST /repos/migrate, mirror-sync)', () => {
  let t: TestApp;
  let base: string;
  let alice: CreatedUser;
  let bob: CreatedUser;
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const events: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env: { MIGRATIONS_ALLOW_LOCAL_NETWORKS: 'true' } });
    base = await t.listen();
    alice = await t.factories.user({ username: 'alice' });
    bob = await t.factories.user({ username: 'bob' });
    await t
      .http()
      .post('/api/v1/user/repos')
      .set(tok(alice))
      .send({ name: 'source', auto_init: true })
      .expect(201);
    await t
      .http()
      .post('/api/v1/user/repos')
      .set(tok(alice))
      .send({ name: 'secret', auto_init: true, private: true })
      .expect(201);
    const { EventEmitter2 } = await import('@nestjs/event-emitter');
    t.app.get(EventEmitter2).on('branch.updated', () => events.push('branch.updated'));
  });
  afterAll(async () => {
    await t.close();
  });

  const migrate = (body: Record<string, unknown>, who: CreatedUser = bob) =>
    t.http().post('/api/v1/repos/migrate').set(tok(who)).send(body);

  it('clones a public repository into the caller (201) that then takes pushes', async () => {
    const res = await migrate({ clone_addr: `${base}/alice/source.git`, repo_name: 'copy' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      full_name: 'bob/copy',
      mirror: false,
      empty: false,
      default_branch: 'main',
      original_url: `${base}/alice/source.git`,
    });
    const dir = await tempDir();
    expect(
      (
        await git(
          ['clone', '--quiet', cloneUrl(base, 'bob', 'copy', { user: 'bob', secret: bob.token }), 'wc'],
          dir,
        )
      ).code,
    ).toBe(0);
    expect(await readFile(path.join(dir, 'wc', 'README.md'), 'utf8')).toContain('# source');
    expect((await migrate({ clone_addr: `${base}/alice/source.git`, repo_name: 'copy' })).status).toBe(409);
  });

  it('uses credentials for a private remote and never stores them in clear', async () => {
    const without = await migrate({ clone_addr: `${base}/alice/secret.git`, repo_name: 'nope' }, alice);
    expect(without.status).toBe(422);
    expect(without.body.message).toMatch(/^Migration failed/);
    expect(without.body.message).not.toContain(alice.token);
    const res = await migrate(
      {
        clone_addr: `${base}/alice/secret.git`,
        repo_name: 'secret-mirror',
        mirror: true,
        auth_username: 'alice',
        auth_password: alice.token,
        private: true,
      },
      alice,
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ mirror: true, private: true, mirror_interval: '8h0m0s' });
    const rows = (await t.dataSource.query(
      "SELECT remote_url, sealed_authorization FROM repository_mirrors m JOIN repositories r ON r.id = m.repository_id WHERE r.name = 'secret-mirror'",
    )) as { remote_url: string; sealed_authorization: string }[];
    expect(rows[0]!.remote_url).toBe(`${base}/alice/secret.git`);
    expect(rows[0]!.sealed_authorization).not.toContain(alice.token);
    expect(rows[0]!.sealed_authorization).not.toContain(
      Buffer.from(`alice:${alice.token}`).toString('base64'),
    );
    const config = await readFile(
      path.join(t.app.get(GitStorage).pathOf('alice', 'secret-mirror'), 'config'),
      'utf8',
    );
    expect(config).not.toContain(alice.token);
    expect(config).not.toContain('remote "origin"');
  });

  it('keeps a mirror read-only and brings it up to date on mirror-sync (a durable job)', async () => {
    const res = await migrate({
      clone_addr: `${base}/alice/source.git`,
      repo_name: 'follower',
      mirror: true,
      mirror_interval: '10m',
    });
    expect(res.status).toBe(201);
    expect(res.body.mirror_interval).toBe('0h10m0s');
    const dir = await tempDir();
    expect(
      (
        await git(
          ['clone', '--quiet', cloneUrl(base, 'bob', 'follower', { user: 'bob', secret: bob.token }), 'wc'],
          dir,
        )
      ).code,
    ).toBe(0);
    const push = await git(['push', 'origin', 'HEAD:refs/heads/extra'], path.join(dir, 'wc'));
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('mirror repository is read-only');
    expect(
      (
        await t
          .http()
          .post('/api/v1/repos/bob/follower/branches')
          .set(tok(bob))
          .send({ new_branch_name: 'x' })
      ).status,
    ).toBe(403);

    const wc = await workingCopy(
      cloneUrl(base, 'alice', 'source', { user: 'alice', secret: alice.token }),
      'main',
      'new.txt',
      'new\n',
    );
    await git(['pull', '--quiet', '--rebase', 'origin', 'main'], wc);
    expect((await git(['push', '--quiet', 'origin', 'main'], wc)).code).toBe(0);
    const sourceTip = (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
    events.length = 0;
    expect((await t.http().post('/api/v1/repos/bob/follower/mirror-sync').set(tok(bob))).status).toBe(200);
    let tip = '';
    for (let i = 0; i < 100 && tip !== sourceTip; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      tip =
        (await t.http().get('/api/v1/repos/bob/follower/branches/main').set(tok(bob))).body.commit?.id ?? '';
    }
    expect(tip).toBe(sourceTip);
    // The sync reports its ref changes like a push, after the fetch.
    for (let i = 0; i < 50 && !events.includes('branch.updated'); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events).toContain('branch.updated');
  });

  it('refuses bad input with Gitea texts and changes nothing', async () => {
    const before = (
      (await t.dataSource.query('SELECT COUNT(*)::int AS n FROM repositories')) as { n: number }[]
    )[0]!.n;
    expect((await migrate({ clone_addr: 'ftp://example.com/x.git', repo_name: 'x' })).body.message).toBe(
      'Invalid protocol',
    );
    expect((await migrate({ clone_addr: 'nonsense', repo_name: 'x' })).body.message).toBe('Invalid URL');
    expect((await migrate({ repo_name: 'x' })).body.message).toBe('[CloneAddr]: Required');
    expect((await migrate({ clone_addr: `${base}/alice/source.git`, repo_name: 'bad name' })).status).toBe(
      422,
    );
    expect(
      (
        await migrate({
          clone_addr: `${base}/alice/source.git`,
          repo_name: 'x',
          mirror: true,
          mirror_interval: 'soon',
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await migrate({
          clone_addr: `${base}/alice/source.git`,
          repo_name: 'x',
          mirror: true,
          mirror_interval: '1m',
        })
      ).status,
    ).toBe(400);
    expect(
      (await migrate({ clone_addr: `${base}/alice/source.git`, repo_name: 'x', repo_owner: 'alice' })).status,
    ).toBe(403);
    expect((await migrate({ clone_addr: `${base}/alice/missing.git`, repo_name: 'x' })).status).toBe(422);
    expect(
      (
        await t
          .http()
          .post('/api/v1/repos/migrate')
          .send({ clone_addr: `${base}/alice/source.git`, repo_name: 'x' })
      ).status,
    ).toBe(401);
    expect((await t.http().post('/api/v1/repos/bob/copy/mirror-sync').set(tok(bob))).status).toBe(400);
    expect((await t.http().post('/api/v1/repos/bob/follower/mirror-sync').set(tok(alice))).status).toBe(403);
    expect(
      ((await t.dataSource.query('SELECT COUNT(*)::int AS n FROM repositories')) as { n: number }[])[0]!.n,
    ).toBe(before);
  });
});
