import { rm } from 'node:fs/promises';
import { connect as netConnect, createServer, type Server } from 'node:net';
import { ConnectProxyService } from '../../src/modules/ai-gateway/connect-proxy.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, freePort, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir, workingCopy } from '../repositories/git-client';

/**
 * Issue 31 item 1 (protocol routes declare and enforce token scopes) and item 6 (public Gitea read
 * routes of private repositories need the read scope), with the real git client: a key needs
 * `read:repository` to fetch a private repository and `write:repository` to push; a password
 * (Basic) is not a key and passes on the user's rights. The package registries need
 * `read:package` / `write:package`; the AI gateway's CONNECT proxy `aibridge_interception:create`.
 */
describe('issue 31.1 / 31.6: token scopes on protocol routes and on private repositories', () => {
  let t: TestApp;
  let base: string;
  let alice: CreatedUser;
  let admin: CreatedUser;
  let echo: Server;
  let echoPort: number;
  const dirs: string[] = [];

  const keyOf = (who: CreatedUser, scopes: string[]) => t.factories.token(who.user, { scopes });
  const dir = async () => {
    const created = await tempDir('devplane-31-1-');
    dirs.push(created);
    return created;
  };
  const clone = async (name: string, user: string, secret: string) =>
    git(['clone', '--quiet', cloneUrl(base, 'alice', name, { user, secret }), 'copy'], await dir());
  const push = async (name: string, user: string, secret: string, branch: string) => {
    const wc = await workingCopy(cloneUrl(base, 'alice', name, { user, secret }), branch);
    dirs.push(wc);
    return git(['push', 'origin', branch], wc);
  };

  beforeAll(async () => {
    echo = createServer((socket) => socket.end('hello\n'));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.2', resolve));
    echoPort = (echo.address() as { port: number }).port;
    const port = await freePort();
    t = await createTestApp({
      env: {
        PUBLIC_URL: `http://127.0.0.1:${port}/`,
        AI_GATEWAY_PROXY_ADDRESS: '127.0.0.1:0',
        AI_GATEWAY_PROXY_ALLOWED_CIDRS: '127.0.0.2/32',
      },
    });
    base = await t.listen(port);
    alice = await t.factories.user({ username: 'alice' });
    admin = await t.factories.admin();
    for (const [name, isPrivate] of [
      ['secret', true],
      ['open', false],
    ] as const) {
      await t
        .http()
        .post('/api/v1/user/repos')
        .set('Authorization', `token ${alice.token}`)
        .send({ name, private: isPrivate, auto_init: true })
        .expect(201);
    }
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => echo.close(resolve));
    await Promise.all(dirs.map((created) => rm(created, { recursive: true, force: true })));
  });

  describe('git smart HTTP', () => {
    it.each([
      ['a Coder user:read key', ['user:read'], false],
      ['a Gitea read:user key', ['read:user'], false],
      ['a Gitea read:issue key', ['read:issue'], false],
      ['a Gitea write:issue key', ['write:issue'], false],
      ["an administrator's workspace:read key", ['workspace:read'], true],
    ])('%s neither clones nor pushes a private repository', async (_label, scopes, byAdmin) => {
      const who = byAdmin ? admin : alice;
      const key = await keyOf(who, scopes);
      const cloned = await clone('secret', who.user.name, key);
      expect(cloned.code).not.toBe(0);
      expect(cloned.stderr).toContain('403');
      const pushed = await push('secret', who.user.name, key, `scope-${scopes[0]!.replace(/\W/g, '-')}`);
      expect(pushed.code).not.toBe(0);
      const refs = await t
        .http()
        .get('/alice/secret.git/info/refs?service=git-receive-pack')
        .auth(who.user.name, key);
      expect(refs.status).toBe(403);
      expect(refs.text).toContain('required=[write:repository]');
    });

    it('read:repository clones a private repository but cannot push; write:repository pushes', async () => {
      const reader = await keyOf(alice, ['read:repository']);
      expect((await clone('secret', 'alice', reader)).code).toBe(0);
      const refused = await push('secret', 'alice', reader, 'by-reader');
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('403');
      const writer = await keyOf(alice, ['write:repository']);
      expect(await push('secret', 'alice', writer, 'by-writer')).toMatchObject({ code: 0 });
      expect((await clone('secret', 'alice', writer)).code).toBe(0);
    });

    it('a password is not a key: Basic with it clones and pushes on the user right', async () => {
      expect((await clone('secret', 'alice', alice.password)).code).toBe(0);
      expect(await push('secret', 'alice', alice.password, 'by-password')).toMatchObject({ code: 0 });
    });

    it('a key without the repository scope still clones a public repository (as anonymous would) but cannot push', async () => {
      const key = await keyOf(alice, ['read:user']);
      expect((await clone('open', 'alice', key)).code).toBe(0);
      expect((await push('open', 'alice', key, 'public-no-scope')).code).not.toBe(0);
    });

    it('unknown owners and repositories are 404 for anonymous callers; private ones challenge (401)', async () => {
      expect((await t.http().get('/nobody/x.git/info/refs?service=git-upload-pack')).status).toBe(404);
      expect((await t.http().get('/alice/nothing.git/info/refs?service=git-upload-pack')).status).toBe(404);
      const privateRepo = await t.http().get('/alice/secret.git/info/refs?service=git-upload-pack');
      expect(privateRepo.status).toBe(401);
      expect(privateRepo.headers['www-authenticate']).toMatch(/^Basic/);
    });
  });

  describe('public Gitea read routes of a private repository (31.6)', () => {
    it('need read:repository (repository, branches) and read:issue (issues); public repositories stay readable', async () => {
      const noRepo = await keyOf(alice, ['read:user']);
      const repoOnly = await keyOf(alice, ['read:repository']);
      const issueOnly = await keyOf(alice, ['read:issue']);
      const get = (path: string, key: string) =>
        t.http().get(`/api/v1/repos/alice/${path}`).set('Authorization', `token ${key}`);

      const refused = await get('secret', noRepo);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('required=[read:repository]');
      expect((await get('secret/branches', noRepo)).status).toBe(403);
      expect((await get('secret', repoOnly)).status).toBe(200);
      expect((await get('secret/branches', repoOnly)).status).toBe(200);

      expect((await get('secret/issues', repoOnly)).status).toBe(403);
      expect((await get('secret/issues', issueOnly)).status).toBe(200);

      expect((await get('open', noRepo)).status).toBe(200);
      expect((await get('open/issues', noRepo)).status).toBe(200);
    });
  });

  describe('package registries', () => {
    it('the generic registry needs write:package to upload and read:package to download', async () => {
      const url = '/api/packages/alice/generic/tool/1.0.0/tool.txt';
      const repoKey = await keyOf(alice, ['write:repository']);
      const refused = await t
        .http()
        .put(url)
        .auth('alice', repoKey)
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('tool\n'));
      expect(refused.status).toBe(403);
      const writer = await keyOf(alice, ['write:package']);
      await t
        .http()
        .put(url)
        .auth('alice', writer)
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('tool\n'))
        .expect(201);
      expect((await t.http().get(url).auth('alice', repoKey)).status).toBe(403);
      const reader = await keyOf(alice, ['read:package']);
      const downloaded = await t.http().get(url).auth('alice', reader).buffer(true);
      expect(downloaded.status).toBe(200);
      expect(Buffer.from(downloaded.body as Buffer).toString()).toBe('tool\n');
    });

    it('the npm registry refuses a key without a package scope to read or publish', async () => {
      const key = await keyOf(alice, ['read:user']);
      const read = await t
        .http()
        .get('/api/packages/alice/npm/left-pad')
        .set('Authorization', `Bearer ${key}`);
      expect(read.status).toBe(403);
      expect(read.body.error).toContain('required=[read:package]');
      const publish = await t
        .http()
        .put('/api/packages/alice/npm/left-pad')
        .set('Authorization', `Bearer ${key}`)
        .send({ name: 'left-pad', versions: {} });
      expect(publish.status).toBe(403);
      const whoami = await t
        .http()
        .get('/api/packages/alice/npm/-/whoami')
        .set('Authorization', `Bearer ${await keyOf(alice, ['read:package'])}`);
      expect(whoami.status).toBe(200);
    });
  });

  describe('AI gateway CONNECT proxy', () => {
    function connectStatus(token: string): Promise<number> {
      const port = t.app.get(ConnectProxyService).address()!.port;
      return new Promise((resolve, reject) => {
        const socket = netConnect(port, '127.0.0.1');
        let buffered = '';
        socket.setEncoding('latin1');
        socket.on('error', reject);
        socket.on('data', (chunk: string) => {
          buffered += chunk;
          if (!buffered.includes('\r\n')) return;
          socket.destroy();
          resolve(Number(buffered.split(' ')[1]));
        });
        const target = `127.0.0.2:${echoPort}`;
        socket.write(
          `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nProxy-Authorization: Bearer ${token}\r\n\r\n`,
        );
      });
    }

    it('refuses a key without aibridge_interception:create (403) and opens the tunnel with it', async () => {
      expect(await connectStatus(await keyOf(alice, ['user:read']))).toBe(403);
      expect(await connectStatus(await keyOf(alice, ['read:repository']))).toBe(403);
      expect(await connectStatus(await keyOf(alice, ['aibridge_interception:create']))).toBe(200);
      expect(await connectStatus(await keyOf(alice, ['coder:all']))).toBe(200);
    });
  });
});
