import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { git } from '../repositories/git-client';
import { type MainProcess, startMain } from '../security/helpers/server-main';

/** The command lines of a process's children (/proc). */
function childCommandLines(pid: number): string[] {
  const lines: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) lines.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // ended meanwhile
    }
  }
  return lines;
}

const ADMIN = { username: 'drainer', email: 'drainer@example.com', password: 'Drain-Shutdown-Password-42' };

/**
 * A TCP proxy in front of the server that forwards a git-receive-pack request's headers and the first
 * bytes of its body, then holds the rest until `release()`: the push is in flight, deterministically.
 */
function holdingProxy(port: number): Promise<{
  url: string;
  held: Promise<void>;
  release: () => void;
  close: () => Promise<void>;
}> {
  let markHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (markHeld = resolve));
  const releases: (() => void)[] = [];
  let released = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    upstream.pipe(client);
    let seen = Buffer.alloc(0);
    let holding = false;
    const pending: Buffer[] = [];
    client.on('data', (chunk: Buffer) => {
      if (holding) {
        pending.push(chunk);
        return;
      }
      seen = Buffer.concat([seen, chunk]);
      const text = seen.toString('latin1');
      const start = text.indexOf('POST ');
      const headerEnd = text.indexOf('\r\n\r\n', start);
      if (
        released ||
        start === -1 ||
        !text.slice(start, text.indexOf('\r\n', start)).includes('git-receive-pack') ||
        headerEnd === -1
      ) {
        upstream.write(chunk);
        if (start === -1 || headerEnd !== -1) seen = Buffer.alloc(0);
        return;
      }
      // Forward everything before the request, its headers and 64 bytes of body; hold the rest.
      const chunkStart = seen.length - chunk.length;
      const cut = Math.max(0, headerEnd + 4 + 64 - chunkStart);
      upstream.write(chunk.subarray(0, cut));
      pending.push(chunk.subarray(cut));
      holding = true;
      releases.push(() => {
        holding = false;
        for (const part of pending.splice(0)) upstream.write(part);
      });
      markHeld();
    });
    client.on('end', () => upstream.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port: proxyPort } = server.address() as net.AddressInfo;
      resolve({
        url: `http://127.0.0.1:${proxyPort}`,
        held,
        release: () => {
          released = true;
          for (const release of releases.splice(0)) release();
        },
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    }),
  );
}

/** Issue 36 item 8: SIGTERM while a `git push` is in flight lets the push finish before the server stops. */
describe('graceful shutdown finishes in-flight pushes', () => {
  let tmp = '';
  let server: MainProcess | undefined;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'dp-drain-'));
    server = await startMain({
      DATA_DIR: path.join(tmp, 'data'),
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      PROVISIONER_DAEMONS: '0',
    });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await rm(tmp, { recursive: true, force: true });
  });

  it('SIGTERM during a push: the push is accepted, new pushes get 503, then the server stops', async () => {
    const auth = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
    const created = await fetch(`${server!.url}/api/v1/user/repos`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'drained' }),
    });
    expect(created.status).toBe(201);

    const work = path.join(tmp, 'work');
    expect((await git(['init', '-q', '-b', 'main', work], tmp)).code).toBe(0);
    // Big enough that the pack spans several TCP writes.
    await writeFile(path.join(work, 'blob.bin'), randomBytes(512 * 1024));
    expect((await git(['add', '.'], work)).code).toBe(0);
    expect((await git(['commit', '-qm', 'first'], work)).code).toBe(0);

    const proxy = await holdingProxy(server!.port);
    const remote = `${proxy.url.replace('://', `://${ADMIN.username}:${ADMIN.password}@`)}/${ADMIN.username}/drained.git`;
    const push = git(['push', '-q', remote, 'HEAD:main'], work);
    const early = push.then((r) => `the push ended before it was held: ${r.code} ${r.stderr}`);
    const problem = await Promise.race([proxy.held.then(() => undefined), early]);
    expect(problem).toBeUndefined();
    // The server is inside the push once it runs git-receive-pack for it.
    while (!childCommandLines(server!.pid).some((line) => line.includes('receive-pack')))
      await new Promise((resolve) => setTimeout(resolve, 20));

    process.kill(server!.pid, 'SIGTERM');
    while (!/SIGTERM received/.test(server!.output()))
      await new Promise((resolve) => setTimeout(resolve, 20));
    // While the push drains, another push is refused with 503 (after its credentials were checked).
    const refused = await fetch(`${server!.url}/${ADMIN.username}/drained.git/git-receive-pack`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/x-git-receive-pack-request' },
      body: '0000',
    });
    expect(refused.status).toBe(503);

    proxy.release();
    const result = await push;
    expect(result.stderr).not.toMatch(/rejected|error|fatal/i);
    expect(result.code).toBe(0);
    await server!.stop('SIGTERM');
    await proxy.close();

    // The push landed: a restarted server serves the commit.
    server = await startMain({
      DATA_DIR: path.join(tmp, 'data'),
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      PROVISIONER_DAEMONS: '0',
    });
    const branch = await fetch(`${server.url}/api/v1/repos/${ADMIN.username}/drained/branches/main`, {
      headers: { Authorization: auth },
    });
    expect(branch.status).toBe(200);
    const head = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    expect(((await branch.json()) as { commit: { id: string } }).commit.id).toBe(head);
  });
});
