import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAllowedHostList } from '../../../src/platform/net/allowed-host-list';
import { compileBranchFilter } from '../../../src/modules/repositories/webhooks/branch-filter';
import { hookEventFlags, hookEventHeader } from '../../../src/modules/repositories/webhooks/webhook-events';
import { sendHook } from '../../../src/modules/repositories/webhooks/webhook-sender';

describe('webhook rules', () => {
  it("sets Gitea's event flags from a request's events", () => {
    expect(hookEventFlags(undefined)).toEqual(['push']);
    expect(hookEventFlags([])).toEqual(['push']);
    expect(hookEventFlags(['PUSH', 'create', 'unknown'])).toEqual(['create', 'push']);
    expect(hookEventFlags(['issues_only'])).toEqual(['issues']);
    expect(hookEventFlags(['pull_request'])).toEqual([
      'pull_request',
      'pull_request_assign',
      'pull_request_label',
      'pull_request_milestone',
      'pull_request_comment',
      'pull_request_review_approved',
      'pull_request_review_rejected',
      'pull_request_review_comment',
      'pull_request_sync',
      'pull_request_review_request',
    ]);
    expect(hookEventHeader('pull_request_sync')).toBe('pull_request');
    expect(hookEventHeader('pull_request_comment')).toBe('issue_comment');
  });

  it('matches branch filters as gobwas/glob without separators', () => {
    expect(compileBranchFilter('')!('any/thing')).toBe(true);
    expect(compileBranchFilter('release/*')!('release/1.0')).toBe(true);
    expect(compileBranchFilter('release/*')!('main')).toBe(false);
    expect(compileBranchFilter('*')!('a/b/c')).toBe(true);
    expect(compileBranchFilter('{main,dev}')!('dev')).toBe(true);
    expect(compileBranchFilter('{main,dev}')!('devs')).toBe(false);
    expect(compileBranchFilter('[unclosed')).toBeNull();
  });

  it('does not connect to a loopback receiver the list does not allow (literal or by name)', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const request = {
      contentType: 'json' as const,
      secret: '',
      authorization: '',
      uuid: '00000000-0000-4000-8000-000000000000',
      eventType: 'push' as const,
      payload: '{}',
    };
    try {
      const external = parseAllowedHostList('external');
      for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`]) {
        const response = await sendHook({ ...request, url }, { list: external, timeoutMs: 2000 });
        expect([url, response.status, response.permanent]).toEqual([url, null, true]);
        expect(response.body).toContain('WEBHOOK_ALLOWED_HOST_LIST');
      }
      expect(hits).toBe(0);
      const allowed = await sendHook(
        { ...request, url: `http://localhost:${port}/` },
        { list: parseAllowedHostList('loopback'), timeoutMs: 2000 },
      );
      expect(allowed.status).toBe(200);
      expect(hits).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
