import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { OrganizationsService } from '../../src/modules/identity/organizations.service';
import type { CreatedUser } from '../helpers/factories';
import { bearer, check, notifyRule, ocs, WF } from '../workflows/helpers';
import { createTestApp, freePort, type TestApp } from '../helpers/test-app';

const NPM_CLI = path.join(__dirname, '..', '..', 'node_modules', 'npm', 'bin', 'npm-cli.js');

interface NpmResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real npm client in its own directory, with its own .npmrc, cache and HOME. */
function npm(cwd: string, args: string[]): Promise<NpmResult> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), Number(process.env.NPM_TIMEOUT_MS ?? 45_000));
    const child = spawn(process.execPath, [NPM_CLI, ...args], {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: cwd,
        npm_config_userconfig: path.join(cwd, '.npmrc'),
        npm_config_cache: path.join(cwd, '.npm-cache'),
        npm_config_update_notifier: 'false',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_loglevel: process.env.NPM_LOGLEVEL ?? 'warn',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the npm registry with the real npm client', () => {
  let t: TestApp;
  let base: string;
  let alice: CreatedUser;
  let bob: CreatedUser;

  const registry = (owner = 'alice') => `${base}/api/packages/${owner}/npm/`;

  /** A directory with an .npmrc pointing at `owner`'s registry, with `token` (if any). */
  async function project(token: string | null, owner = 'alice', scope?: string): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'devplane-npm-'));
    const url = new URL(registry(owner));
    const lines = [`registry=${registry(owner)}`];
    if (scope) lines.push(`@${scope}:registry=${registry(owner)}`);
    if (token) lines.push(`//${url.host}${url.pathname}:_authToken=${token}`);
    await writeFile(path.join(dir, '.npmrc'), `${lines.join('\n')}\n`);
    return dir;
  }

  async function packageDir(
    token: string | null,
    manifest: Record<string, unknown>,
    owner = 'alice',
  ): Promise<string> {
    const name = String(manifest.name);
    const dir = await project(
      token,
      owner,
      name.startsWith('@') ? name.slice(1, name.indexOf('/')) : undefined,
    );
    await writeFile(
      path.join(dir, 'package.json'),
      JSON.stringify(
        { description: `the ${name} package`, main: 'index.js', license: 'MIT', ...manifest },
        null,
        2,
      ),
    );
    await writeFile(
      path.join(dir, 'index.js'),
      `module.exports = ${JSON.stringify(`${name}@${String(manifest.version)}`)};\n`,
    );
    return dir;
  }

  async function publish(
    manifest: Record<string, unknown>,
    token: string | null = alice.token,
    owner = 'alice',
    extra: string[] = [],
  ): Promise<NpmResult> {
    return npm(await packageDir(token, manifest, owner), ['publish', ...extra]);
  }

  beforeAll(async () => {
    // Tarball URLs in packuments are absolute under PUBLIC_URL (Gitea's AppURL): it must be where we listen.
    const port = await freePort();
    t = await createTestApp({ env: { PUBLIC_URL: `http://127.0.0.1:${port}/` } });
    base = await t.listen(port);
    alice = await t.factories.user({ username: 'alice' });
    bob = await t.factories.user({ username: 'bob' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('publishes with npm, serves the packument with integrity and installs into an empty project', async () => {
    const published = await publish({ name: 'leaf', version: '1.0.0' });
    expect(published).toMatchObject({ code: 0 });
    const doc = await t.http().get('/api/packages/alice/npm/leaf');
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({
      name: 'leaf',
      'dist-tags': { latest: '1.0.0' },
      description: 'the leaf package',
    });
    const dist = doc.body.versions['1.0.0'].dist;
    expect(dist.tarball).toBe(`${t.config.publicUrl}api/packages/alice/npm/leaf/-/1.0.0/leaf-1.0.0.tgz`);
    const tarball = await t
      .http()
      .get('/api/packages/alice/npm/leaf/-/1.0.0/leaf-1.0.0.tgz')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(tarball.status).toBe(200);
    expect(dist.integrity).toBe(
      `sha512-${createHash('sha512')
        .update(tarball.body as Buffer)
        .digest('base64')}`,
    );
    expect(dist.shasum).toBe(
      createHash('sha1')
        .update(tarball.body as Buffer)
        .digest('hex'),
    );
    expect(doc.body.time['1.0.0']).toEqual(expect.any(String));
    const abbreviated = await t
      .http()
      .get('/api/packages/alice/npm/leaf')
      .set('Accept', 'application/vnd.npm.install-v1+json');
    expect(abbreviated.headers['content-type']).toContain('application/vnd.npm.install-v1+json');
    expect(Object.keys(abbreviated.body.versions['1.0.0']).sort()).toEqual([
      'dist',
      'license',
      'name',
      'version',
    ]);

    const consumer = await project(null);
    await writeFile(
      path.join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '0.0.0', private: true }),
    );
    const install = await npm(consumer, ['install', 'leaf']);
    expect(install).toEqual({ code: 0, stdout: expect.any(String), stderr: expect.any(String) });
    expect(await readFile(path.join(consumer, 'node_modules', 'leaf', 'index.js'), 'utf8')).toContain(
      'leaf@1.0.0',
    );
    const lock = JSON.parse(await readFile(path.join(consumer, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { integrity: string }>;
    };
    expect(lock.packages['node_modules/leaf']!.integrity).toBe(dist.integrity);
  });

  it('installs a dependency tree of three of our packages', async () => {
    expect((await publish({ name: 'middle', version: '1.0.0', dependencies: { leaf: '^1.0.0' } })).code).toBe(
      0,
    );
    expect((await publish({ name: 'top', version: '2.0.0', dependencies: { middle: '1.0.0' } })).code).toBe(
      0,
    );
    const consumer = await project(null);
    await writeFile(
      path.join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '0.0.0', private: true, dependencies: { top: '^2.0.0' } }),
    );
    const install = await npm(consumer, ['install']);
    expect(install).toMatchObject({ code: 0 });
    for (const name of ['top', 'middle', 'leaf'])
      expect(existsSync(path.join(consumer, 'node_modules', name, 'index.js'))).toBe(true);
  });

  it('refuses a second publish of a version (400), anonymous publishes (401) and another owner (401)', async () => {
    const again = await publish({ name: 'leaf', version: '1.0.0' });
    expect(again.code).not.toBe(0);
    // npm words a refused re-publish its own way (the registry answered 400 `package version already exists`).
    expect(again.stderr).toMatch(/previously published versions: 1\.0\.0|package version already exists/);
    const anonymous = await publish({ name: 'anon', version: '1.0.0' }, null);
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/E401|ENEEDAUTH/);
    const intruder = await publish({ name: 'intruder', version: '1.0.0' }, bob.token);
    expect(intruder.code).not.toBe(0);
    expect(intruder.stderr).toContain('401');
    expect((await t.http().get('/api/packages/alice/npm/intruder')).status).toBe(404);
    const narrow = await t.factories.token(alice.user, { scopes: ['read:package'] });
    const readOnly = await publish({ name: 'narrow', version: '1.0.0' }, narrow);
    expect(readOnly.code).not.toBe(0);
    expect(readOnly.stderr).toContain('403');
  });

  it('refuses a tarball whose integrity does not match (400) and stores nothing', async () => {
    const data = Buffer.from('not really a tarball');
    const res = await t
      .http()
      .put('/api/packages/alice/npm/bad')
      .set('Authorization', `Bearer ${alice.token}`)
      .send({
        _id: 'bad',
        name: 'bad',
        'dist-tags': { latest: '1.0.0' },
        versions: {
          '1.0.0': {
            name: 'bad',
            version: '1.0.0',
            dist: {
              integrity: `sha512-${createHash('sha512').update('other').digest('base64')}`,
              shasum: 'x',
            },
          },
        },
        _attachments: {
          'bad-1.0.0.tgz': {
            content_type: 'application/octet-stream',
            data: data.toString('base64'),
            length: data.length,
          },
        },
      });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('integrity mismatch');
    expect((await t.http().get('/api/packages/alice/npm/bad')).status).toBe(404);
    const badName = await t
      .http()
      .put('/api/packages/alice/npm/Bad')
      .set('Authorization', `Bearer ${alice.token}`)
      .send({ name: 'Bad', versions: {}, _attachments: { x: {} } });
    expect(badName.status).toBe(400);
    expect(badName.body.error).toBe('invalid package name');
  });

  it('manages dist-tags, deprecations and whoami with npm', async () => {
    expect(
      (await publish({ name: 'leaf', version: '1.1.0-beta.1' }, alice.token, 'alice', ['--tag', 'beta']))
        .code,
    ).toBe(0);
    // Packuments are served from a cache of their text: every write below must show in the next read.
    const abbreviatedTags = async () =>
      (
        await t
          .http()
          .get('/api/packages/alice/npm/leaf')
          .set('Accept', 'application/vnd.npm.install-v1+json')
      ).body['dist-tags'] as Record<string, string>;
    expect(await abbreviatedTags()).toEqual({ latest: '1.0.0', beta: '1.1.0-beta.1' });
    const dir = await project(alice.token);
    const ls = await npm(dir, ['dist-tag', 'ls', 'leaf']);
    expect(ls.stdout).toContain('beta: 1.1.0-beta.1');
    expect(ls.stdout).toContain('latest: 1.0.0');
    expect((await npm(dir, ['dist-tag', 'add', 'leaf@1.0.0', 'stable'])).code).toBe(0);
    expect((await npm(dir, ['dist-tag', 'rm', 'leaf', 'beta'])).code).toBe(0);
    const tags = await t.http().get('/api/packages/alice/npm/-/package/leaf/dist-tags');
    expect(tags.body).toEqual({ latest: '1.0.0', stable: '1.0.0' });
    expect(await abbreviatedTags()).toEqual({ latest: '1.0.0', stable: '1.0.0' });
    const before = await t.http().get('/api/packages/alice/npm/leaf');
    expect(before.headers.etag).toMatch(/^W\/"[0-9a-f]+-/);
    expect(
      (await t.http().get('/api/packages/alice/npm/leaf').set('If-None-Match', before.headers.etag!)).status,
    ).toBe(304);
    expect((await npm(dir, ['deprecate', 'leaf@1.0.0', 'use 2.x'])).code).toBe(0);
    const after = await t
      .http()
      .get('/api/packages/alice/npm/leaf')
      .set('If-None-Match', before.headers.etag!);
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body.versions['1.0.0'].deprecated).toBe('use 2.x');
    const whoami = await npm(dir, ['whoami']);
    expect(whoami.stdout.trim()).toBe('alice');
  });

  it('publishes and installs a scoped package', async () => {
    expect((await publish({ name: '@alice/util', version: '0.1.0' })).code).toBe(0);
    const doc = await t.http().get('/api/packages/alice/npm/@alice%2futil');
    expect(doc.status).toBe(200);
    expect(doc.body.versions['0.1.0'].dist.tarball).toContain(
      '/api/packages/alice/npm/@alice%2futil/-/0.1.0/util-0.1.0.tgz',
    );
    const consumer = await project(null, 'alice', 'alice');
    await writeFile(
      path.join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '0.0.0', private: true }),
    );
    expect((await npm(consumer, ['install', '@alice/util'])).code).toBe(0);
    expect(existsSync(path.join(consumer, 'node_modules', '@alice', 'util', 'index.js'))).toBe(true);
  });

  it('unpublishes a version, then the whole package', async () => {
    expect((await publish({ name: 'gone', version: '1.0.0' })).code).toBe(0);
    expect((await publish({ name: 'gone', version: '1.0.1' })).code).toBe(0);
    const dir = await project(alice.token);
    const one = await npm(dir, ['unpublish', 'gone@1.0.1']);
    expect(one).toMatchObject({ code: 0 });
    expect(Object.keys((await t.http().get('/api/packages/alice/npm/gone')).body.versions)).toEqual([
      '1.0.0',
    ]);
    expect((await t.http().get('/api/packages/alice/npm/gone/-/1.0.1/gone-1.0.1.tgz')).status).toBe(404);
    const all = await npm(dir, ['unpublish', 'gone', '--force']);
    expect(all).toMatchObject({ code: 0 });
    expect((await t.http().get('/api/packages/alice/npm/gone')).status).toBe(404);
  });

  it("searches an owner's packages", async () => {
    const res = await t.http().get('/api/packages/alice/npm/-/v1/search?text=lea&size=5');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    expect(res.body.objects[0].package).toMatchObject({ name: 'leaf', version: '1.0.0' });
    const dir = await project(null);
    await mkdir(path.join(dir, 'x'), { recursive: true });
    const search = await npm(dir, ['search', 'middle', '--json']);
    expect(JSON.parse(search.stdout)).toEqual([expect.objectContaining({ name: 'middle' })]);
  });

  it('deduplicates tarballs by content across versions and owners', async () => {
    const rows = (await t.dataSource.query(
      'SELECT COUNT(*)::int AS files, COUNT(DISTINCT blob_id)::int AS blobs FROM package_files',
    )) as { files: number; blobs: number }[];
    expect(rows[0]!.blobs).toBeLessThanOrEqual(rows[0]!.files);
    const generic = (content: string, version: string) =>
      t
        .http()
        .put(`/api/packages/alice/generic/dedupe/${version}/file.bin`)
        .set('Authorization', `token ${alice.token}`)
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from(content));
    expect((await generic('same bytes', '1')).status).toBe(201);
    expect((await generic('same bytes', '2')).status).toBe(201);
    const blobs = (await t.dataSource.query(
      "SELECT DISTINCT f.blob_id FROM package_files f JOIN package_versions v ON v.id = f.version_id JOIN packages p ON p.id = v.package_id WHERE p.name = 'dedupe'",
    )) as unknown[];
    expect(blobs).toHaveLength(1);
  });

  it('stores every digest of a published tarball at once (no digest job)', async () => {
    const tarballs = (await t.dataSource.query(
      "SELECT b.id, b.md5, b.sha1, b.sha512 FROM package_blobs b JOIN package_files f ON f.blob_id = b.id JOIN package_versions v ON v.id = f.version_id JOIN packages p ON p.id = v.package_id WHERE p.type = 'npm'",
    )) as { id: string; md5: string | null; sha1: string | null; sha512: string | null }[];
    expect(tarballs.length).toBeGreaterThan(0);
    for (const blob of tarballs) {
      expect(blob.md5).toMatch(/^[0-9a-f]{32}$/);
      expect(blob.sha1).toMatch(/^[0-9a-f]{40}$/);
      expect(blob.sha512).toMatch(/^[0-9a-f]{128}$/);
    }
    const jobs = (await t.dataSource.query(
      "SELECT payload->>'blobId' AS blob_id FROM jobs WHERE type = 'packages.blob-digests'",
    )) as { blob_id: string }[];
    const tarballIds = new Set(tarballs.map((b) => String(b.id)));
    expect(jobs.filter((j) => tarballIds.has(j.blob_id))).toEqual([]);
  });

  it("notifies an organization's owners through their workflow rule when a package is published there", async () => {
    const org = await t.factories.organization('widgets', alice.user.id);
    // bob publishes (an owner is not notified of their own action): a member of a team that writes packages.
    const organizations = t.app.get(OrganizationsService);
    await organizations.addMember(org.id, bob.user.id);
    const team = await organizations.createTeam(org.id, 'publishers', 'write');
    await organizations.addTeamMember(team.id, bob.user.id);
    const notified: { subject?: string }[] = [];
    const listener = (payload: { subject?: string }) => notified.push(payload);
    t.app.get(EventEmitter2).on('workflow.notify_owner', listener);
    try {
      const rule = await ocs(
        t,
        'post',
        `${WF}/user`,
        bearer(alice.token),
        notifyRule({
          entity: 'OCA\\Devplane\\Entity\\Package',
          events: ['OCA\\Devplane\\Events\\PackagePublishedEvent'],
          checks: [check('RequestUserAgent', 'matches', '/^npm\\//')],
        }),
      );
      expect(rule.status).toBe(200);
      expect((await publish({ name: 'gadget', version: '1.0.0' }, bob.token, 'widgets')).code).toBe(0);
      for (let i = 0; i < 30 && notified.length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(notified.map((n) => n.subject)).toEqual([expect.stringContaining('gadget')]);
    } finally {
      t.app.get(EventEmitter2).off('workflow.notify_owner', listener);
    }
  });
});
