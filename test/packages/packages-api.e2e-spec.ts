import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';
import { BLOB_DIGESTS_JOB } from '../../src/modules/packages/package-blobs.service';
import { JobQueue } from '../../src/platform/jobs/job-queue.service';
import { BlobStore } from '../../src/platform/storage/blob-store';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const GENERIC = '/api/packages/alice/generic';

const drivers: {
  name: string;
  env: () => Promise<{ env: Record<string, string>; close: () => Promise<void> }>;
}[] = [
  { name: 'local', env: async () => ({ env: {}, close: async () => undefined }) },
  {
    name: 's3',
    env: async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'devplane-s3-'));
      const server = new S3rver({
        port: 0,
        address: '127.0.0.1',
        directory: dir,
        silent: true,
        configureBuckets: [{ name: 'packages', configs: [] }],
      });
      const { port } = (await server.run()) as AddressInfo;
      return {
        env: {
          STORAGE_TYPE: 's3',
          S3_ENDPOINT: `http://127.0.0.1:${port}`,
          S3_BUCKET: 'packages',
          S3_ACCESS_KEY: 'S3RVER',
          S3_SECRET_KEY: 'S3RVER',
        },
        close: async () => {
          await server.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

describe.each(drivers)('packages: generic registry and management API ($name blob store)', (driver) => {
  let t: TestApp;
  let closeDriver: () => Promise<void>;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let admin: CreatedUser;
  const tok = (who: CreatedUser | string) => ({
    Authorization: `token ${typeof who === 'string' ? who : who.token}`,
  });
  const put = (url: string, body: string | Buffer, who: CreatedUser | string | null = alice) => {
    const req = t.http().put(url).set('Content-Type', 'application/octet-stream');
    return (who ? req.set(tok(who)) : req).send(Buffer.from(body));
  };

  beforeAll(async () => {
    const configured = await driver.env();
    closeDriver = configured.close;
    t = await createTestApp({ env: configured.env });
    alice = await t.factories.user({ username: 'alice' });
    bob = await t.factories.user({ username: 'bob' });
    admin = await t.factories.admin({ username: 'siteadmin' });
  });
  afterAll(async () => {
    await t.close();
    await closeDriver();
  });

  describe('generic registry', () => {
    it('uploads (201), downloads with length, range and ETag, and refuses a second file of the same name (409)', async () => {
      expect((await put(`${GENERIC}/tool/1.0.0/tool.bin`, 'hello generic')).status).toBe(201);
      expect((await put(`${GENERIC}/tool/1.0.0/tool.bin`, 'other')).status).toBe(409);
      expect((await put(`${GENERIC}/tool/1.0.0/notes.txt`, 'second file')).status).toBe(201);
      const got = await t.http().get(`${GENERIC}/tool/1.0.0/tool.bin`);
      expect(got.status).toBe(200);
      expect(got.headers['content-length']).toBe('13');
      expect(Buffer.from(got.body as Buffer).toString()).toBe('hello generic');
      expect(got.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
      const range = await t.http().get(`${GENERIC}/tool/1.0.0/tool.bin`).set('Range', 'bytes=6-12');
      expect(range.status).toBe(206);
      expect(Buffer.from(range.body as Buffer).toString()).toBe('generic');
      expect((await t.http().head(`${GENERIC}/tool/1.0.0/tool.bin`)).status).toBe(200);
      expect((await t.http().get(`${GENERIC}/tool/1.0.0/missing.bin`)).status).toBe(404);
      expect((await t.http().get(`${GENERIC}/tool/9.9.9/tool.bin`)).status).toBe(404);
      // The counter is written after the response (it does not hold the client): wait for it.
      const count = async () =>
        (
          (await t.dataSource.query(
            "SELECT v.download_count FROM package_versions v JOIN packages p ON p.id = v.package_id WHERE p.name = 'tool'",
          )) as { download_count: string }[]
        )[0]!.download_count;
      for (let i = 0; i < 20 && (await count()) !== '2'; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await count()).toBe('2');
    });

    it('accepts a multipart upload', async () => {
      const res = await t
        .http()
        .put(`${GENERIC}/tool/1.0.1/form.txt`)
        .set(tok(alice))
        .attach('file', Buffer.from('from a form'), 'form.txt');
      expect(res.status).toBe(201);
      expect(
        Buffer.from((await t.http().get(`${GENERIC}/tool/1.0.1/form.txt`)).body as Buffer).toString(),
      ).toBe('from a form');
    });

    it.each([
      ['a name with a slash-like character', `${GENERIC}/bad%24name/1.0.0/f.bin`, 'invalid package name'],
      ['a one-character name that is not alphanumeric', `${GENERIC}/_/1.0.0/f.bin`, 'invalid package name'],
      ['a version with surrounding whitespace', `${GENERIC}/tool/%201.0/f.bin`, 'invalid package version'],
      ['a file name with a forbidden character', `${GENERIC}/tool/1.0.2/bad%3Cname`, 'invalid filename'],
      ['a file name with surrounding whitespace', `${GENERIC}/tool/1.0.2/%20f.bin`, 'invalid filename'],
    ])('refuses %s (400, plain text)', async (_case, url, message) => {
      const res = await put(url, 'x');
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toContain('text/plain');
      expect(res.text.split('\n')[0]).toBe(message);
    });

    it('allows spaces inside a version', async () => {
      expect((await put(`${GENERIC}/tool/1.0.3-te%20st/f.bin`, 'x')).status).toBe(201);
    });

    it('answers access failures with 401 and a Basic challenge', async () => {
      const anonymous = await put(`${GENERIC}/tool/2.0.0/f.bin`, 'x', null);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toMatch(/^Basic realm=/);
      const intruder = await put(`${GENERIC}/tool/2.0.0/f.bin`, 'x', bob);
      expect(intruder.status).toBe(401);
      expect((await t.http().delete(`${GENERIC}/tool/1.0.0`).set(tok(bob))).status).toBe(401);
      const narrow = await t.factories.token(alice.user, { scopes: ['read:package'] });
      expect((await put(`${GENERIC}/tool/2.0.0/f.bin`, 'x', narrow)).status).toBe(403);
      expect((await put(`${GENERIC}/tool/2.0.0/f.bin`, 'x', admin)).status).toBe(201);
      expect((await put('/api/packages/nobody/generic/tool/1.0.0/f.bin', 'x')).status).toBe(404);
    });

    it('deletes files (the last one takes the version) and versions, collecting unused blobs', async () => {
      expect((await put(`${GENERIC}/temp/1.0.0/a.bin`, 'only here: a')).status).toBe(201);
      expect((await put(`${GENERIC}/temp/1.0.0/b.bin`, 'only here: b')).status).toBe(201);
      const keys = (await t.dataSource.query(
        "SELECT b.blob_key FROM package_blobs b JOIN package_files f ON f.blob_id = b.id JOIN package_versions v ON v.id = f.version_id JOIN packages p ON p.id = v.package_id WHERE p.name = 'temp' ORDER BY f.name",
      )) as { blob_key: string }[];
      expect((await t.http().delete(`${GENERIC}/temp/1.0.0/a.bin`).set(tok(alice))).status).toBe(204);
      expect((await t.http().get(`${GENERIC}/temp/1.0.0/b.bin`)).status).toBe(200);
      expect((await t.http().delete(`${GENERIC}/temp/1.0.0/b.bin`).set(tok(alice))).status).toBe(204);
      expect((await t.http().get(`${GENERIC}/temp/1.0.0/b.bin`)).status).toBe(404);
      expect((await t.http().delete(`${GENERIC}/temp/1.0.0`).set(tok(alice))).status).toBe(404);
      for (const { blob_key } of keys) {
        for (let i = 0; i < 50 && (await t.app.get(BlobStore).stat(blob_key)); i++)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect(await t.app.get(BlobStore).stat(blob_key)).toBeNull();
      }
      expect((await put(`${GENERIC}/temp/2.0.0/c.bin`, 'c')).status).toBe(201);
      expect((await t.http().delete(`${GENERIC}/temp/2.0.0`).set(tok(alice))).status).toBe(204);
      expect((await t.http().delete(`${GENERIC}/temp/2.0.0/c.bin`).set(tok(alice))).status).toBe(404);
    });
  });

  describe('digests after the answer', () => {
    // Larger than one hash batch (1 MiB): the job and on-demand reads hash in the store's worker threads.
    const data = randomBytes(1536 * 1024 + 7);
    const expected = Object.fromEntries(
      (['md5', 'sha1', 'sha256', 'sha512'] as const).map((a) => [
        a,
        createHash(a).update(data).digest('hex'),
      ]),
    );
    const blobRows = async (name: string) =>
      (await t.dataSource.query(
        `SELECT DISTINCT b.id, b.md5, b.sha1, b.sha256, b.sha512 FROM package_blobs b
           JOIN package_files f ON f.blob_id = b.id JOIN package_versions v ON v.id = f.version_id
           JOIN packages p ON p.id = v.package_id WHERE p.name = $1`,
        [name],
      )) as { id: string; md5: string | null; sha1: string | null; sha256: string; sha512: string | null }[];
    const fileList = async (name: string, version: string) =>
      (await t.http().get(`/api/v1/packages/alice/generic/${name}/${version}/files`).set(tok(alice)))
        .body as {
        name: string;
        size: number;
        md5: string;
        sha1: string;
        sha256: string;
        sha512: string;
      }[];

    it('stores one blob per content (SHA-256) and fills md5, sha1 and sha512 by the job after the answer', async () => {
      expect((await put(`${GENERIC}/digested/1.0.0/a.bin`, data)).status).toBe(201);
      expect((await put(`${GENERIC}/digested/1.0.0/b.bin`, data)).status).toBe(201);
      expect((await put(`${GENERIC}/digested/2.0.0/c.bin`, data)).status).toBe(201);
      const before = await blobRows('digested');
      expect(before).toHaveLength(1); // identical content: one blob for the three files
      expect(before[0]!.sha256).toBe(expected.sha256);
      await t.app.get(JobQueue).drain({ types: [BLOB_DIGESTS_JOB] });
      const after = await blobRows('digested');
      expect(after[0]).toMatchObject({ md5: expected.md5, sha1: expected.sha1, sha512: expected.sha512 });
      const done = (await t.dataSource.query(
        "SELECT status FROM jobs WHERE type = $1 AND payload->>'blobId' = $2",
        [BLOB_DIGESTS_JOB, String(after[0]!.id)],
      )) as { status: string }[];
      expect(done).toEqual([{ status: 'succeeded' }]); // one job for the one blob
      expect(await fileList('digested', '1.0.0')).toEqual([
        { id: expect.any(Number), size: data.length, name: 'a.bin', ...expected },
        { id: expect.any(Number), size: data.length, name: 'b.bin', ...expected },
      ]);
    });

    it('computes missing digests when a reader needs them before the job ran, and stores them', async () => {
      const [blob] = await blobRows('digested');
      // As if the job had not run yet.
      await t.dataSource.query(
        'UPDATE package_blobs SET md5 = NULL, sha1 = NULL, sha512 = NULL WHERE id = $1',
        [blob!.id],
      );
      expect(await fileList('digested', '2.0.0')).toEqual([
        { id: expect.any(Number), size: data.length, name: 'c.bin', ...expected },
      ]);
      expect((await blobRows('digested'))[0]).toMatchObject({
        md5: expected.md5,
        sha1: expected.sha1,
        sha512: expected.sha512,
      });
    });

    it('runs the digest job for a blob collected meanwhile as a no-op', async () => {
      await t.dataSource.transaction((manager) =>
        t.app.get(JobQueue).enqueue(manager, BLOB_DIGESTS_JOB, { blobId: '999999999' }),
      );
      await t.app.get(JobQueue).drain({ types: [BLOB_DIGESTS_JOB] });
      const jobs = (await t.dataSource.query(
        "SELECT status FROM jobs WHERE type = $1 AND payload->>'blobId' = '999999999'",
        [BLOB_DIGESTS_JOB],
      )) as { status: string }[];
      expect(jobs).toEqual([{ status: 'succeeded' }]);
    });
  });

  describe('management API', () => {
    beforeAll(async () => {
      for (const version of ['1.0.0', '1.1.0'])
        expect((await put(`${GENERIC}/managed/${version}/m.bin`, `managed ${version}`)).status).toBe(201);
      expect((await put(`${GENERIC}/other-thing/0.1.0/o.bin`, 'o')).status).toBe(201);
    });

    it('lists one entry per version, newest first, with type and q filters and paging', async () => {
      const all = await t.http().get('/api/v1/packages/alice').set(tok(alice));
      expect(all.status).toBe(200);
      expect(all.body[0]).toMatchObject({
        type: 'generic',
        name: 'other-thing',
        version: '0.1.0',
        owner: { login: 'alice' },
        creator: { login: 'alice' },
        repository: null,
      });
      expect(all.body[0].html_url).toBe(`${t.config.publicUrl}alice/-/packages/generic/other-thing/0.1.0`);
      expect(Number(all.headers['x-total-count'])).toBe(all.body.length);
      const q = await t.http().get('/api/v1/packages/alice?q=MANAGED&type=generic').set(tok(bob));
      expect(q.body.map((p: { version: string }) => p.version)).toEqual(['1.1.0', '1.0.0']);
      expect((await t.http().get('/api/v1/packages/alice?type=npm').set(tok(alice))).body).toEqual([]);
      expect(
        (await t.http().get('/api/v1/packages/alice?type=all&limit=1').set(tok(alice))).body,
      ).toHaveLength(1);
      const badType = await t.http().get('/api/v1/packages/alice?type=bogus').set(tok(alice));
      expect(badType.status).toBe(422);
      expect(badType.body.message).toBe('invalid package type "bogus"');
    });

    it('gets versions, a version, its files and the latest', async () => {
      const versions = await t.http().get('/api/v1/packages/alice/generic/managed').set(tok(alice));
      expect(versions.body.map((p: { version: string }) => p.version)).toEqual(['1.1.0', '1.0.0']);
      const one = await t.http().get('/api/v1/packages/alice/generic/managed/1.0.0').set(tok(alice));
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ name: 'managed', version: '1.0.0' });
      const files = await t.http().get('/api/v1/packages/alice/generic/managed/1.0.0/files').set(tok(alice));
      expect(files.body).toEqual([
        {
          id: expect.any(Number),
          size: 13,
          name: 'm.bin',
          md5: expect.stringMatching(/^[0-9a-f]{32}$/),
          sha1: expect.stringMatching(/^[0-9a-f]{40}$/),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
          sha512: expect.stringMatching(/^[0-9a-f]{128}$/),
        },
      ]);
      expect(
        (await t.http().get('/api/v1/packages/alice/generic/managed/-/latest').set(tok(alice))).body.version,
      ).toBe('1.1.0');
      expect(
        (await t.http().get('/api/v1/packages/alice/generic/managed/9.9.9').set(tok(alice))).body.message,
      ).toBe('GetVersionByNameAndVersion: package does not exist');
      expect(
        (await t.http().get('/api/v1/packages/alice/generic/nothing/-/latest').set(tok(alice))).status,
      ).toBe(404);
      expect((await t.http().get('/api/v1/packages/alice/generic/nothing').set(tok(alice))).status).toBe(404);
    });

    it('applies Gitea guard order: 401 without a token, 403 for a narrow token, 404 for an unknown owner, 403 without access', async () => {
      expect((await t.http().get('/api/v1/packages/alice')).status).toBe(401);
      const narrow = await t.factories.token(alice.user, { scopes: ['read:repository'] });
      expect((await t.http().get('/api/v1/packages/alice').set(tok(narrow))).status).toBe(403);
      expect((await t.http().get('/api/v1/packages/nobody').set(tok(alice))).status).toBe(404);
      const org = await t.factories.organization('secretorg', alice.user.id);
      await t.dataSource.query("UPDATE users SET visibility = 'private' WHERE id = $1", [org.id]);
      expect((await t.http().get('/api/v1/packages/secretorg').set(tok(bob))).status).toBe(403);
      expect((await t.http().get('/api/v1/packages/secretorg').set(tok(alice))).status).toBe(200);
      expect(
        (await t.http().delete('/api/v1/packages/alice/generic/managed/1.0.0').set(tok(bob))).status,
      ).toBe(403);
    });

    it('links to a repository of the same owner (201), refuses a second link (400), unlinks (204)', async () => {
      expect((await t.http().post('/api/v1/user/repos').set(tok(alice)).send({ name: 'home' })).status).toBe(
        201,
      );
      expect(
        (await t.http().post('/api/v1/user/repos').set(tok(bob)).send({ name: 'elsewhere' })).status,
      ).toBe(201);
      const link = (repo: string, who = alice) =>
        t.http().post(`/api/v1/packages/alice/generic/managed/-/link/${repo}`).set(tok(who));
      expect((await link('elsewhere')).status).toBe(404);
      expect((await link('missing')).status).toBe(404);
      expect((await link('home', bob)).status).toBe(403);
      const linked = await link('home');
      expect(linked.status).toBe(201);
      expect(linked.text).toBe('');
      expect((await link('home')).status).toBe(400);
      expect(
        (await t.http().get('/api/v1/packages/alice/generic/managed/1.0.0').set(tok(alice))).body.repository,
      ).toMatchObject({ name: 'home', full_name: 'alice/home' });
      const unlink = () => t.http().post('/api/v1/packages/alice/generic/managed/-/unlink').set(tok(alice));
      expect((await unlink()).status).toBe(204);
      expect((await unlink()).status).toBe(400);
      expect(
        (await t.http().post('/api/v1/packages/alice/generic/nothing/-/unlink').set(tok(alice))).status,
      ).toBe(404);
      // Deleting the linked repository unlinks the package (repository.deleted event).
      expect((await link('home')).status).toBe(201);
      expect((await t.http().delete('/api/v1/repos/alice/home').set(tok(alice))).status).toBe(204);
      for (
        let i = 0;
        i < 20 &&
        (
          (await t.dataSource.query("SELECT repository_id FROM packages WHERE name = 'managed'")) as {
            repository_id: string | null;
          }[]
        )[0]!.repository_id;
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(
        (await t.http().get('/api/v1/packages/alice/generic/managed/1.0.0').set(tok(alice))).body.repository,
      ).toBeNull();
      expect(
        (await t.dataSource.query("SELECT repository_id FROM packages WHERE name = 'managed'")) as unknown[],
      ).toEqual([{ repository_id: null }]);
    });

    it('deletes a version (204) and a whole package (204)', async () => {
      expect(
        (await t.http().delete('/api/v1/packages/alice/generic/managed/1.0.0').set(tok(alice))).status,
      ).toBe(204);
      expect(
        (await t.http().get('/api/v1/packages/alice/generic/managed/1.0.0').set(tok(alice))).status,
      ).toBe(404);
      expect((await t.http().delete('/api/v1/packages/alice/generic/managed').set(tok(alice))).status).toBe(
        204,
      );
      expect((await t.http().get('/api/v1/packages/alice/generic/managed').set(tok(alice))).status).toBe(404);
      expect((await t.http().delete('/api/v1/packages/alice/generic/managed').set(tok(alice))).status).toBe(
        404,
      );
    });

    it("hides another owner's packages from the owner list and keeps internal packages out", async () => {
      expect((await put('/api/packages/bob/generic/bobs/1.0.0/b.bin', 'b', bob)).status).toBe(201);
      const aliceList = await t.http().get('/api/v1/packages/alice').set(tok(alice));
      expect(aliceList.body.some((p: { name: string }) => p.name === 'bobs')).toBe(false);
      await t.dataSource.query("UPDATE packages SET is_internal = true WHERE name = 'bobs'");
      expect((await t.http().get('/api/v1/packages/bob').set(tok(bob))).body).toEqual([]);
      expect((await t.http().get('/api/v1/packages/bob/generic/bobs/1.0.0').set(tok(bob))).status).toBe(404);
      await t.dataSource.query("UPDATE packages SET is_internal = false WHERE name = 'bobs'");
    });

    it('keeps an owner with packages from being deleted (422) unless purged', async () => {
      const owner = await t.factories.user({ username: 'carrier' });
      expect((await put('/api/packages/carrier/generic/kept/1.0.0/k.bin', 'k', owner)).status).toBe(201);
      const refused = await t.http().delete('/api/v1/admin/users/carrier').set(tok(admin));
      expect(refused.status).toBe(422);
      expect(refused.body.message).toBe(`user still has ownership of packages [uid: ${owner.user.id}]`);
      expect((await t.http().delete('/api/v1/admin/users/carrier?purge=true').set(tok(admin))).status).toBe(
        204,
      );
      expect(
        (await t.dataSource.query("SELECT 1 FROM packages WHERE name = 'kept'")) as unknown[],
      ).toHaveLength(0);
    });
  });
});
