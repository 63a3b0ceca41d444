import { type AppProcess, startAppProcess } from '../helpers/app-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { MetricsService } from '../../src/platform/metrics/metrics.service';
import { loadConfig } from '../../src/platform/config/app-config';
import type { IndexedExpressAdapter } from '../../src/platform/http/route-index';

/** Issue 10 item 11: metrics, request logs, configuration errors. */
describe('operability', () => {
  describe('GET /metrics with METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { METRICS_TOKEN: 'metrics-secret-token' } });
    });
    afterAll(() => t.close());

    it('needs the token (401 without or with a wrong one)', async () => {
      expect((await t.http().get('/metrics')).status).toBe(401);
      expect((await t.http().get('/metrics').set('Authorization', 'Bearer wrong')).status).toBe(401);
    });

    it('counts requests per route pattern and status, and reports pool, jobs and realtime subscribers', async () => {
      const user = await t.factories.user({ username: 'metricsuser' });
      await t.http().get('/api/v2/users/metricsuser').set('Service-Session-Token', user.token).expect(200);
      await t.http().get('/api/v2/users/nobody-here').set('Service-Session-Token', user.token).expect(404);
      const res = await t.http().get('/metrics').set('Authorization', 'Bearer metrics-secret-token');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain('text/plain');
      expect(res.text).toMatch(
        /devplane_http_requests_total\{method="GET",route="\/api\/v2\/users\/:user",status="200"\} 1/,
      );
      expect(res.text).toMatch(
        /devplane_http_requests_total\{method="GET",route="\/api\/v2\/users\/:user",status="404"\} 1/,
      );
      expect(res.text).toContain('devplane_http_request_duration_seconds_bucket');
      expect(res.text).toMatch(/devplane_db_pool_connections\{state="total"\} \d+/);
      expect(res.text).toContain('devplane_realtime_subscribers');
      expect(res.text).toContain('# TYPE devplane_jobs gauge');
      expect(res.text).toContain('devplane_process_cpu_user_seconds_total');
      // Event-loop delay (prom-client's monitorEventLoopDelay histogram): the tail-latency signal (issue 37).
      expect(res.text).toMatch(/devplane_nodejs_eventloop_lag_p99_seconds \d/);
    });
  });

  describe('GET /metrics on METRICS_PORT', () => {
    it('serves metrics on its own port and not on the main one', async () => {
      const t = await createTestApp({ env: { METRICS_PORT: '0' } });
      try {
        await t.app.init();
        expect((await t.http().get('/metrics')).status).toBe(404);
        const port = t.app.get(MetricsService).metricsPort();
        expect(port).toBeGreaterThan(0);
        const res = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('devplane_http_requests_total');
      } finally {
        await t.close();
      }
    });

    it('is off when neither is configured (404)', async () => {
      const t = await createTestApp();
      try {
        expect((await t.http().get('/metrics')).status).toBe(404);
      } finally {
        await t.close();
      }
    });
  });

  describe('API documentation', () => {
    it('answers at /docs and /docs-json, and the API routes are tried before it', async () => {
      const t = await createTestApp();
      try {
        const ui = await t.http().get('/docs');
        expect(ui.status).toBe(200);
        expect(ui.headers['content-type']).toMatch(/text\/html/);
        const document = await t.http().get('/docs-json');
        expect(document.status).toBe(200);
        expect(document.body.paths['/api/v1/user']).toBeDefined();
        expect((await t.http().get('/docs-experimental-json')).status).toBe(200);
        // Routes are grouped by their first two segments (src/platform/http/route-index.ts): an API
        // request tries its own group's routes only, never the documentation's.
        const groups = (t.app.getHttpAdapter() as IndexedExpressAdapter).groups();
        const groupOf = (path: string) =>
          groups.findIndex((group) => [...group.values()].some((paths) => paths.includes(path)));
        expect(groupOf('/api/v1/user')).toBeGreaterThanOrEqual(0);
        expect(groups[groupOf('/api/v1/user')]!.get('/api/v1')).toContain('/api/v1/user');
        expect(groups[groupOf('/docs-json')]!.get('/docs-json')).toEqual(['/docs-json']);
      } finally {
        await t.close();
      }
    });
  });

  describe('request logs', () => {
    let t: TestApp;
    let child: AppProcess | undefined;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(async () => {
      await child?.kill('SIGTERM');
      await t.close();
    });

    it('carry the client address, the user id and the user agent, never the token', async () => {
      child = await startAppProcess({ DATABASE_SCHEMA: t.schema, LOG_LEVEL: 'info' });
      const user = await t.factories.user({ username: 'loggeduser' });
      const res = await fetch(`${child.url}/api/v1/user?token=${user.token}`, {
        headers: { 'User-Agent': 'operability-test/2.0' },
      });
      expect(res.status).toBe(200);
      const other = await t.factories.user({ username: 'headeruser' });
      const byHeader = await fetch(`${child.url}/api/v1/user`, {
        headers: { Authorization: `token ${other.token}`, Cookie: `coder_session_token=${other.token}` },
      });
      expect(byHeader.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const line = child
        .output()
        .split('\n')
        .find((entry) => entry.includes('operability-test/2.0'));
      expect(line).toBeDefined();
      const entry = JSON.parse(line!) as { req: Record<string, unknown>; userId?: string };
      expect(entry.req).toMatchObject({ method: 'GET', userAgent: 'operability-test/2.0' });
      expect(entry.userId).toBe(user.user.id);
      expect(String(entry.req.remoteAddress)).toMatch(/127\.0\.0\.1/);
      expect(child.output()).not.toContain(user.token);
      const lines = child
        .output()
        .split('\n')
        .filter((entry) => entry.startsWith('{'))
        .map((entry) => JSON.parse(entry) as { userId?: string });
      expect(lines.some((entry) => entry.userId === other.user.id)).toBe(true);
      expect(child.output()).not.toContain(other.token);
    });
  });

  describe('configuration errors', () => {
    it('never echo a URL that may carry a password', () => {
      expect(() => loadConfig({ DATABASE_URL: 'postgres://u:hunter2@[broken' })).toThrow(
        /^Invalid configuration: DATABASE_URL must be a URL \(the value is not shown/,
      );
      try {
        loadConfig({ DATABASE_URL: 'postgres://u:hunter2@[broken' });
      } catch (error) {
        expect((error as Error).message).not.toContain('hunter2');
      }
      expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT must be one of json, pretty/);
    });
  });
});
