import http from 'node:http';
import type { Request } from 'express';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fromThisHost } from '../../src/modules/repositories/git/hook-caller.assignment';
import { PushSessions } from '../../src/modules/repositories/git/push-sessions.service';
import { createTestApp, type TestApp } from '../helpers/test-app';

function fakeRequest(remoteAddress: string | undefined, localAddress: string): Request {
  return { socket: { remoteAddress, localAddress } } as unknown as Request;
}

/**
 * Issue #46.3: `/api/internal/git-hooks/*` answers 404 to every caller that is not git's hook on this
 * host with a live push's token, before the body is read or validated, and is not in the OpenAPI
 * document. (Pushes that go through the hooks are covered by test/repositories/git-smart-http.)
 */
describe('#46.3 the git hooks callback is not a public route', () => {
  let t: TestApp;
  let base: URL;

  beforeAll(async () => {
    t = await createTestApp();
    base = new URL(await t.listen());
  });
  afterAll(() => t.close());

  it('only loopback or the connection’s own local address counts as this host', () => {
    expect(fromThisHost(fakeRequest('127.0.0.1', '127.0.0.1'))).toBe(true);
    expect(fromThisHost(fakeRequest('::ffff:127.0.0.1', '::ffff:127.0.0.1'))).toBe(true);
    expect(fromThisHost(fakeRequest('::1', '::1'))).toBe(true);
    expect(fromThisHost(fakeRequest('10.0.0.5', '10.0.0.5'))).toBe(true);
    expect(fromThisHost(fakeRequest('::ffff:10.0.0.5', '10.0.0.5'))).toBe(true);
    expect(fromThisHost(fakeRequest('10.0.0.9', '10.0.0.5'))).toBe(false);
    expect(fromThisHost(fakeRequest('203.0.113.7', '127.0.0.1'))).toBe(false);
    expect(fromThisHost(fakeRequest('::ffff:203.0.113.7', '::ffff:10.0.0.5'))).toBe(false);
    expect(fromThisHost(fakeRequest(undefined, '127.0.0.1'))).toBe(false);
  });

  it.each<[string, Record<string, string>]>([
    ['no token', {}],
    ['a wrong token', { 'X-Devplane-Hook-Token': 'not-a-session' }],
    ['an empty token', { 'X-Devplane-Hook-Token': '' }],
    ['an API token as Authorization', { Authorization: 'token abc' }],
  ])('a call with %s is 404 before validation (a malformed body is not 400)', async (_name, headers) => {
    for (const hook of ['pre-receive', 'post-receive', 'anything']) {
      const res = await t.http().post(`/api/internal/git-hooks/${hook}`).set(headers).send({ bogus: true });
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain('Validation');
    }
  });

  it('a token of a push that ended is 404', async () => {
    const pushes = t.app.get(PushSessions);
    const session = pushes.open({
      repository: {} as never,
      pusher: {} as never,
      mode: 'write' as never,
      request: null,
    });
    session.close();
    const res = await t
      .http()
      .post('/api/internal/git-hooks/pre-receive')
      .set('X-Devplane-Hook-Token', session.token)
      .send({ hook: 'pre-receive', refs: [] });
    expect(res.status).toBe(404);
  });

  it('a live token from loopback reaches validation (400 for a malformed body)', async () => {
    const pushes = t.app.get(PushSessions);
    const session = pushes.open({
      repository: {} as never,
      pusher: {} as never,
      mode: 'write' as never,
      request: null,
    });
    try {
      const res = await t
        .http()
        .post('/api/internal/git-hooks/pre-receive')
        .set('X-Devplane-Hook-Token', session.token)
        .send({ hook: 'nonsense' });
      expect(res.status).toBe(400);
    } finally {
      session.close();
    }
  });

  it('the body of a refused call is never read: the 404 arrives while the client has sent none of it', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: base.hostname,
        port: base.port,
        method: 'POST',
        path: '/api/internal/git-hooks/pre-receive',
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(64 * 1024 * 1024) },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.flushHeaders();
    });
    expect(status).toBe(404);
  });

  it('is not in the OpenAPI document (served or committed)', async () => {
    const served = await t.http().get('/docs-json');
    if (served.status === 200) expect(JSON.stringify(served.body)).not.toContain('git-hooks');
    const committed = readFileSync(path.join(__dirname, '../../openapi.json'), 'utf8');
    expect(committed).not.toContain('/api/internal/');
  });
});
