import { EventEmitter2 } from '@nestjs/event-emitter';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { Attachment } from '../../src/modules/repositories/attachments/attachment.entity';
import { BlobStore } from '../../src/platform/storage/blob-store';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { accessRule, bearer, check, notifyRule, ocs, WF } from '../workflows/helpers';

const RENAMED = 'OCP\\Files\\Events\\Node\\NodeRenamedEvent';
const DELETED = 'OCP\\Files\\Events\\Node\\NodeDeletedEvent';

const MiB = 1024 * 1024;
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f0b6c40000000049454e44ae426082',
  'hex',
);

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

type Driver = {
  name: string;
  env: () => Record<string, string>;
  setup(): Promise<void>;
  teardown(): Promise<void>;
};
let s3: S3rver | undefined;
let s3Dir = '';
let s3Port = 0;
const drivers: Driver[] = [
  { name: 'local', env: () => ({}), setup: async () => undefined, teardown: async () => undefined },
  {
    name: 's3',
    env: () => ({
      STORAGE_TYPE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
      S3_BUCKET: 'attachments',
      S3_ACCESS_KEY: 'S3RVER',
      S3_SECRET_KEY: 'S3RVER',
    }),
    async setup() {
      s3Dir = await mkdtemp(path.join(os.tmpdir(), 'devplane-s3-att-'));
      s3 = new S3rver({
        address: '127.0.0.1',
        port: 0,
        silent: true,
        directory: s3Dir,
        configureBuckets: [{ name: 'attachments', configs: [] }],
      });
      s3Port = ((await s3.run()) as AddressInfo).port;
    },
    async teardown() {
      await s3?.close();
      await rm(s3Dir, { recursive: true, force: true });
    },
  },
];

