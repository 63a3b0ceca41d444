import net from 'node:net';
import { createTestApp, type TestApp } from '../helpers/test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue #46.7: a body over the route's limit is answered 413, and the server reads and discards the
 * rest (up to a bound) instead of closing while the client still sends, so a client that writes the
 * whole body before it reads (Node's fetch) gets the 413, not "fetch failed" (a reset).
 */
describe('#46.7 a 413 reaches clients that are still sending', () => {
  let t: TestApp;
  let base = '';

  beforeAll(async () => {
    t = await createTestApp();
    base = await t.listen();
  });
  afterAll(() => t.close());

  it('ten 4.5 MB login bodies sent at once by fetch are all answered 413 in Coder’s shape', async () => {
    const body = JSON.stringify({ email: 'someone@example.com', password: 'x'.repeat(4.5 * 1024 * 1024) });
    const answers = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const res = await fetch(new URL('/api/v2/users/login', base), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        return { status: res.status, body: (await res.json()) as { message?: string } };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 413));
    for (const answer of answers) expect(answer.body.message).toBe('Request body too large.');
  });

  it('a client that reads only after it sent everything still reads the 413 (no reset of unread bytes)', async () => {
    const url = new URL(base);
    const total = 4.5 * 1024 * 1024;
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause(); // the client is busy writing: nothing is read until the whole body is out
    let failure = '';
    socket.on('error', (error) => (failure = error.message));
    socket.write(
      `POST /api/v2/users/login HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, 'x');
    for (let sent = 0; sent < total; sent += chunk.length) {
      socket.write(chunk.subarray(0, Math.min(chunk.length, total - sent)));
      await sleep(20); // the server answers and (before #46.7) closed long before this loop ends
    }
    await sleep(200);
    let received = '';
    socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
    socket.resume();
    for (let i = 0; i < 100 && !received.includes('Request body too large.') && !failure; i++)
      await sleep(20);
    socket.destroy();
    expect(failure).toBe('');
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('the same over a kept-alive connection: a second request after a 413 is served normally', async () => {
    const big = await fetch(new URL('/api/v2/users/login', base), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'a@example.com', password: 'y'.repeat(5 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    await big.text();
    const next = await fetch(new URL('/healthz', base));
    expect(next.status).toBe(200);
  });

  it('ten gzip bodies inflating past the limit (chunked, length unknown) are all answered 413 by fetch', async () => {
    const { gzipSync } = await import('node:zlib');
    const bomb = gzipSync(JSON.stringify({ email: 'x@example.com', password: ' '.repeat(6 * 1024 * 1024) }));
    const answers = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const res = await fetch(new URL('/api/v2/users/login', base), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
          body: bomb,
        });
        await res.text();
        return res.status;
      }),
    );
    expect(answers).toEqual(Array.from({ length: 10 }, () => 413));
  });
});
