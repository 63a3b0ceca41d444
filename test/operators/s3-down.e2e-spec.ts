import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { CreatedUser } from '../helpers/factories';
import { freePort } from '../helpers/free-port';
import { createTestApp, type TestApp } from '../helpers/test-app';

jest.setTimeout(180_000);

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f0b6c40000000049454e44ae426082',
  'hex',
);

/**
 * Issue 51.3: with the S3 bucket unreachable, downloads (and uploads) answered 500. Each dialect now
 * answers its 503: generic and download routes plain text, npm `{error}`, Gitea `{message,url}`,
 * Coder `{message,detail}`; the same requests work again once S3 is back.
 */
describe('S3 down: downloads answer 503 in the dialect of the route (issue 51.3)', () => {
  let t: TestApp;
  let s3: S3rver | undefined;
  let s3Dir = '';
  let port = 0;
  let alice: CreatedUser;
  const repo = '/api/v1/repos/alice/app';
  const tok = () => ({ Authorization: `token ${alice.token}` });
  const tarball = Buffer.from('not really a tarball, but bytes');
  let assetUuid = '';
  let releaseId = 0;
  let chatFile = '';

  const startS3 = async () => {
    s3 = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory: s3Dir,
      configureBuckets: [{ name: 'blobs', configs: [] }],
    });
    expect(((await s3.run()) as AddressInfo).port).toBe(port);
  };

  beforeAll(async () => {
    port = await freePort();
    s3Dir = await mkdtemp(path.join(os.tmpdir(), 'dp-s3-down-'));
    await startS3();
    t = await createTestApp({
      env: {
        STORAGE_TYPE: 's3',
        S3_ENDPOINT: `http://127.0.0.1:${port}`,
        S3_BUCKET: 'blobs',
        S3_ACCESS_KEY: 'S3RVER',
        S3_SECRET_KEY: 'S3RVER',
        EXPERIMENTS: 'agents',
        CHAT_RUNNER_ENABLED: 'false',
      },
    });
    alice = await t.factories.user({ username: 'alice' });
    // One file of each kind while S3 is up.
    const generic = await t
      .http()
      .put('/api/packages/alice/generic/tool/1.0.0/tool.bin')
      .set(tok())
      .set('Content-Type', 'application/octet-stream')
      .send(Buffer.from('generic bytes'));
    expect(generic.status).toBe(201);
    const npm = await t
      .http()
      .put('/api/packages/alice/npm/lib')
      .set('Authorization', `Bearer ${alice.token}`)
      .send({
        _id: 'lib',
        name: 'lib',
        'dist-tags': { latest: '1.0.0' },
        versions: {
          '1.0.0': {
            name: 'lib',
            version: '1.0.0',
            dist: {
              integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
              shasum: createHash('sha1').update(tarball).digest('hex'),
            },
          },
        },
        _attachments: {
          'lib-1.0.0.tgz': {
            content_type: 'application/octet-stream',
            data: tarball.toString('base64'),
            length: tarball.length,
          },
        },
      });
    expect(npm.status).toBe(201);
    await t.http().post('/api/v1/user/repos').set(tok()).send({ name: 'app', auto_init: true }).expect(201);
    releaseId = (await t.http().post(`${repo}/releases`).set(tok()).send({ tag_name: 'v1' }).expect(201)).body
      .id;
    const asset = await t
      .http()
      .post(`${repo}/releases/${releaseId}/assets`)
      .set(tok())
      .attach('attachment', Buffer.from('release notes\n'), 'notes.txt');
    expect(asset.status).toBe(201);
    assetUuid = asset.body.uuid;
    const org = (
      (await t.dataSource.query(`SELECT uuid FROM users WHERE lower_name = 'default'`)) as { uuid: string }[]
    )[0]!.uuid;
    const chat = await t
      .http()
      .post(`/api/experimental/chats/files?organization=${org}`)
      .set('Service-Session-Token', alice.token)
      .set('Content-Type', 'image/png')
      .set('Content-Disposition', 'attachment; filename="dot.png"')
      .send(PNG);
    expect(chat.status).toBe(201);
    chatFile = chat.body.id;
    await s3!.close(); // S3 is down from here on
    s3 = undefined;
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
    await rm(s3Dir, { recursive: true, force: true });
  });

  const downloads = () => ({
    generic: t.http().get('/api/packages/alice/generic/tool/1.0.0/tool.bin').set(tok()),
    npm: t
      .http()
      .get('/api/packages/alice/npm/lib/-/1.0.0/lib-1.0.0.tgz')
      .set('Authorization', `Bearer ${alice.token}`),
    attachment: t.http().get(`/attachments/${assetUuid}`),
    chat: t.http().get(`/api/experimental/chats/files/${chatFile}`).set('Service-Session-Token', alice.token),
  });

  it('generic package file and attachment download: 503, plain text', async () => {
    const { generic, attachment } = downloads();
    for (const res of [await generic, await attachment]) {
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toBe('The file storage is unavailable; try again later.\n');
    }
  });

  it('npm tarball: 503 {error}', async () => {
    const res = await downloads().npm;
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'The file storage is unavailable; try again later.' });
  });

  it('Coder (chat file): 503 {message, detail}', async () => {
    const res = await downloads().chat;
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ message: 'The file storage is unavailable; try again later.' });
    expect(res.body.detail).toMatch(/^The S3 blob store did not serve the request \(ECONNREFUSED\)/);
  });

  it('Gitea (a release asset upload): 503 {message, url}, and no asset row is left', async () => {
    const res = await t
      .http()
      .post(`${repo}/releases/${releaseId}/assets`)
      .set(tok())
      .attach('attachment', Buffer.from('second\n'), 'second.txt');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      message: 'The file storage is unavailable; try again later.',
      url: expect.any(String),
    });
    const listed = await t.http().get(`${repo}/releases/${releaseId}/assets`).set(tok());
    expect(listed.body.map((a: { name: string }) => a.name)).toEqual(['notes.txt']);
  });

  it('the same downloads answer 200 once S3 is back', async () => {
    await startS3();
    const { generic, npm, attachment, chat } = downloads();
    for (const res of [await generic, await npm, await attachment, await chat]) expect(res.status).toBe(200);
    expect(Number((await downloads().generic).headers['content-length'])).toBe('generic bytes'.length);
  });
});
