import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type AppProcess, startAppProcess } from '../helpers/app-process';
import { waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { cloneUrl, git, tempDir } from './git-client';

jest.setTimeout(300_000);

interface Hit {
  event: string | undefined;
  delivery: string | undefined;
  signed: boolean;
  after: string | undefined;
}

/**
 * Issue 49.5's acceptance: a repository webhook's delivery survives the server being killed (SIGKILL)
 * between the push and the delivery. The first server runs no jobs (JOBS_CONCURRENCY=0): git's push
 * is acknowledged with the push job queued, nothing delivered; after the kill a second server on the
 * same database runs the push job, which queues the delivery, which the receiver on loopback gets,
 * signed, exactly once.
 */
describe('repository webhook deliveries survive a restart between the push and the delivery', () => {
  let t: TestApp;
  const hits: Hit[] = [];
  let server: http.Server;
  let receiverUrl: string;
  const dataDir = `${os.tmpdir()}/devplane-test/webhooks-durable-${process.pid}-${Date.now()}`;
  const children: AppProcess[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const child = await startAppProcess({
      DATABASE_SCHEMA: t.schema,
      DATA_DIR: dataDir,
      WEBHOOK_ALLOWED_HOST_LIST: 'loopback',
      JOBS_POLL_INTERVAL_MS: '200',
      ...env,
    });
    children.push(child);
    return child;
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { JOBS_CONCURRENCY: '0' } });
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const body = JSON.parse(raw) as { after?: string };
        hits.push({
          event: req.headers['x-gitea-event'] as string | undefined,
          delivery: req.headers['x-gitea-delivery'] as string | undefined,
          signed:
            req.headers['x-gitea-signature'] === createHmac('sha256', 'durable').update(raw).digest('hex'),
          after: body.after,
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    for (const child of children) await child.kill('SIGKILL');
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await t?.close();
  });

  it('killed after git push returned, before any worker ran: delivered once after the restart', async () => {
    const admin = await t.factories.admin({ username: 'hookadmin' });
    const first = await start({ JOBS_CONCURRENCY: '0' });
    const api = (url: string, body: unknown) =>
      fetch(`${first.url}${url}`, {
        method: 'POST',
        headers: { Authorization: `token ${admin.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await api('/api/v1/user/repos', { name: 'durable', auto_init: true })).status).toBe(201);
    const hook = await api('/api/v1/repos/hookadmin/durable/hooks', {
      type: 'gitea',
      config: { url: receiverUrl, content_type: 'json', secret: 'durable' },
      events: ['push'],
      active: true,
    });
    expect(hook.status).toBe(201);

    const dir = await tempDir();
    const url = cloneUrl(first.url, 'hookadmin', 'durable', { user: 'hookadmin', secret: admin.token });
    expect((await git(['clone', '--quiet', url, 'wc'], dir)).code).toBe(0);
    const wc = path.join(dir, 'wc');
    await writeFile(path.join(wc, 'hello.txt'), 'durable\n');
    await git(['add', 'hello.txt'], wc);
    await git(['commit', '--quiet', '-m', 'durable'], wc);
    expect((await git(['push', '--quiet', url, 'main'], wc)).code).toBe(0);
    const after = (await git(['rev-parse', 'HEAD'], wc)).stdout.trim();
    await first.kill('SIGKILL');
    expect(hits).toHaveLength(0);

    const second = await start();
    await waitFor(() => (hits.some((hit) => hit.after === after) ? true : undefined), 90_000, 'the delivery');
    await waitFor(
      async () => {
        const [row] = await t.dataSource.query(
          `SELECT count(*)::int AS open FROM jobs WHERE status IN ('pending', 'running') AND type LIKE 'repositories.%'`,
        );
        return row.open === 0 ? true : undefined;
      },
      90_000,
      'the jobs to finish',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(hits.filter((hit) => hit.after === after)).toEqual([
      { event: 'push', delivery: expect.stringMatching(/^[0-9a-f-]{36}$/), signed: true, after },
    ]);
    const [delivery] = await t.dataSource.query(`SELECT status, response_status FROM webhook_deliveries`);
    expect(delivery).toEqual({ status: 'delivered', response_status: 200 });
    await second.kill('SIGKILL');
  });
});
