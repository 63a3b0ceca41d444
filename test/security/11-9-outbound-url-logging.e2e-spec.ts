import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { redactUrlIn, safeUrl } from '../../src/platform/net/safe-url';
import { type AppProcess, startAppProcess } from '../helpers/app-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { bearer, check, notifyRule, ocs, WEBHOOK, WF } from '../workflows/helpers';

jest.setTimeout(180_000);

const SECRETS = [
  'PW-SECRET-1',
  'QUERY-SECRET-2',
  'FRAG-SECRET-3',
  'PW-SECRET-4',
  'QUERY-SECRET-5',
  'PW-SECRET-6',
  'QUERY-SECRET-7',
  'PW-SECRET-8',
  'QUERY-SECRET-9',
  // issue 31.10: secrets in the path (segments after the first are logged as ***)
  'PATH-SECRET-10',
  'PATH-SECRET-11',
  'PATH-SECRET-12',
  'PATH-SECRET-13',
];

describe('11.9 and 31.10: outbound URLs are logged as origin and first path segment only', () => {
  it('safeUrl keeps origin and path, drops user info, query and fragment', () => {
    expect(
      safeUrl(
        'https://user:PW-SECRET-1@hooks.example.com:8443/a/b?access_token=QUERY-SECRET-2#FRAG-SECRET-3',
      ),
    ).toBe('https://hooks.example.com:8443/a/***');
    expect(safeUrl('http://[::1]:80/x?y=1')).toBe('http://[::1]/x');
    expect(safeUrl('not a url PW-SECRET-1')).toBe('[invalid URL]');
    expect(safeUrl(undefined)).toBe('');
    const url = 'http://u:PW-SECRET-4@example.com/p?k=QUERY-SECRET-5';
    expect(
      redactUrlIn(`Request cannot be constructed from a URL that includes credentials: ${url}`, url),
    ).toBe('Request cannot be constructed from a URL that includes credentials: http://example.com/p');
  });

  /**
   * The real server (child process, LOG_LEVEL=info, its stdout captured) with failing workflow
   * webhooks (500 retried then given up, 404, connection refused) and a failing notification
   * webhook, all with credentials in the user info and the query: the failure lines name the
   * endpoint, and no secret reaches the logs.
   */
  describe('the logs of a real server', () => {
    let t: TestApp;
    let server: http.Server;
    let child: AppProcess | undefined;
    const hits: string[] = [];

    beforeAll(async () => {
      t = await createTestApp({ env: { WORKFLOW_WEBHOOK_ALLOW_PRIVATE: 'true', JOBS_CONCURRENCY: '0' } });
      server = http.createServer((req, res) => {
        hits.push(req.url ?? '');
        res.writeHead(req.url?.startsWith('/fail/404') ? 404 : 500).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await child?.kill('SIGKILL');
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    });

    it('webhook and notification failures log no user info and no query', async () => {
      const port = (server.address() as AddressInfo).port;
      // A port nobody listens on: bind, read, close.
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));

      const token = (await t.factories.admin()).token;
      const hooks = [
        `http://hookuser:PW-SECRET-1@127.0.0.1:${port}/fail/500/PATH-SECRET-10?access_token=QUERY-SECRET-2#FRAG-SECRET-3`,
        `http://u:PW-SECRET-4@127.0.0.1:${port}/fail/404/PATH-SECRET-11?sig=QUERY-SECRET-5`,
        `http://u:PW-SECRET-6@127.0.0.1:${closedPort}/refused/PATH-SECRET-12?k=QUERY-SECRET-7`,
      ];
      for (const [i, url] of hooks.entries()) {
        const res = await ocs(t, 'post', `${WF}/global`, bearer(token), {
          ...notifyRule({ name: `hook ${i}`, checks: [check('RequestURL', 'is', 'cli')] }),
          class: WEBHOOK,
          entity: 'OCA\\Devplane\\Entity\\User',
          events: ['OCA\\Devplane\\Events\\UserCreatedEvent'],
          operation: JSON.stringify({ url }),
        });
        expect(res.status).toBe(200);
      }

      child = await startAppProcess({
        DATABASE_SCHEMA: t.schema,
        LOG_LEVEL: 'info',
        WORKFLOW_WEBHOOK_ALLOW_PRIVATE: 'true',
        WORKFLOW_WEBHOOK_RETRIES: '1',
        WORKFLOW_WEBHOOK_BACKOFF_MS: '10',
        WORKFLOW_WEBHOOK_TIMEOUT_MS: '2000',
        JOBS_POLL_INTERVAL_MS: '200',
        NOTIFICATIONS_METHOD: 'webhook',
        NOTIFICATIONS_WEBHOOK_URL: `http://nuser:PW-SECRET-8@127.0.0.1:${port}/notify/PATH-SECRET-13?key=QUERY-SECRET-9`,
        NOTIFICATIONS_MAX_SEND_ATTEMPTS: '1',
        NOTIFICATIONS_FETCH_INTERVAL_MS: '100',
      });
      const res = await fetch(`${child.url}/api/v1/admin/users`, {
        method: 'POST',
        headers: { ...bearer(token), 'Content-Type': 'application/json' },
        body: JSON.stringify({
          username: 'logged',
          email: 'logged@example.com',
          password: 'Logged-Pass-1234',
          must_change_password: false,
          send_notify: true,
        }),
      });
      expect(res.status).toBe(201);

      const deadline = Date.now() + 60_000;
      const count = (text: string) => child!.output().split(text).length - 1;
      while (
        (count('webhook delivery failed') < 3 || count('notification permanently failed') < 1) &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const logs = child.output();
      expect(count('webhook delivery failed')).toBe(3);
      expect(count('notification permanently failed')).toBeGreaterThanOrEqual(1);
      // The endpoints are named (origin + first path segment), so the lines stay useful.
      expect(logs).toContain(`"url":"http://127.0.0.1:${port}/fail/***/***"`);
      expect(logs).toContain(`"url":"http://127.0.0.1:${closedPort}/refused/***"`);
      expect(count(`"url":"http://127.0.0.1:${port}/fail/***/***"`)).toBe(2);
      expect(logs).toContain(`http://127.0.0.1:${port}/notify/***`);
      // The receiver did get the credentials it was configured with (behaviour kept), the logs did not.
      expect(hits.filter((h) => h.startsWith('/fail/500'))).toEqual([
        '/fail/500/PATH-SECRET-10?access_token=QUERY-SECRET-2',
        '/fail/500/PATH-SECRET-10?access_token=QUERY-SECRET-2',
      ]);
      expect(SECRETS.filter((secret) => logs.includes(secret))).toEqual([]);
      // The stored reasons too (jobs.last_error, notification_messages.status_reason); the job's payload keeps the URL it must call.
      const stored: { text: string }[] = await t.dataSource.query(
        `SELECT last_error AS text FROM jobs WHERE last_error IS NOT NULL
         UNION ALL SELECT status_reason AS text FROM notification_messages WHERE status_reason IS NOT NULL`,
      );
      expect(stored.length).toBeGreaterThanOrEqual(4);
      expect(SECRETS.filter((secret) => stored.some((row) => row.text.includes(secret)))).toEqual([]);
    });
  });
});
