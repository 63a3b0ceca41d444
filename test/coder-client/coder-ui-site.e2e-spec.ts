import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/platform/config/app-config';
import { siteDirFromEnv } from '../../src/platform/http/site-directory';
import { createTestApp, type TestApp } from '../helpers/test-app';

const INDEX = `<!DOCTYPE html><head>
<meta property="csp-nonce" content="{{ .CSP.Nonce }}" />
<meta property="csrf-token" content="{{ .CSRF.Token }}" />
<meta property="user" content="{{ .User }}" />
<meta property="build-info" content="{{ .BuildInfo }}" />
<meta property="entitlements" content="{{ .Entitlements }}" />
</head><body><div id="root"></div><script type="module" src="/assets/index-Cx1a2b3c.js"></script></body>`;

function cookieValue(setCookie: string[] | string | undefined, name: string): string | undefined {
  return ([] as string[])
    .concat(setCookie ?? [])
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);
}

/** SITE_DIR (issue 48 item 2): a built Coder-compatible site served at `/`, as Coder's server serves it. */
describe("Coder's web UI: SITE_DIR", () => {
  let t: TestApp;
  let dir: string;
  const outside = mkdtempSync(path.join(os.tmpdir(), 'site-outside-'));

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'site-'));
    mkdirSync(path.join(dir, 'assets'));
    mkdirSync(path.join(dir, 'favicons'));
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    writeFileSync(path.join(dir, 'assets', 'index-Cx1a2b3c.js'), 'console.log("app");');
    writeFileSync(path.join(dir, 'favicons', 'favicon.svg'), '<svg/>');
    writeFileSync(path.join(dir, 'service-worker.js'), '// worker');
    writeFileSync(
      path.join(dir, 'terminal.html'),
      '<meta property="csrf-token" content="{{ .CSRF.Token }}" />',
    );
    writeFileSync(path.join(dir, '.env'), 'SECRET=1');
    writeFileSync(path.join(outside, 'secret.txt'), 'outside');
    symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'leak.txt'));
    t = await createTestApp({ env: { SITE_DIR: dir } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('GET / renders index.html: CSRF cookie set and its token in the meta, other fields empty, never cached', async () => {
    const res = await t.http().get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache, private');
    const token = cookieValue(res.headers['set-cookie'], 'csrf_token');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.text).toContain(`<meta property="csrf-token" content="${token}" />`);
    expect(res.text).toContain('<meta property="user" content="" />');
    expect(res.text).toContain('<meta property="build-info" content="" />');
    expect(res.text).not.toContain('{{');
  });

  it('the page keeps an existing CSRF cookie, and sign-in keeps it too', async () => {
    const first = await t.http().get('/workspaces');
    const token = cookieValue(first.headers['set-cookie'], 'csrf_token')!;
    const again = await t.http().get('/login').set('Cookie', `csrf_token=${token}`);
    expect(again.text).toContain(`content="${token}"`);
    expect(cookieValue(again.headers['set-cookie'], 'csrf_token')).toBe(token);
    const login = await t
      .http()
      .post('/api/v2/users/login')
      .set('Cookie', `csrf_token=${token}`)
      .send({ email: 'admin@example.com', password: 'Bootstrap-Admin-Password-1' });
    expect(login.status).toBe(201);
    expect(cookieValue(login.headers['set-cookie'], 'csrf_token')).toBe(token);
  });

  it('SPA fallback: page paths (any depth, dots in names) get index.html', async () => {
    for (const page of [
      '/workspaces',
      '/@admin/my-ws',
      '/templates/docker/versions/v1.2.3',
      '/deployment/general',
    ]) {
      const res = await t.http().get(page);
      expect(res.status).toBe(200);
      expect(res.text).toContain('<div id="root">');
    }
  });

  it('hashed assets are immutable; html and workers are not cached for long', async () => {
    const asset = await t.http().get('/assets/index-Cx1a2b3c.js');
    expect(asset.status).toBe(200);
    expect(asset.text).toBe('console.log("app");');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await t.http().get('/favicons/favicon.svg');
    expect(icon.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const worker = await t.http().get('/service-worker.js');
    expect(worker.status).toBe(200);
    expect(worker.headers['cache-control']).toBe('no-cache');
  });

  it('other html files are templates too, reachable without the extension', async () => {
    const res = await t.http().get('/terminal');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/content="[A-Za-z0-9_-]{43}"/);
  });

  it('a missing asset is 404, not the page', async () => {
    expect((await t.http().get('/assets/missing-abc.js')).status).toBe(404);
    expect((await t.http().get('/icon/missing.svg')).status).toBe(404);
  });

  it('dot files and links out of the directory are never served', async () => {
    const env = await t.http().get('/.env');
    expect(env.text).not.toContain('SECRET');
    const leak = await t.http().get('/leak.txt');
    expect(leak.text).not.toContain('outside');
    const traversal = await t.http().get('/assets/..%2f..%2fetc%2fpasswd');
    expect(traversal.text).not.toContain('root:');
  });

  it('does not shadow the API, git, docs or health routes, nor their 404s', async () => {
    expect((await t.http().get('/api/v2/buildinfo')).body.version).toMatch(/^v/);
    const unknownApi = await t.http().get('/api/v2/no-such-route');
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.headers['content-type']).toMatch(/json/);
    expect((await t.http().get('/healthz')).status).toBe(200);
    const git = await t.http().get('/admin/nothing.git/info/refs?service=git-upload-pack');
    expect(git.text).not.toContain('<div id="root">');
    expect((await t.http().get('/admin/nothing.git')).text).not.toContain('<div id="root">');
    expect((await t.http().get('/docs-json')).headers['content-type']).toMatch(/json/);
  });

  it('other methods are not answered by the site', async () => {
    expect((await t.http().post('/workspaces')).status).toBe(404);
  });

  it('SITE_DIR without index.html stops the start with a clear message; unset keeps the landing page', () => {
    expect(() => siteDirFromEnv({ SITE_DIR: outside })).toThrow(
      /SITE_DIR must be a directory holding index.html/,
    );
    expect(siteDirFromEnv({})).toBeUndefined();
    expect(loadConfig({ SITE_DIR: dir }).env.SITE_DIR).toBe(dir);
  });
});

describe('without SITE_DIR', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('the landing page stays and page paths are 404', async () => {
    const res = await t.http().get('/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>devplane');
    expect((await t.http().get('/workspaces')).status).toBe(404);
  });
});
