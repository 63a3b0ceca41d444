import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { fixtureSignals } from '../helpers/protocol-fixtures';
import { ProtocolFixturesModule } from '../helpers/protocol-fixtures';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { notifyRule, WF } from '../workflows/helpers';

/**
 * Per-route request bodies (src/api/body): JSON routes keep 4 MiB and the sanitisers, streaming routes
 * get the untouched request stream, multipart is streamed with its limit enforced while reading,
 * npm publish takes large JSON up to NPM_PUBLISH_MAX_SIZE_MB, form bodies only where declared, and
 * gzip bodies are inflated (a body that is not gzip is a 400 in the route's dialect).
 */
describe('request bodies per route', () => {
  let t: TestApp;
  let url: URL;
  const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

  beforeAll(async () => {
    t = await createTestApp({ modules: [ProtocolFixturesModule], env: { NPM_PUBLISH_MAX_SIZE_MB: '6' } });
    url = new URL(await t.listen());
  });
  afterAll(() => t.close());

  interface RawResponse {
    status: number;
    headers: http.IncomingHttpHeaders;
    body: string;
  }

  function readResponse(res: http.IncomingMessage): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
  }

  /** A request with exactly these bytes (supertest re-serialises Buffers sent as JSON). */
  async function exchange(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<RawResponse> {
    const req = open(method, path, { ...headers, 'Content-Length': body.length });
    req.end(body);
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    return readResponse(res);
  }

  function open(method: string, path: string, headers: Record<string, string | number>): http.ClientRequest {
    return http.request({ host: url.hostname, port: url.port, method, path, headers });
  }

  describe('streaming routes', () => {
    it('the handler reads the request stream while the client is still sending (20 MB arrive intact, nothing parsed)', async () => {
      const chunk = randomBytes(1024 * 1024);
      const total = 20;
      const hash = createHash('sha256');
      const req = open('PUT', '/fixtures/packages/fixture-owner/generic/stream/1.0/file.bin', {
        'Content-Type': 'application/json',
      });
      const response = once(req, 'response') as Promise<[http.IncomingMessage]>;
      const started = once(fixtureSignals, 'stream-started') as Promise<[{ bodyParsed: boolean }]>;
      req.write(chunk);
      hash.update(chunk);
      // A buffering server would wait for the end of the body before running the handler: this waits
      // for the handler first, so the test can only pass when the body is handed over as a stream.
      const [signal] = await started;
      expect(signal.bodyParsed).toBe(false);
      for (let i = 1; i < total; i++) {
        if (!req.write(chunk)) await once(req, 'drain');
        hash.update(chunk);
      }
      req.end();
      const [res] = await response;
      const answer = await readResponse(res);
      expect(answer.status).toBe(200);
      expect(answer.body).toBe(`${total * chunk.length} ${hash.digest('hex')}\n`);
    });

    it('a gzip stream is inflated for the handler (git sends gzip request bodies)', async () => {
      const payload = randomBytes(2 * 1024 * 1024);
      const res = await t
        .http()
        .post('/fixtures/owner/fixture-repo.git/git-upload-pack')
        .set({ 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' })
        .send(gzipSync(payload));
      expect(res.status).toBe(200);
      expect(res.text).toBe(`${payload.length} ${sha256(payload)} unparsed`);
    });

    it('a body that claims gzip but is not is a 400 in the dialect (git: plain text)', async () => {
      const res = await t
        .http()
        .post('/fixtures/owner/fixture-repo.git/git-upload-pack')
        .set({ 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'gzip' })
        .send(Buffer.from('this is not gzip at all'));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toBe('Request body is not valid gzip data.\n');
    });

    it('an unknown content encoding is a 415', async () => {
      const res = await t
        .http()
        .post('/fixtures/owner/fixture-repo.git/git-upload-pack')
        .set({ 'Content-Type': 'application/x-git-upload-pack-request', 'Content-Encoding': 'compress' })
        .send(Buffer.from('abc'));
      expect(res.status).toBe(415);
      expect(res.text).toBe('Unsupported content encoding "compress".\n');
    });

    it('a raw body route buffers up to its limit and refuses more with 413', async () => {
      const path = '/fixtures/packages/fixture-owner/generic/raw/1.0/small.bin';
      const ok = await t
        .http()
        .put(path)
        .set('Content-Type', 'application/octet-stream')
        .send(randomBytes(1000));
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('1000\n');
      const big = await t
        .http()
        .put(path)
        .set('Content-Type', 'application/octet-stream')
        .send(randomBytes(2000));
      expect(big.status).toBe(413);
      expect(big.text).toBe('Request body too large.\n');
    });
  });

  describe('multipart', () => {
    const boundary = 'devplane-boundary-7c1e';
    const path = '/api/v1/fixture-uploads/files';
    const partHeader = (name: string, filename?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n` +
      (filename ? 'Content-Type: application/octet-stream\r\n' : '') +
      '\r\n';

    it('fields and files arrive, files as streams, intact', async () => {
      const a = randomBytes(300 * 1024);
      const b = randomBytes(10);
      const res = await t
        .http()
        .post(path)
        .field('title', 'release notes')
        .attach('asset', a, 'a.bin')
        .attach('asset', b, 'b.bin');
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        fields: { title: 'release notes' },
        files: [
          {
            field: 'asset',
            filename: 'a.bin',
            mimeType: 'application/octet-stream',
            streamed: true,
            bytes: a.length,
            sha256: sha256(a),
          },
          {
            field: 'asset',
            filename: 'b.bin',
            mimeType: 'application/octet-stream',
            streamed: true,
            bytes: b.length,
            sha256: sha256(b),
          },
        ],
      });
    });

    it('over the limit: 413 in the dialect’s shape arrives while the client is still sending', async () => {
      const req = open('POST', path, { 'Content-Type': `multipart/form-data; boundary=${boundary}` });
      let responded: http.IncomingMessage | undefined;
      const response = new Promise<void>((resolve) =>
        req.on('response', (res) => {
          responded = res;
          resolve();
        }),
      );
      req.on('error', () => undefined); // the test destroys the request after the answer
      req.write(partHeader('asset', 'big.bin'));
      const chunk = randomBytes(64 * 1024);
      const plannedBytes = 64 * 1024 * 1024; // 64 times the limit
      let sent = 0;
      while (!responded && sent < plannedBytes) {
        if (!req.write(chunk))
          await Promise.race([new Promise((resolve) => req.once('drain', resolve)), response]);
        sent += chunk.length;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect(responded).toBeDefined();
      expect(sent).toBeLessThan(plannedBytes);
      const answer = await readResponse(responded!);
      req.destroy();
      expect(answer.status).toBe(413);
      // Length unknown (chunked): the rest is discarded up to a bound, the connection kept, so a client
      // still sending reads the answer instead of a reset (issue #46.7).
      expect(answer.headers.connection).not.toBe('close');
      expect(JSON.parse(answer.body)).toEqual({
        message: 'Request body too large.',
        url: `${t.config.publicUrl}api/swagger`,
      });
    });

    it('a client that goes away mid-file ends the handler’s iteration (nothing waits forever)', async () => {
      const req = open('POST', path, { 'Content-Type': `multipart/form-data; boundary=${boundary}` });
      req.on('error', () => undefined);
      const started = once(fixtureSignals, 'file-started');
      const failed = once(fixtureSignals, 'multipart-failed') as Promise<[Error]>;
      req.write(partHeader('asset', 'partial.bin'));
      req.write(randomBytes(32 * 1024));
      await started;
      req.destroy();
      const [error] = await failed;
      expect(error).toBeInstanceOf(Error);
    });

    it('a declared Content-Length over the limit is refused before any byte of the body is read', async () => {
      const req = open('POST', path, {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': 50 * 1024 * 1024,
      });
      req.on('error', () => undefined);
      req.flushHeaders();
      const [res] = (await once(req, 'response')) as [http.IncomingMessage];
      const answer = await readResponse(res);
      req.destroy();
      expect(answer.status).toBe(413);
    });

    it('a route that does not declare multipart refuses it with 415 in its dialect', async () => {
      const res = await t
        .http()
        .post('/api/v2/users/login')
        .field('email', 'a@example.com')
        .field('password', 'x');
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ message: 'Multipart bodies are not accepted here; send JSON.' });
    });

    it('a multipart route refuses JSON with 415', async () => {
      const res = await t.http().post(path).send({ a: 1 });
      expect(res.status).toBe(415);
      expect(res.body.message).toBe('Expected a multipart/form-data body.');
    });
  });

  describe('npm publish (large JSON)', () => {
    const path = '/fixtures/packages/fixture-owner/npm/publish';
    const document = (bytes: number) =>
      JSON.stringify({ name: 'pkg', _attachments: { 'pkg-1.0.0.tgz': { data: 'A'.repeat(bytes) } } });

    it('takes JSON beyond the 4 MiB of other routes, up to NPM_PUBLISH_MAX_SIZE_MB', async () => {
      const res = await t
        .http()
        .put(path)
        .set('Content-Type', 'application/json')
        .send(document(5 * 1024 * 1024));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ name: 'pkg', attachmentLength: 5 * 1024 * 1024 });
    });

    it('refuses more than NPM_PUBLISH_MAX_SIZE_MB with 413 {"error"}', async () => {
      const res = await t
        .http()
        .put(path)
        .set('Content-Type', 'application/json')
        .send(document(7 * 1024 * 1024));
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: 'Request body too large.' });
    });

    it('a declared length over the limit is refused before the body is read (no waiting for gigabytes)', async () => {
      const req = open('PUT', path, {
        'Content-Type': 'application/json',
        'Content-Length': 2 * 1024 * 1024 * 1024,
      });
      req.on('error', () => undefined);
      req.write('{"name":"pkg","_attachments":{"x":{"data":"');
      const [res] = (await once(req, 'response')) as [http.IncomingMessage];
      const answer = await readResponse(res);
      req.destroy();
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body)).toEqual({ error: 'Request body too large.' });
    });

    it('other JSON routes keep the 4 MiB limit', async () => {
      const res = await t
        .http()
        .post('/api/v2/users/login')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ email: 'a@example.com', password: 'A'.repeat(5 * 1024 * 1024) }));
      expect(res.status).toBe(413);
    });
  });

  describe('gzip JSON bodies', () => {
    it('are inflated and parsed', async () => {
      const alice = await t.factories.user();
      const res = await exchange(
        'POST',
        '/api/v2/users/login',
        { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        gzipSync(JSON.stringify({ email: alice.user.email, password: alice.password })),
      );
      expect(res.status).toBe(201);
      expect(typeof (JSON.parse(res.body) as { session_token?: unknown }).session_token).toBe('string');
    });

    it.each([
      ['/api/v2/users/login', { message: 'Request body is not valid gzip data.' }],
      ['/api/v1/user/keys', { message: 'Request body is not valid gzip data.' }],
    ])('that are not gzip are a 400 in the dialect’s shape (was a 500): %s', async (path, expected) => {
      const { token } = await t.factories.user();
      const res = await exchange(
        'POST',
        path,
        { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', Authorization: `token ${token}` },
        Buffer.from('{"email":"plain json, not gzip"}'),
      );
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject(expected);
    });

    it('with an unknown encoding are a 415', async () => {
      const res = await exchange(
        'POST',
        '/api/v2/users/login',
        { 'Content-Type': 'application/json', 'Content-Encoding': 'compress' },
        Buffer.from('{}'),
      );
      expect(res.status).toBe(415);
      expect(JSON.parse(res.body)).toEqual({ message: 'Unsupported content encoding "compress".' });
    });
  });

  /** A rule as PHP clients post it: `checks[0][class]=...&events[0]=...`. */
  function ruleForm(overrides: Record<string, unknown> = {}): string {
    const rule = notifyRule(overrides) as Record<string, unknown> & {
      checks: Record<string, string>[];
      events: string[];
    };
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(rule)) {
      if (key === 'checks')
        rule.checks.forEach((c, i) =>
          Object.entries(c).forEach(([k, v]) => form.append(`checks[${i}][${k}]`, v)),
        );
      else if (key === 'events') rule.events.forEach((e, i) => form.append(`events[${i}]`, e));
      else form.append(key, String(value));
    }
    return form.toString();
  }

  describe('form-encoded bodies', () => {
    it.each([
      ['/api/v2/users/login', { message: 'Form-encoded bodies are not accepted here; send JSON.' }],
      [
        '/api/v1/user/keys',
        {
          message: 'Form-encoded bodies are not accepted here; send JSON.',
          url: expect.any(String) as string,
        },
      ],
    ])('are refused with 415 where the route does not declare them: %s', async (path, expected) => {
      const { token } = await t.factories.user();
      const res = await t
        .http()
        .post(path)
        .set('Authorization', `token ${token}`)
        .type('form')
        .send({ email: 'a@example.com', password: 'x', title: 't', key: 'k' });
      expect(res.status).toBe(415);
      expect(res.body).toEqual(expected);
    });

    it('an empty form body (curl -X POST -d "") is no body, not a 415', async () => {
      const res = await exchange(
        'POST',
        '/api/v2/users/login',
        { 'Content-Type': 'application/x-www-form-urlencoded' },
        Buffer.alloc(0),
      );
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ message: expect.any(String) as string });
      expect(JSON.parse(res.body).message).not.toMatch(/Form-encoded/);
    });

    it('are accepted where the wire documents them (OCS binds form parameters)', async () => {
      const { token } = await t.factories.user();
      const res = await t
        .http()
        .post(`${WF}/user`)
        .query({ format: 'json' })
        .set({ 'OCS-APIRequest': 'true', Authorization: `Bearer ${token}` })
        .type('form')
        .send(ruleForm({ name: 'From a form' }));
      expect(res.status).toBe(200);
      expect(res.body.ocs.data).toMatchObject({ name: 'From a form', events: [notifyRule().events[0]] });
    });
  });

  describe('JSON routes keep their sanitisers', () => {
    it('NUL in a JSON body: 400 in the dialect’s shape', async () => {
      const res = await t
        .http()
        .post('/api/v2/users/login')
        .send({ email: 'a\u0000@example.com', password: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Request contains a NUL character.' });
    });

    it('NUL in a form body of a form route: 400 too', async () => {
      const { token } = await t.factories.user();
      const res = await t
        .http()
        .post(`${WF}/user`)
        .query({ format: 'json' })
        .set({ 'OCS-APIRequest': 'true', Authorization: `Bearer ${token}` })
        .type('form')
        .send(ruleForm({ name: 'a\u0000b' }));
      expect(res.status).toBe(400);
      expect(res.body.ocs.meta.message).toBe('Request contains a NUL character.');
    });

    it('NUL bytes in a streamed body are the handler’s business (binary files hold them)', async () => {
      const payload = Buffer.from([0, 1, 0, 2, 0]);
      const res = await t
        .http()
        .post('/fixtures/owner/fixture-repo.git/git-upload-pack')
        .set('Content-Type', 'application/x-git-upload-pack-request')
        .send(payload);
      expect(res.status).toBe(200);
      expect(res.text).toBe(`5 ${sha256(payload)} unparsed`);
    });
  });
});

describe('routing is case-sensitive', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it.each([
    ['/API/V2/users/me', '/api/v2/users/me'],
    ['/API/V1/user', '/api/v1/user'],
    ['/Api/v2/users/me', '/api/v2/users/me'],
    ['/api/v2/USERS/me', '/api/v2/users/me'],
  ])('%s is 404 while %s answers', async (wrong, right) => {
    const { token } = await t.factories.user();
    const bad = await t.http().get(wrong).set('Authorization', `Bearer ${token}`);
    expect(bad.status).toBe(404);
    const good = await t.http().get(right).set('Authorization', `Bearer ${token}`);
    expect(good.status).toBe(200);
  });
});