describe.each(drivers)('attachments ($name blob store)', (driver) => {
  let t: TestApp;
  let base: string;
  let owner: CreatedUser;
  let writer: CreatedUser;
  let reader: CreatedUser;
  let outsider: CreatedUser;
  let releaseId: number;
  let draftId: number;
  let otherReleaseId: number;
  const tok = (who: CreatedUser) => ({ Authorization: `token ${who.token}` });
  const repo = '/api/v1/repos/owner/app';
  const rows = () => t.dataSource.getRepository(Attachment).count();

  beforeAll(async () => {
    await driver.setup();
    t = await createTestApp({
      env: { ATTACHMENT_MAX_SIZE_MB: '1', RELEASE_ATTACHMENT_MAX_SIZE_MB: '1', ...driver.env() },
    });
    base = await t.listen();
    owner = await t.factories.user({ username: 'owner' });
    writer = await t.factories.user({ username: 'writer' });
    reader = await t.factories.user({ username: 'reader' });
    outsider = await t.factories.user({ username: 'outsider' });
    await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'app', auto_init: true });
    await t.http().put(`${repo}/collaborators/writer`).set(tok(owner)).send({ permission: 'write' });
    await t.http().put(`${repo}/collaborators/reader`).set(tok(owner)).send({ permission: 'read' });
    releaseId = (await t.http().post(`${repo}/releases`).set(tok(owner)).send({ tag_name: 'v1' })).body.id;
    otherReleaseId = (await t.http().post(`${repo}/releases`).set(tok(owner)).send({ tag_name: 'v2' })).body
      .id;
    draftId = (await t.http().post(`${repo}/releases`).set(tok(owner)).send({ tag_name: 'v3', draft: true }))
      .body.id;
    await t.http().post(`${repo}/issues`).set(tok(reader)).send({ title: 'with files' });
    await t.http().post(`${repo}/issues`).set(tok(writer)).send({ title: 'other' });
  });
  afterAll(async () => {
    await t.close();
    await driver.teardown();
  });

  describe('release attachments', () => {
    let assetId: number;
    let uuid: string;

    it('uploads multipart (201, Attachment JSON) and downloads it by uuid', async () => {
      const res = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets`)
        .set(tok(writer))
        .attach('attachment', Buffer.from('hello release\n'), 'notes.txt');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'notes.txt', size: 14, download_count: 0 });
      expect(res.body.browser_download_url).toBe(`${t.config.publicUrl}attachments/${res.body.uuid}`);
      assetId = res.body.id;
      uuid = res.body.uuid;
      const download = await t.http().get(`/attachments/${uuid}`);
      expect(download.status).toBe(200);
      expect(download.text).toBe('hello release\n');
      expect(download.headers['content-disposition']).toContain('notes.txt');
      expect(download.headers['content-length']).toBe('14');
      expect(download.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
      const again = await t.http().get(`/attachments/${uuid}`).set('If-None-Match', download.headers.etag);
      expect(again.status).toBe(304);
      const range = await t.http().get(`/attachments/${uuid}`).set('Range', 'bytes=6-12');
      expect(range.status).toBe(206);
      expect(range.text).toBe('release');
      expect(range.headers['content-range']).toBe('bytes 6-12/14');
      expect((await t.http().get(`/attachments/${uuid}`).set('Range', 'bytes=100-')).status).toBe(416);
      const head = await t.http().head(`/attachments/${uuid}`);
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe('14');
      const byTag = await t.http().get('/owner/app/releases/download/v1/notes.txt');
      expect(byTag.text).toBe('hello release\n');
      const listed = await t.http().get(`${repo}/releases/${releaseId}/assets/${assetId}`);
      expect(listed.body.download_count).toBe(3);
      expect(
        (await t.http().get(`${repo}/releases/${releaseId}`)).body.assets.map(
          (a: { name: string }) => a.name,
        ),
      ).toEqual(['notes.txt']);
    });

    it('uploads a raw body named by ?name= and the multipart name can be overridden', async () => {
      const raw = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets?name=app.bin`)
        .set(tok(writer))
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from([1, 2, 3]));
      expect(raw.status).toBe(201);
      expect(raw.body).toMatchObject({ name: 'app.bin', size: 3 });
      const renamed = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets?name=override.txt`)
        .set(tok(writer))
        .attach('attachment', Buffer.from('x'), 'original.txt');
      expect(renamed.body.name).toBe('override.txt');
      const list = await t.http().get(`${repo}/releases/${releaseId}/assets`);
      expect(list.body.map((a: { name: string }) => a.name)).toEqual([
        'app.bin',
        'notes.txt',
        'override.txt',
      ]);
    });

    it('refuses a raw body without a name (400) and stores nothing', async () => {
      const before = await rows();
      const res = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets`)
        .set(tok(writer))
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('x'));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Could not determine name of attachment.');
      expect(await rows()).toBe(before);
    });

    it('refuses an unknown release (404) and stores nothing', async () => {
      const before = await rows();
      const res = await t
        .http()
        .post(`${repo}/releases/99999/assets`)
        .set(tok(writer))
        .attach('attachment', Buffer.from('x'), 'a.txt');
      expect(res.status).toBe(404);
      expect(await rows()).toBe(before);
    });

    it('streams a multipart file larger than one network chunk whole', async () => {
      const bytes = Buffer.alloc(600_000);
      for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
      const res = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets`)
        .set(tok(writer))
        .attach('attachment', bytes, 'big.bin');
      expect(res.status).toBe(201);
      expect(res.body.size).toBe(bytes.length);
      const download = await t
        .http()
        .get(`/attachments/${res.body.uuid}`)
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(Buffer.compare(download.body as Buffer, bytes)).toBe(0);
      expect(
        (await t.http().delete(`${repo}/releases/${releaseId}/assets/${res.body.id}`).set(tok(writer)))
          .status,
      ).toBe(204);
    });

    it('enforces the size limit: exactly the limit is stored, one byte over is 413 and leaves nothing', async () => {
      const exact = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets?name=exact.bin`)
        .set(tok(writer))
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.alloc(MiB, 1));
      expect(exact.status).toBe(201);
      expect(exact.body.size).toBe(MiB);
      const before = await rows();
      const over = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets?name=over.bin`)
        .set(tok(writer))
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.alloc(MiB + 1, 1));
      expect(over.status).toBe(413);
      expect(over.body.message).toBe(`attachment exceeds limit ${MiB}`);
      const overMultipart = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets`)
        .set(tok(writer))
        .attach('attachment', Buffer.alloc(MiB + 1, 1), 'over.bin');
      expect(overMultipart.status).toBe(413);
      expect(await rows()).toBe(before);
    });

    it('hides drafts (404) from readers; an attachment of another release is 404', async () => {
      const draftAsset = await t
        .http()
        .post(`${repo}/releases/${draftId}/assets`)
        .set(tok(owner))
        .attach('attachment', Buffer.from('draft'), 'draft.txt');
      expect(draftAsset.status).toBe(201);
      expect((await t.http().get(`${repo}/releases/${draftId}/assets`).set(tok(reader))).status).toBe(404);
      expect((await t.http().get(`${repo}/releases/${draftId}/assets`).set(tok(writer))).status).toBe(200);
      expect((await t.http().get(`/attachments/${draftAsset.body.uuid}`).set(tok(reader))).status).toBe(404);
      expect((await t.http().get(`/attachments/${draftAsset.body.uuid}`).set(tok(owner))).status).toBe(200);
      expect(
        (await t.http().get(`${repo}/releases/${otherReleaseId}/assets/${draftAsset.body.id}`)).status,
      ).toBe(404);
    });

    it('refuses readers (403), anonymous (401) and narrow tokens (403)', async () => {
      expect(
        (
          await t
            .http()
            .post(`${repo}/releases/${releaseId}/assets`)
            .set(tok(reader))
            .attach('attachment', Buffer.from('x'), 'a.txt')
        ).status,
      ).toBe(403);
      expect(
        (
          await t
            .http()
            .post(`${repo}/releases/${releaseId}/assets`)
            .attach('attachment', Buffer.from('x'), 'a.txt')
        ).status,
      ).toBe(401);
      const narrow = await t.factories.token(owner.user, { scopes: ['read:repository'] });
      expect(
        (
          await t
            .http()
            .post(`${repo}/releases/${releaseId}/assets`)
            .set('Authorization', `token ${narrow}`)
            .attach('attachment', Buffer.from('x'), 'a.txt')
        ).status,
      ).toBe(403);
    });

    it('renames (201; empty name changes nothing) and deletes (204), removing the blob', async () => {
      const renamed = await t
        .http()
        .patch(`${repo}/releases/${releaseId}/assets/${assetId}`)
        .set(tok(writer))
        .send({ name: 'NOTES.md' });
      expect(renamed.status).toBe(201);
      expect(renamed.body.name).toBe('NOTES.md');
      expect(
        (
          await t
            .http()
            .patch(`${repo}/releases/${releaseId}/assets/${assetId}`)
            .set(tok(writer))
            .send({ name: '' })
        ).body.name,
      ).toBe('NOTES.md');
      expect(
        (await t.http().delete(`${repo}/releases/${releaseId}/assets/${assetId}`).set(tok(writer))).status,
      ).toBe(204);
      expect((await t.http().get(`${repo}/releases/${releaseId}/assets/${assetId}`)).status).toBe(404);
      expect((await t.http().get(`/attachments/${uuid}`)).status).toBe(404);
      expect(
        (await t.http().delete(`${repo}/releases/${releaseId}/assets/${assetId}`).set(tok(writer))).status,
      ).toBe(404);
    });

    it('answers 404 on create when attachments are disabled', async () => {
      // A second instance on the same data with attachments off (the embedded test database serves one
      // schema at a time, so a second app never gets a schema of its own while this file's app is open).
      const disabled = await createTestApp({
        schema: t.schema,
        env: { ATTACHMENTS_ENABLED: 'false', ...driver.env() },
      });
      try {
        const before = await rows();
        const res = await disabled
          .http()
          .post(`${repo}/releases/${releaseId}/assets`)
          .set(tok(owner))
          .attach('attachment', Buffer.from('x'), 'a.txt');
        expect(res.status).toBe(404);
        expect((await disabled.http().get(`${repo}/issues/1/assets`)).status).toBe(404);
        expect(await rows()).toBe(before);
      } finally {
        await disabled.close();
      }
    });
  });

  describe('issue and comment attachments', () => {
    it('uploads to an issue (201) as its poster; the issue lists it and its updated_at moves', async () => {
      const before = (await t.http().get(`${repo}/issues/1`)).body.updated_at;
      await new Promise((resolve) => setTimeout(resolve, 20));
      const res = await t
        .http()
        .post(`${repo}/issues/1/assets`)
        .set(tok(reader))
        .attach('attachment', PNG, 'pixel.png');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'pixel.png', size: PNG.length });
      const issue = await t.http().get(`${repo}/issues/1`);
      expect(issue.body.assets.map((a: { name: string }) => a.name)).toEqual(['pixel.png']);
      expect(new Date(issue.body.updated_at).getTime()).toBeGreaterThan(new Date(before).getTime());
      expect((await t.http().get(`${repo}/issues/1/assets/${res.body.id}`)).body.name).toBe('pixel.png');
    });

    it('refuses a user blocked by the repository owner (403) and stores nothing; unblocked, the upload works', async () => {
      await t
        .http()
        .put('/api/v1/user/blocks/' + reader.user.name)
        .set(tok(owner))
        .expect(204);
      const before = await rows();
      const blocked = await t
        .http()
        .post(`${repo}/issues/1/assets`)
        .set(tok(reader))
        .attach('attachment', PNG, 'blocked.png');
      expect(blocked.status).toBe(403);
      expect(blocked.body.message).toBe('user is blocked');
      expect(await rows()).toBe(before);
      await t
        .http()
        .delete('/api/v1/user/blocks/' + reader.user.name)
        .set(tok(owner))
        .expect(204);
      const allowed = await t
        .http()
        .post(`${repo}/issues/1/assets`)
        .set(tok(reader))
        .attach('attachment', PNG, 'unblocked.png');
      expect(allowed.status).toBe(201);
    });

    it.each([
      ['an .exe', Buffer.from('MZ binary'), 'tool.exe'],
      [
        'a .png name whose bytes are text, under an unlisted extension',
        Buffer.from('just text, not an image'),
        'image.bmpx',
      ],
    ])('refuses %s with 422 (Gitea default allowed list)', async (_name, bytes, name) => {
      const before = await rows();
      const res = await t
        .http()
        .post(`${repo}/issues/1/assets`)
        .set(tok(reader))
        .attach('attachment', bytes, name);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(
        'This file cannot be uploaded or modified due to a forbidden file extension or type.',
      );
      expect(await rows()).toBe(before);
    });

    it('decides by the listed extension: PNG bytes under an unlisted one are 422, renamed to .png by ?name= they are 201', async () => {
      const sniffed = await t
        .http()
        .post(`${repo}/issues/1/assets`)
        .set(tok(reader))
        .attach('attachment', PNG, 'pixel.unknownext');
      expect(sniffed.status).toBe(422);
      // image/png is not in Gitea's default list as a MIME type (only `.png`): the extension decides.
      const bySuffix = await t
        .http()
        .post(`${repo}/issues/1/assets?name=renamed.png`)
        .set(tok(reader))
        .attach('attachment', PNG, 'pixel.unknownext');
      expect(bySuffix.status).toBe(201);
    });

    it('applies the write rule (403 for others), 413 over the limit, 400 without multipart', async () => {
      const refused = await t
        .http()
        .post(`${repo}/issues/2/assets`)
        .set(tok(reader))
        .attach('attachment', Buffer.from('x'), 'a.txt');
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe('user should have permission to write issue');
      expect(
        (
          await t
            .http()
            .post(`${repo}/issues/2/assets`)
            .set(tok(writer))
            .attach('attachment', Buffer.from('x'), 'a.txt')
        ).status,
      ).toBe(201);
      expect(
        (
          await t
            .http()
            .post(`${repo}/issues/2/assets`)
            .set(tok(owner))
            .attach('attachment', Buffer.alloc(MiB + 1, 0x61), 'big.txt')
        ).status,
      ).toBe(413);
      expect(
        (
          await t
            .http()
            .post(`${repo}/issues/2/assets?name=a.txt`)
            .set(tok(owner))
            .set('Content-Type', 'application/octet-stream')
            .send(Buffer.from('x'))
        ).status,
      ).toBe(400);
      expect(
        (
          await t
            .http()
            .post(`${repo}/issues/99/assets`)
            .set(tok(owner))
            .attach('attachment', Buffer.from('x'), 'a.txt')
        ).status,
      ).toBe(404);
      expect(
        (
          await t
            .http()
            .post(`${repo}/issues/2/assets`)
            .set(tok(outsider))
            .attach('attachment', Buffer.from('x'), 'a.txt')
        ).status,
      ).toBe(403);
    });

    it('answers 404 for an attachment of another issue, and renames by extension only (422)', async () => {
      const issue1 = (await t.http().get(`${repo}/issues/1/assets`)).body[0];
      const other = await t.http().get(`${repo}/issues/2/assets/${issue1.id}`);
      expect(other.status).toBe(404);
      expect(other.body.message).toBe('no such attachment in issue');
      const bad = await t
        .http()
        .patch(`${repo}/issues/1/assets/${issue1.id}`)
        .set(tok(reader))
        .send({ name: 'pixel.exe' });
      expect(bad.status).toBe(422);
      const good = await t
        .http()
        .patch(`${repo}/issues/1/assets/${issue1.id}`)
        .set(tok(reader))
        .send({ name: 'pixel2.png' });
      expect(good.status).toBe(201);
      expect(good.body.name).toBe('pixel2.png');
    });

    it('comment attachments: poster with write access or admins only; 404 outside the comment', async () => {
      const comment = (
        await t.http().post(`${repo}/issues/1/comments`).set(tok(writer)).send({ body: 'see file' })
      ).body;
      const created = await t
        .http()
        .post(`${repo}/issues/comments/${comment.id}/assets`)
        .set(tok(writer))
        .attach('attachment', Buffer.from('log line\n'), 'run.log');
      expect(created.status).toBe(201);
      expect(
        (await t.http().get(`${repo}/issues/comments/${comment.id}`)).body.assets.map(
          (a: { name: string }) => a.name,
        ),
      ).toEqual(['run.log']);
      const byReader = await t
        .http()
        .post(`${repo}/issues/comments/${comment.id}/assets`)
        .set(tok(reader))
        .attach('attachment', Buffer.from('x'), 'a.txt');
      expect(byReader.status).toBe(403);
      expect(byReader.body.message).toBe('user should have permission to edit comment');
      expect(
        (
          await t
            .http()
            .post(`${repo}/issues/comments/${comment.id}/assets`)
            .set(tok(owner))
            .attach('attachment', Buffer.from('x'), 'a.txt')
        ).status,
      ).toBe(201);
      expect((await t.http().get(`${repo}/issues/comments/${comment.id}/assets`)).body).toHaveLength(2);
      const issueAsset = (await t.http().get(`${repo}/issues/1/assets`)).body[0];
      const wrong = await t.http().get(`${repo}/issues/comments/${comment.id}/assets/${issueAsset.id}`);
      expect(wrong.status).toBe(404);
      expect(wrong.body.message).toBe('no such attachment in comment');
      expect((await t.http().get(`${repo}/issues/comments/999999/assets`)).status).toBe(404);
      // the issue lists only its own attachments, not its comments'
      expect(
        (await t.http().get(`${repo}/issues/1/assets`)).body.map((a: { name: string }) => a.name),
      ).not.toContain('run.log');
      // deleting the comment deletes its attachments
      expect((await t.http().delete(`${repo}/issues/comments/${comment.id}`).set(tok(owner))).status).toBe(
        204,
      );
      expect((await t.http().get(`/attachments/${created.body.uuid}`)).status).toBe(404);
    });

    it('refuses writes on an archived repository (423)', async () => {
      await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'frozen', auto_init: true });
      await t.http().post('/api/v1/repos/owner/frozen/issues').set(tok(owner)).send({ title: 'x' });
      await t.http().patch('/api/v1/repos/owner/frozen').set(tok(owner)).send({ archived: true });
      expect(
        (
          await t
            .http()
            .post('/api/v1/repos/owner/frozen/issues/1/assets')
            .set(tok(owner))
            .attach('attachment', Buffer.from('x'), 'a.txt')
        ).status,
      ).toBe(423);
    });
  });

  describe('the workflow engine', () => {
    it('an access-control rule refuses a matching upload with 403 and stores nothing, and guards downloads', async () => {
      const admin = await t.factories.admin({ username: 'siteadmin' });
      const earlier = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets?name=old-secret.txt`)
        .set(tok(writer))
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('x'));
      expect(earlier.status).toBe(201);
      const rule = await ocs(
        t,
        'post',
        `${WF}/global`,
        bearer(admin.token),
        accessRule({ checks: [check('FileName', 'matches', '/secret/i')] }),
      );
      expect(rule.status).toBe(200);
      const before = await rows();
      const res = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets`)
        .set(tok(writer))
        .attach('attachment', Buffer.from('x'), 'my-secret.txt');
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('Access denied by access control');
      expect(await rows()).toBe(before);
      expect((await t.http().get(`/attachments/${earlier.body.uuid}`)).status).toBe(403);
      const allowed = await t
        .http()
        .post(`${repo}/releases/${releaseId}/assets?name=public.txt`)
        .set(tok(writer))
        .set('Content-Type', 'application/octet-stream')
        .send(Buffer.from('x'));
      expect(allowed.status).toBe(201);
      await ocs(t, 'delete', `${WF}/global/${rule.body.ocs.data.id}`, bearer(admin.token));
      expect((await t.http().get(`/attachments/${earlier.body.uuid}`)).status).toBe(200);
    });

    it('a notification rule of the repository owner fires on upload (File created)', async () => {
      const notified: { subject?: string }[] = [];
      const listener = (payload: { subject?: string }) => notified.push(payload);
      t.app.get(EventEmitter2).on('workflow.notify_owner', listener);
      try {
        await ocs(
          t,
          'post',
          `${WF}/user`,
          bearer(owner.token),
          notifyRule({ checks: [check('FileName', 'matches', '/\\.pdf$/i')] }),
        );
        const res = await t
          .http()
          .post(`${repo}/releases/${releaseId}/assets?name=manual.pdf`)
          .set(tok(writer))
          .set('Content-Type', 'application/octet-stream')
          .send(Buffer.from('%PDF-1.4\n'));
        expect(res.status).toBe(201);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(notified.map((n) => n.subject)).toContain('manual.pdf');
      } finally {
        t.app.get(EventEmitter2).off('workflow.notify_owner', listener);
      }
    });

    it('renames and deletions fire File renamed and File deleted rules', async () => {
      const notified: { subject?: string; event?: string }[] = [];
      const listener = (payload: { subject?: string }) => notified.push(payload);
      t.app.get(EventEmitter2).on('workflow.notify_owner', listener);
      try {
        const rule = await ocs(
          t,
          'post',
          `${WF}/user`,
          bearer(owner.token),
          notifyRule({
            checks: [check('FileName', 'matches', '/^(draft|final)\\.md$/')],
            events: [RENAMED, DELETED],
          }),
        );
        expect(rule.status).toBe(200);
        const up = await t
          .http()
          .post(`${repo}/releases/${releaseId}/assets?name=draft.md`)
          .set(tok(writer))
          .set('Content-Type', 'application/octet-stream')
          .send(Buffer.from('# notes\n'));
        expect(up.status).toBe(201);
        expect(
          (
            await t
              .http()
              .patch(`${repo}/releases/${releaseId}/assets/${up.body.id}`)
              .set(tok(writer))
              .send({ name: 'final.md' })
          ).status,
        ).toBe(201);
        expect(
          (await t.http().delete(`${repo}/releases/${releaseId}/assets/${up.body.id}`).set(tok(writer)))
            .status,
        ).toBe(204);
        for (let i = 0; i < 30 && notified.length < 2; i++)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect(notified.map((n) => n.subject)).toEqual(['final.md', 'final.md']);
        await ocs(t, 'delete', `${WF}/user/${rule.body.ocs.data.id}`, bearer(owner.token));
      } finally {
        t.app.get(EventEmitter2).off('workflow.notify_owner', listener);
      }
    });
  });

  describe('storage', () => {
    it('a client that disconnects mid-upload leaves no row and no blob', async () => {
      const before = await rows();
      const localBefore =
        driver.name === 'local'
          ? (await filesUnder(path.join(t.config.dataDir, 'blobs', 'objects'))).length
          : 0;
      await new Promise<void>((resolve) => {
        const url = new URL(`${base}${repo}/releases/${releaseId}/assets?name=cut.bin`);
        const req = http.request(url, {
          method: 'POST',
          headers: {
            Authorization: `token ${writer.token}`,
            'Content-Type': 'application/octet-stream',
            'Content-Length': String(900_000),
          },
        });
        req.on('error', () => resolve());
        req.write(Buffer.alloc(200_000, 7), () => {
          setTimeout(() => {
            req.destroy();
            resolve();
          }, 100);
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await rows()).toBe(before);
      if (driver.name === 'local') {
        expect((await filesUnder(path.join(t.config.dataDir, 'blobs', 'objects'))).length).toBe(localBefore);
        expect(await filesUnder(path.join(t.config.dataDir, 'blobs', 'tmp'))).toEqual([]);
      }
    });

    async function blobCollected(key: string): Promise<void> {
      const queued = (await t.dataSource.query(
        "SELECT status FROM jobs WHERE type = 'attachments.delete-blob' AND payload->>'key' = $1 AND run_at <= now() + interval '1 minute'",
        [key],
      )) as unknown[];
      expect(queued.length).toBeGreaterThan(0);
      for (let i = 0; i < 50; i++) {
        const done = (await t.dataSource.query(
          "SELECT 1 FROM jobs WHERE type = 'attachments.delete-blob' AND payload->>'key' = $1 AND status = 'succeeded'",
          [key],
        )) as unknown[];
        if (done.length) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await t.app.get(BlobStore).stat(key)).toBeNull();
    }

    it('deleting the repository removes its attachments and their blobs (durable jobs)', async () => {
      await t.http().post('/api/v1/user/repos').set(tok(owner)).send({ name: 'doomed', auto_init: true });
      const rel = await t
        .http()
        .post('/api/v1/repos/owner/doomed/releases')
        .set(tok(owner))
        .send({ tag_name: 'v1' });
      const asset = await t
        .http()
        .post(`/api/v1/repos/owner/doomed/releases/${rel.body.id}/assets`)
        .set(tok(owner))
        .attach('attachment', Buffer.from('bye'), 'bye.txt');
      const row = await t.dataSource.getRepository(Attachment).findOneByOrFail({ uuid: asset.body.uuid });
      expect((await t.http().delete('/api/v1/repos/owner/doomed').set(tok(owner))).status).toBe(204);
      expect(await t.dataSource.getRepository(Attachment).countBy({ uuid: asset.body.uuid })).toBe(0);
      await blobCollected(row.blobKey);
    });

    it('deleting a release or a comment removes its attachments and their blobs', async () => {
      const rel = await t.http().post(`${repo}/releases`).set(tok(owner)).send({ tag_name: 'v-gone' });
      const relAsset = await t
        .http()
        .post(`${repo}/releases/${rel.body.id}/assets`)
        .set(tok(owner))
        .attach('attachment', Buffer.from('one'), 'one.txt');
      const relRow = await t.dataSource
        .getRepository(Attachment)
        .findOneByOrFail({ uuid: relAsset.body.uuid });
      expect((await t.http().delete(`${repo}/releases/${rel.body.id}`).set(tok(owner))).status).toBe(204);
      expect(await t.dataSource.getRepository(Attachment).countBy({ uuid: relAsset.body.uuid })).toBe(0);
      await blobCollected(relRow.blobKey);

      const comment = await t
        .http()
        .post(`${repo}/issues/1/comments`)
        .set(tok(owner))
        .send({ body: 'with a file' });
      expect(comment.status).toBe(201);
      const comAsset = await t
        .http()
        .post(`${repo}/issues/comments/${comment.body.id}/assets`)
        .set(tok(owner))
        .attach('attachment', Buffer.from('two'), 'two.txt');
      expect(comAsset.status).toBe(201);
      const comRow = await t.dataSource
        .getRepository(Attachment)
        .findOneByOrFail({ uuid: comAsset.body.uuid });
      expect(
        (await t.http().delete(`${repo}/issues/comments/${comment.body.id}`).set(tok(owner))).status,
      ).toBe(204);
      expect(await t.dataSource.getRepository(Attachment).countBy({ uuid: comAsset.body.uuid })).toBe(0);
      await blobCollected(comRow.blobKey);
    });
  });
});
