import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedProvisioners } from '../../src/embedded-provisioners';
import { WebhookSender } from '../../src/modules/workflows/operations/webhook-sender.service';
import type { CreatedUser } from '../helpers/factories';
import { fakeOpenAi, type FakeProvider } from '../helpers/fake-ai-providers';
import { killAgents, waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient, createTemplate, workspacesDirOf } from '../workspaces/helpers';

jest.setTimeout(240_000);

const ROOT = path.join(__dirname, '..', '..');
const TOKEN = 'metrics-token-for-tests';

/** `name{labels} value` lines of the exposition, as a map (absent series: undefined). */
function parse(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

/**
 * Issue 51.4: the domain families on /metrics move under real work: a git push and clone (the git
 * CLI), an npm publish and download, a workspace build by the server's own daemon, an AI gateway call
 * (a fake OpenAI), password logins; the gauges (connected agents, job queue, blob bytes) are read on scrape.
 */
describe('domain metrics on /metrics (issue 51.4)', () => {
  let t: TestApp;
  let base = '';
  let admin: CreatedUser;
  let openai: FakeProvider;
  let stop: (() => Promise<void>) | undefined;
  const work = mkdtempSync(path.join(os.tmpdir(), 'devplane-metrics-'));
  const client = coderClient(() => t.url!);

  const scrape = async (): Promise<Map<string, number>> => {
    const res = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return parse(await res.text());
  };
  const value = (series: Map<string, number>, key: string) => series.get(key) ?? 0;

  beforeAll(async () => {
    openai = await fakeOpenAi();
    t = await createTestApp({
      env: {
        METRICS_TOKEN: TOKEN,
        PROVISIONER_DAEMONS: '1',
        PROVISIONER_AGENT_COMMAND: JSON.stringify([
          process.execPath,
          '-r',
          require.resolve('@swc-node/register'),
          path.join(ROOT, 'src', 'agent.ts'),
        ]),
        AI_GATEWAY_PROVIDERS: JSON.stringify([
          { name: 'openai-main', type: 'openai', base_url: openai.url, key: 'sk-central' },
        ]),
      },
    });
    base = await t.listen();
    admin = await t.factories.admin({ username: 'metricsadmin' });
  });
  afterAll(async () => {
    await stop?.();
    if (t) killAgents(workspacesDirOf(t));
    await t?.close();
    await openai?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('is refused without the token', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
  });

  it('git pushes and clones over HTTP, by result', async () => {
    const before = await scrape();
    await t
      .http()
      .post('/api/v1/user/repos')
      .set('Authorization', `token ${admin.token}`)
      .send({ name: 'm' });
    const remote = `${base.replace('://', `://metricsadmin:${admin.token}@`)}/metricsadmin/m.git`;
    const git = (cwd: string, ...args: string[]) =>
      // Asynchronous: the server answering git runs in this process (a sync call would block it).
      promisify(execFile)('git', ['-c', 'user.name=m', '-c', 'user.email=m@example.com', ...args], {
        cwd,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
      });
    const source = path.join(work, 'source');
    execFileSync('git', ['init', '-q', '-b', 'main', source]);
    writeFileSync(path.join(source, 'README.md'), 'hello\n');
    await git(source, 'add', '.');
    await git(source, 'commit', '-qm', 'first');
    await git(source, 'push', '-q', remote, 'main');
    await git(work, 'clone', '-q', remote, path.join(work, 'clone'));
    const after = await scrape();
    const key = (operation: string, result: string) =>
      `devplane_git_operations_total{operation="${operation}",protocol="http",result="${result}"}`;
    expect(value(after, key('push', 'success')) - value(before, key('push', 'success'))).toBe(1);
    // The push's own upload-pack? No: git push advertises receive-pack only; the clone advertises upload-pack.
    expect(value(after, key('fetch', 'success')) - value(before, key('fetch', 'success'))).toBe(1);
  });

  it('an npm publish and a tarball download; blob store bytes', async () => {
    const tarball = Buffer.from('metrics tarball bytes');
    const before = await scrape();
    const publish = await t
      .http()
      .put('/api/packages/metricsadmin/npm/mlib')
      .set('Authorization', `Bearer ${admin.token}`)
      .send({
        _id: 'mlib',
        name: 'mlib',
        'dist-tags': { latest: '1.0.0' },
        versions: {
          '1.0.0': {
            name: 'mlib',
            version: '1.0.0',
            dist: { integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}` },
          },
        },
        _attachments: {
          'mlib-1.0.0.tgz': {
            content_type: 'application/octet-stream',
            data: tarball.toString('base64'),
            length: tarball.length,
          },
        },
      });
    expect(publish.status).toBe(201);
    const download = await t
      .http()
      .get('/api/packages/metricsadmin/npm/mlib/-/1.0.0/mlib-1.0.0.tgz')
      .set('Authorization', `Bearer ${admin.token}`);
    expect(download.status).toBe(200);
    const after = await scrape();
    const key = (operation: string) =>
      `devplane_package_operations_total{operation="${operation}",type="npm"}`;
    expect(value(after, key('publish')) - value(before, key('publish'))).toBe(1);
    expect(value(after, key('download')) - value(before, key('download'))).toBe(1);
    // Blob bytes are recomputed at most once a minute: the family is there, by kind.
    expect(after.has('devplane_blob_store_bytes{kind="packages"}')).toBe(true);
    expect(after.has('devplane_blob_store_bytes{kind="attachments"}')).toBe(true);
  });

  it('password logins by result', async () => {
    const user = await t.factories.user({ username: 'metricsuser' });
    const before = await scrape();
    const login = (password: string) =>
      t.http().post('/api/v2/users/login').send({ email: 'metricsuser@example.com', password });
    expect((await login(user.password)).status).toBe(201);
    expect((await login('wrong-password-123')).status).toBe(401);
    expect((await login('wrong-password-456')).status).toBe(401);
    const after = await scrape();
    const key = (result: string) => `devplane_logins_total{method="password",result="${result}"}`;
    expect(value(after, key('success')) - value(before, key('success'))).toBe(1);
    expect(value(after, key('failure')) - value(before, key('failure'))).toBe(2);
  });

  it('an AI gateway call: requests and tokens by provider and model', async () => {
    const before = await scrape();
    const res = await fetch(`${base}/api/v2/aigateway/openai-main/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const requests =
      'devplane_ai_gateway_requests_total{provider="openai-main",model="gpt-4.1",status="200"}';
    const after = await waitFor(
      async () => {
        const current = await scrape();
        return value(current, requests) > value(before, requests) ? current : undefined;
      },
      10_000,
      'the AI request counted',
    );
    expect(value(after, requests) - value(before, requests)).toBe(1);
    const input =
      'devplane_ai_gateway_tokens_total{provider="openai-main",model="gpt-4.1",direction="input"}';
    expect(value(after, input)).toBeGreaterThan(value(before, input));
  });

  it('a workspace build by transition and status, the connected agent, the job queue families', async () => {
    stop = startEmbeddedProvisioners(t.app, t.config, false, Number(new URL(base).port));
    const before = await scrape();
    const { templateId } = await createTemplate(client, admin.token, 'metrics', { directory: 'w' });
    const created = await client.json(
      await client.api(admin.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'measured',
        template_id: templateId,
      }),
      201,
    );
    const started = 'devplane_workspace_builds_total{transition="start",status="succeeded"}';
    const after = await waitFor(
      async () => {
        const workspace = await client.json(
          await client.api(admin.token, 'GET', `/api/v2/workspaces/${created.id}`),
          200,
        );
        const agent = workspace.latest_build.resources
          .flatMap((resource: { agents?: { status: string }[] }) => resource.agents ?? [])
          .find(() => true);
        if (agent?.status !== 'connected') return undefined;
        const current = await scrape();
        return value(current, started) > value(before, started) ? current : undefined;
      },
      120_000,
      'the build counted and its agent connected',
    );
    expect(value(after, started) - value(before, started)).toBe(1);
    expect(value(after, 'devplane_workspace_agents_connected')).toBeGreaterThanOrEqual(1);
  });

  it('job queue depth and oldest age by type (due durable jobs no worker took yet)', async () => {
    // A type no worker of this process leases: it stays due, as a backlog would.
    await t.dataSource.query(
      `INSERT INTO jobs (type, payload, status, attempts, max_attempts, run_at)
       VALUES ('metrics.backlog', '{}', 'pending', 0, 3, now() - interval '90 seconds'),
              ('metrics.backlog', '{}', 'pending', 0, 3, now() - interval '10 seconds'),
              ('metrics.backlog', '{}', 'pending', 0, 3, now() + interval '1 hour')`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the one-second reuse of the query
    const series = await scrape();
    expect(series.get('devplane_job_queue_depth{type="metrics.backlog"}')).toBe(2);
    expect(
      series.get('devplane_job_queue_oldest_age_seconds{type="metrics.backlog"}'),
    ).toBeGreaterThanOrEqual(89);
  });

  it('workflow webhook deliveries by result', async () => {
    const sender = t.app.get(WebhookSender);
    const before = await scrape();
    // Refused before sending (a private address): a failed delivery attempt.
    await sender.attempt({ url: 'http://127.0.0.1:9/hook', body: {} }, 'd1');
    const after = await scrape();
    const key = 'devplane_webhook_deliveries_total{kind="workflow",result="failure"}';
    expect(value(after, key) - value(before, key)).toBe(1);
  });
});
