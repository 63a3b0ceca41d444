import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import S3rver from 's3rver';
import request from 'supertest';
import { createApp } from '../../src/app.factory';
import { BootstrapAdminService } from '../../src/modules/identity/bootstrap-admin.service';
import { loadConfig } from '../../src/platform/config/app-config';
import { openDatabase } from '../../src/platform/database/open-database';
import { freePort } from '../helpers/free-port';
import { createTestApp, TEST_SECRETS_KEY } from '../helpers/test-app';

jest.setTimeout(180_000);

const S3_ENV = { STORAGE_TYPE: 's3', S3_BUCKET: 'blobs', S3_ACCESS_KEY: 'S3RVER', S3_SECRET_KEY: 'S3RVER' };

/**
 * Issue 31.13: /readyz answered 200 before the bootstrap administrator existed (the server creates
 * it once it listens), so a deployment script that waited for readiness and then signed in with
 * ADMIN_* could fail. Issue 36.9: /readyz answered 200 with the S3 blob store down while uploads
 * answered 500.
 */
describe('security 31.13 and 36.9: /readyz', () => {
  it('answers 503 until the bootstrap administrator exists; once 200, the admin credentials work', async () => {
    // The server's own order (src/main.ts): the app serves, then BootstrapAdminService.ensure runs.
    const schema = `t_ready_${randomBytes(5).toString('hex')}`;
    const admin = { username: 'readyadmin', password: 'Ready-Admin-Pass-1234' };
    const config = loadConfig({
      ...process.env,
      LOG_LEVEL: 'silent',
      ADMIN_USERNAME: admin.username,
      ADMIN_EMAIL: 'readyadmin@example.com',
      ADMIN_PASSWORD: admin.password,
      DATA_DIR: `${os.tmpdir()}/devplane-test/${schema}`,
      SECRETS_KEY: TEST_SECRETS_KEY,
      RATE_LIMIT_ENABLED: 'false',
      DATABASE_POOL_SIZE: '4',
      DATABASE_SCHEMA: schema,
    });
    const database = await openDatabase(config);
    let app: NestExpressApplication | undefined;
    try {
      app = await createApp(config, database);
      await app.init();
      const http = () => request(app!.getHttpServer());
      const basic = `Basic ${Buffer.from(`${admin.username}:${admin.password}`).toString('base64')}`;

      const early = await http().get('/readyz');
      expect(early.status).toBe(503);
      expect(JSON.stringify(early.body)).toContain('bootstrap administrator not created yet');
      expect((await http().get('/api/v1/user').set('Authorization', basic)).status).toBe(401);

      await app.get(BootstrapAdminService).ensure();
      expect((await http().get('/readyz')).status).toBe(200);
      expect((await http().get('/api/v1/user').set('Authorization', basic)).status).toBe(200);
    } finally {
      await app?.close();
      const client = new Client({ connectionString: database.url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
      await database.close();
      await rm(config.dataDir, { recursive: true, force: true });
    }
  });

  it('answers 503 while the S3 blob store is down, 200 once it answers', async () => {
    const port = await freePort(); // nobody listens there yet
    const t = await createTestApp({ env: { ...S3_ENV, S3_ENDPOINT: `http://127.0.0.1:${port}` } });
    const s3Dir = await mkdtemp(path.join(os.tmpdir(), 'dp-ready-s3-'));
    let s3: S3rver | undefined;
    try {
      const down = await t.http().get('/readyz');
      expect(down.status).toBe(503);
      expect(JSON.stringify(down.body)).toContain('blob store unreachable');

      s3 = new S3rver({
        address: '127.0.0.1',
        port,
        silent: true,
        directory: s3Dir,
        configureBuckets: [{ name: 'blobs', configs: [] }],
      });
      expect(((await s3.run()) as AddressInfo).port).toBe(port);
      const up = await t.http().get('/readyz');
      expect(up.status).toBe(200);
      expect(up.body).toEqual({ status: 'ok', database: 'ok' });
    } finally {
      await s3?.close();
      await t.close();
      await rm(s3Dir, { recursive: true, force: true });
    }
  });
});
