import { ProtocolFixturesModule } from '../helpers/protocol-fixtures';
import { createTestApp, type TestApp } from '../helpers/test-app';

/**
 * The protocol dialects (src/api/{git,npm,generic,sse}): each route's dialect is its controller's
 * metadata, and its errors take that dialect's shape, with a Basic challenge on 401 where the
 * client (git, npm, curl) needs one to ask for credentials.
 */
describe('protocol dialects', () => {
  let t: TestApp;
  const challenge = 'Basic realm="devplane"';

  beforeAll(async () => {
    t = await createTestApp({ modules: [ProtocolFixturesModule] });
  });
  afterAll(() => t.close());

  describe('git smart HTTP', () => {
    const base = '/fixtures/owner/fixture-repo.git';

    it('401 without credentials: plain text git prints, with a Basic challenge so git asks for credentials', async () => {
      const res = await t.http().get(`${base}/info/refs`).query({ service: 'git-upload-pack' });
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.headers['www-authenticate']).toBe(challenge);
      expect(res.text).toBe('Authentication required.\n');
    });

    it('the same route with credentials passes', async () => {
      const { token } = await t.factories.user();
      const res = await t.http().get(`${base}/info/refs`).set('Authorization', `token ${token}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe('refs');
    });

    it.each([
      ['not_found', 404, 'Package not found.\n'],
      ['forbidden', 403, 'You may not do that.\n'],
      ['too_large', 413, 'File too large.\n'],
      ['internal', 500, 'Internal Server Error\n'],
    ])('%s: %i as plain text, no challenge, internals hidden', async (kind, status, text) => {
      const res = await t.http().get(`${base}/fail`).query({ kind });
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.headers['www-authenticate']).toBeUndefined();
      expect(res.text).toBe(text);
    });

    it('an unknown route under a .git path is a plain-text 404 (dialect of the path before routing)', async () => {
      const res = await t.http().get('/someone/else.git/objects/info/packs');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
    });
  });

  describe('npm registry', () => {
    const base = '/fixtures/packages/fixture-owner/npm';

    it('401 is {"error"} with a Basic challenge', async () => {
      const res = await t.http().get(`${base}/private-package`);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['www-authenticate']).toBe(challenge);
      expect(res.body).toEqual({ error: 'Authentication required.' });
    });

    it.each([
      ['not_found', 404, { error: 'Package not found.' }],
      ['forbidden', 403, { error: 'You may not do that.' }],
      ['invalid', 400, { error: 'Validation failed. version: must be semver' }],
      ['internal', 500, { error: 'Internal Server Error' }],
    ])('%s: %i {"error"}', async (kind, status, body) => {
      const res = await t.http().get(`${base}/fail`).query({ kind });
      expect(res.status).toBe(status);
      expect(res.body).toEqual(body);
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it('bad JSON on publish is a 400 {"error"}, not the Gitea shape', async () => {
      const res = await t
        .http()
        .put(`${base}/publish`)
        .set('Content-Type', 'application/json')
        .send('{"name":');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'Request body must be valid JSON.' });
    });

    it('an unknown npm path is a 404 {"error"} (dialect of the path before routing)', async () => {
      const res = await t.http().get('/api/packages/someone/npm/nothing/here/at/all');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Route not found.' });
    });
  });

  describe('generic package registry', () => {
    const base = '/fixtures/packages/fixture-owner/generic';

    it('401 is plain text with a Basic challenge (curl -u retries)', async () => {
      const res = await t.http().get(`${base}/private/1.0/file.bin`);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.headers['www-authenticate']).toBe(challenge);
      expect(res.text).toBe('Authentication required.\n');
    });

    it.each([
      ['not_found', 404, 'Package not found.\n'],
      ['invalid', 400, 'Validation failed.\nversion: must be semver\n'],
      ['internal', 500, 'Internal Server Error\n'],
    ])('%s: %i as plain text', async (kind, status, text) => {
      const res = await t.http().get(`${base}/fail`).query({ kind });
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toBe(text);
    });
  });

  describe('server-sent events', () => {
    it('an error before the stream starts is the route API’s JSON error with its status', async () => {
      const res = await t.http().get('/api/v2/fixture-events/watch').query({ fail: 'before' });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ message: 'Workspace not found.', detail: 'no such workspace' });
    });

    it('a stream without failure sends its events', async () => {
      const res = await t
        .http()
        .get('/api/v2/fixture-events/watch')
        .buffer(true)
        .parse((r, done) => {
          let text = '';
          r.on('data', (chunk: Buffer) => (text += chunk.toString()));
          r.on('end', () => done(null, text));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.body).toContain('event: update\n');
      expect(res.body).toContain('data: {"n":1}');
    });

    it('an error after the stream started is an `event: error` frame carrying the API’s error body', async () => {
      const res = await t
        .http()
        .get('/api/v2/fixture-events/watch')
        .query({ fail: 'after' })
        .buffer(true)
        .parse((r, done) => {
          let text = '';
          r.on('data', (chunk: Buffer) => (text += chunk.toString()));
          r.on('end', () => done(null, text));
        });
      expect(res.status).toBe(200);
      const body = res.body as string;
      expect(body).toContain('event: update\n');
      const frame = /event: error\n(?:id: .*\n)?data: (.*)\n/.exec(body);
      expect(frame).not.toBeNull();
      expect(JSON.parse(frame![1]!)).toEqual({ message: 'Access revoked.' });
      expect(body).not.toContain('unreachable');
    });
  });
});
