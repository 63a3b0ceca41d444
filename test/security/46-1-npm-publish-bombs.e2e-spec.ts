import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { constants, createGzip } from 'node:zlib';
import { type MainProcess, startMain } from './helpers/server-main';

jest.setTimeout(400_000);

const ADMIN = {
  ADMIN_USERNAME: 'root46',
  ADMIN_EMAIL: 'root46@example.com',
  ADMIN_PASSWORD: 'Root-46-Pass-Word-x',
};
const MiB = 1024 * 1024;

/** gzip of a JSON document of spaces inflating to `inflatedBytes` (the test never holds it inflated). */
async function gzipBomb(inflatedBytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: constants.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = once(gzip, 'end');
  const step = Buffer.alloc(MiB, ' ');
  gzip.write('{"name":"x",');
  for (let written = 0; written < inflatedBytes; written += step.length) {
    if (!gzip.write(step)) await once(gzip, 'drain');
  }
  gzip.end('"_attachments":{}}');
  await done;
  return Buffer.concat(out);
}

/** VmRSS of a process in bytes, from /proc/<pid>/status. */
function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match![1]) * 1024;
}

interface Answer {
  status: number;
  body: string;
  /** Request bytes the client had written when the answer's headers arrived. */
  sentWhenAnswered: number;
}

describe('#46.1 npm publish: access before the body, inflated bytes capped, large bodies bounded', () => {
  let root = '';
  let server: MainProcess;
  let base: URL;
  let alice = '';
  let bob = '';
  let narrow = '';

  async function api(
    method: string,
    url: string,
    auth: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  }

  async function userWithToken(name: string, scopes: string[]): Promise<string> {
    const admin = `Basic ${Buffer.from(`${ADMIN.ADMIN_USERNAME}:${ADMIN.ADMIN_PASSWORD}`).toString('base64')}`;
    const password = `Pw-${name}-Strong-1x`;
    const created = await api('POST', '/api/v1/admin/users', admin, {
      username: name,
      email: `${name}@example.com`,
      password,
      must_change_password: false,
    });
    expect([201, 422]).toContain(created.status);
    const basic = `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
    const token = await api('POST', `/api/v1/users/${name}/tokens`, basic, {
      name: `t-${scopes.join('-')}`,
      scopes,
    });
    expect(token.status).toBe(201);
    return token.body!.sha1 as string;
  }

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'dp-46-1-'));
    server = await startMain({ ...ADMIN, DATA_DIR: path.join(root, 'data') }, 280_000);
    base = new URL(server.url);
    alice = await userWithToken('alice46', ['write:package', 'write:user']);
    bob = await userWithToken('bob46', ['write:package']);
    narrow = await userWithToken('carol46', ['read:package']);
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  /** PUTs `body` in 64 KiB steps; with `holdBackAfter`, stops writing (without ending) after that many bytes. */
  function send(
    pathname: string,
    token: string,
    body: Buffer,
    encoding = 'gzip',
    holdBackAfter = Infinity,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      let sent = 0;
      const req = http.request({
        host: base.hostname,
        port: base.port,
        method: 'PUT',
        path: pathname,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          'Content-Encoding': encoding,
          'Content-Length': String(body.length),
        },
      });
      req.on('error', (error) => (holdBackAfter === Infinity ? reject(error) : undefined));
      req.on('response', (res) => {
        const sentWhenAnswered = sent;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: text, sentWhenAnswered });
          if (holdBackAfter !== Infinity) req.destroy();
        });
      });
      // Headers first, then the body in 64 KiB steps with pauses, so an early answer is visible.
      req.flushHeaders();
      void (async () => {
        for (let offset = 0; offset < body.length; offset += 64 * 1024) {
          if (req.destroyed) return;
          if (offset >= holdBackAfter) return; // the rest is never sent
          const chunk = body.subarray(offset, offset + 64 * 1024);
          sent += chunk.length;
          if (!req.write(chunk)) await once(req, 'drain');
          await new Promise((r) => setTimeout(r, 5));
        }
        req.end();
      })().catch(reject);
    });
  }

  async function healthzMs(): Promise<number> {
    const started = performance.now();
    const res = await fetch(`${server.url}/healthz`);
    await res.text();
    expect(res.status).toBe(200);
    return performance.now() - started;
  }

  it("bombs to another user's scope are refused before their body is read (401/404), RSS barely moves", async () => {
    const bomb = await gzipBomb(400 * MiB);
    expect(bomb.length).toBeGreaterThan(256 * 1024); // several requests' worth of gzip: the answer comes first
    const idle = rss(server.pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rss(server.pid))), 20);
    const answers = await Promise.all([
      send('/api/packages/alice46/npm/stolen', bob, bomb),
      send('/api/packages/alice46/npm/@alice46%2fstolen', bob, bomb),
      send('/api/packages/alice46/npm/stolen', narrow, bomb),
      send('/api/packages/nobody46/npm/stolen', bob, bomb),
    ]);
    const slow: number[] = [];
    slow.push(await healthzMs());
    clearInterval(sampler);
    expect(answers.map((a) => a.status)).toEqual([401, 401, 403, 404]);
    for (const answer of answers)
      expect(JSON.parse(answer.body)).toEqual({ error: expect.any(String) as string });
    expect((peak - idle) / MiB).toBeLessThan(128);
    expect(slow[0]).toBeLessThan(1000);
  });

  it('the refusal needs no byte of the body: answered while the client holds back all but 64 KiB', async () => {
    const bomb = await gzipBomb(400 * MiB);
    const answers = await Promise.all([
      send('/api/packages/alice46/npm/stolen', bob, bomb, 'gzip', 64 * 1024),
      send('/api/packages/alice46/npm/stolen', narrow, bomb, 'gzip', 64 * 1024),
    ]);
    expect(answers.map((a) => a.status)).toEqual([401, 403]);
    for (const answer of answers) expect(answer.sentWhenAnswered).toBeLessThanOrEqual(64 * 1024);
  });

  it('bombs to the own scope are 413 once the limit is inflated; three at once stay under 128 MiB, /healthz answers', async () => {
    const bomb = await gzipBomb(400 * MiB);
    const idle = rss(server.pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rss(server.pid))), 20);
    const pending = Promise.all([1, 2, 3].map((n) => send(`/api/packages/alice46/npm/own${n}`, alice, bomb)));
    const health = await healthzMs();
    const answers = await pending;
    clearInterval(sampler);
    expect(answers.map((a) => a.status)).toEqual([413, 413, 413]);
    expect(JSON.parse(answers[0]!.body)).toEqual({ error: 'Request body too large.' });
    expect((peak - idle) / MiB).toBeLessThan(128);
    expect(health).toBeLessThan(1000);
  });

  it('a real publish to the own scope still works (small document, gzip and plain)', async () => {
    const tarball = Buffer.from('not really a tarball').toString('base64');
    const doc = {
      name: 'real46',
      versions: { '1.0.0': { name: 'real46', version: '1.0.0', dist: { tarball: 'x' } } },
      'dist-tags': { latest: '1.0.0' },
      _attachments: {
        'real46-1.0.0.tgz': { content_type: 'application/octet-stream', data: tarball, length: 20 },
      },
    };
    const res = await send(
      '/api/packages/alice46/npm/real46',
      alice,
      Buffer.from(JSON.stringify(doc)),
      'identity',
    );
    expect(res.status).toBe(201);
    const again = await send(
      '/api/packages/alice46/npm/real46',
      bob,
      Buffer.from(JSON.stringify(doc)),
      'identity',
    );
    expect(again.status).toBe(401);
  });
});
