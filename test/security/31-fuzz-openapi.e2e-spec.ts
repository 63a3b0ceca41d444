import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { buildExperimentalOpenApiDocument, buildOpenApiDocument } from '../../src/api/openapi';
import { createTestApp, type TestApp } from '../helpers/test-app';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Operation {
  method: string;
  path: string;
}

interface Variant {
  name: string;
  headers: Record<string, string>;
  body: Buffer;
}

interface Outcome {
  op: string;
  variant: string;
  auth: string;
  status: number | 'timeout' | 'reset';
}

/** Every documented operation, path parameters filled with `1` (ids parse; names find nothing). */
function operations(documents: { paths: Record<string, Record<string, unknown>> }[]): Operation[] {
  const seen = new Set<string>();
  const out: Operation[] = [];
  for (const document of documents) {
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        if (!(method in item)) continue;
        const path = template.replace(/\{[^}]+\}/g, '1');
        const key = `${method} ${path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ method: method.toUpperCase(), path });
      }
    }
  }
  return out;
}

/**
 * Acceptance fuzz of issue #31: every operation of the generated OpenAPI documents receives deep,
 * huge, compressed and garbage bodies, anonymously and with an administrator's token, and no answer
 * is 500 or above (the server still answers afterwards).
 */
describe('#31 fuzz: every OpenAPI operation with deep, huge, compressed and garbage bodies', () => {
  let t: TestApp;
  let base: URL;
  let admin: Awaited<ReturnType<TestApp['factories']['admin']>>;
  let ops: Operation[];

  beforeAll(async () => {
    t = await createTestApp();
    base = new URL(await t.listen());
    admin = await t.factories.admin();
    ops = operations([buildOpenApiDocument(t.app), buildExperimentalOpenApiDocument(t.app)] as never);
  });
  afterAll(() => t.close());

  const deep = Buffer.from('['.repeat(10_000) + ']'.repeat(10_000));
  const variants: Variant[] = [
    { name: 'deep JSON', headers: { 'Content-Type': 'application/json' }, body: deep },
    {
      name: 'deep JSON object',
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.from('{"a":'.repeat(6_000) + '1' + '}'.repeat(6_000)),
    },
    {
      name: 'gzip deep JSON',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(Buffer.from('['.repeat(200_000) + ']'.repeat(200_000))),
    },
    {
      // ~40 KB on the wire, 40 MiB inflated: over every JSON limit and the AI gateway's 32 MiB.
      name: 'gzip huge JSON',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(
        Buffer.concat([Buffer.from('{"a":"'), Buffer.alloc(40 * 1024 * 1024, 'a'), Buffer.from('"}')]),
        {
          level: 9,
        },
      ),
    },
    {
      name: 'deflate huge binary',
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Encoding': 'deflate' },
      body: deflateSync(Buffer.alloc(8 * 1024 * 1024)),
    },
    {
      name: 'not gzip',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: randomBytes(512),
    },
    { name: 'garbage JSON', headers: { 'Content-Type': 'application/json' }, body: randomBytes(2048) },
    {
      name: 'wrong types',
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.from(
        JSON.stringify({
          name: [[1]],
          id: {},
          username: 1.7e308,
          email: ['x'],
          password: { a: 1 },
          content: null,
          title: -1,
          body: true,
          labels: 'x',
          version: { $ne: 1 },
          __proto__: { polluted: true },
          constructor: { prototype: { polluted: true } },
        }),
      ),
    },
    { name: 'JSON scalar', headers: { 'Content-Type': 'application/json' }, body: Buffer.from('"x"') },
    {
      name: 'deep form',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: Buffer.from(`name${'[a]'.repeat(5_000)}=x&a[100000]=1&b[]=1&b[]=2`),
    },
    {
      name: 'garbage multipart',
      headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
      body: Buffer.concat([Buffer.from('--x\r\nContent-Disposition: form-data; name="'), randomBytes(256)]),
    },
    {
      name: 'multipart deep field',
      headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
      body: Buffer.from(
        `--x\r\nContent-Disposition: form-data; name="a${'[b]'.repeat(2000)}"\r\n\r\n${'['.repeat(10_000)}\r\n--x--\r\n`,
      ),
    },
  ];

  function send(op: Operation, variant: Variant, token: string | null): Promise<Outcome['status']> {
    return new Promise((resolve) => {
      const headers: Record<string, string> = {
        ...variant.headers,
        'Content-Length': String(variant.body.length),
      };
      if (token) headers.Authorization = `Bearer ${token}`;
      const req = http.request({
        host: base.hostname,
        port: base.port,
        method: op.method,
        path: op.path,
        headers,
      });
      const timer = setTimeout(() => {
        req.destroy();
        resolve('timeout');
      }, 60_000);
      req.on('response', (res) => {
        clearTimeout(timer);
        resolve(res.statusCode ?? 0);
        res.resume();
        // Event streams never end: the status is all the fuzz needs.
        if (String(res.headers['content-type']).startsWith('text/event-stream')) req.destroy();
      });
      req.on('error', () => {
        clearTimeout(timer);
        resolve('reset');
      });
      req.end(variant.body);
    });
  }

  it('answers every operation and variant below 500, with and without a token', async () => {
    expect(ops.length).toBeGreaterThan(250);
    // One token per operation: a fuzzed logout or key deletion must not turn the rest into 401s.
    const jobs: (() => Promise<Outcome>)[] = [];
    for (const op of ops) {
      let token: Promise<string> | undefined;
      for (const variant of variants) {
        for (const auth of ['anonymous', 'admin'] as const) {
          jobs.push(async () => ({
            op: `${op.method} ${op.path}`,
            variant: variant.name,
            auth,
            status: await send(
              op,
              variant,
              auth === 'admin' ? await (token ??= t.factories.token(admin.user)) : null,
            ),
          }));
        }
      }
    }
    const outcomes: Outcome[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < jobs.length) outcomes.push(await jobs[next++]());
      }),
    );
    if (process.env.FUZZ_SUMMARY) {
      // FUZZ_SUMMARY=1: answers counted per caller, variant and status (to see what the fuzz reached).
      const counts: Record<string, number> = {};
      for (const o of outcomes)
        counts[`${o.auth} ${o.variant} ${o.status}`] =
          (counts[`${o.auth} ${o.variant} ${o.status}`] ?? 0) + 1;
      process.stderr.write(`${JSON.stringify(counts, null, 1)}\n`);
    }
    const failures = outcomes.filter((o) => typeof o.status === 'number' && o.status >= 500);
    const unanswered = outcomes.filter((o) => typeof o.status !== 'number');
    expect(failures).toEqual([]);
    // A reset without an answer would hide a failure; a timeout is a request that never got an answer.
    expect(unanswered).toEqual([]);
    expect(outcomes).toHaveLength(ops.length * variants.length * 2);
    const health = await fetch(new URL('/healthz', base));
    expect(health.status).toBe(200);
  }, 600_000);
});
