import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect, createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { ConnectProxyService } from '../../src/modules/ai-gateway/connect-proxy.service';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, freePort, type TestApp } from '../helpers/test-app';

/** A TCP server on 127.0.0.2 only: reaching it proves which address a tunnel dialed. */
async function echoOn127002(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.end('hello-from-127.0.0.2\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** Sends CONNECT and resolves with the status line's code and the open socket. */
function connectThrough(
  open: () => Socket,
  target: string,
  token: string | null,
): Promise<{ status: number; socket: Socket; rest: string }> {
  return new Promise((resolve, reject) => {
    const socket = open();
    let buffered = '';
    socket.setEncoding('latin1');
    socket.on('error', reject);
    const onData = (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      resolve({ status: Number(buffered.split(' ')[1]), socket, rest: buffered.slice(end + 4) });
    };
    socket.on('data', onData);
    socket.write(
      `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${token ? `Proxy-Authorization: Bearer ${token}\r\n` : ''}\r\n`,
    );
  });
}

function readAll(socket: Socket, already = ''): Promise<string> {
  return new Promise((resolve) => {
    let text = already;
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('end', () => resolve(text));
  });
}

/** The CONNECT proxy (issue 18 item 5): private and reserved targets refused, no DNS rebinding, TLS. */
describe('AI gateway CONNECT proxy', () => {
  let t: TestApp;
  let user: CreatedUser;
  let proxy: ConnectProxyService;
  let proxyPort: number;
  let appPort: number;
  let echo: { server: Server; port: number };

  beforeAll(async () => {
    echo = await echoOn127002();
    appPort = await freePort();
    t = await createTestApp({
      env: {
        PUBLIC_URL: `http://127.0.0.1:${appPort}/`,
        AI_GATEWAY_PROXY_ADDRESS: '127.0.0.1:0',
        AI_GATEWAY_PROXY_ALLOWED_CIDRS: '127.0.0.2/32',
      },
    });
    await t.listen(appPort);
    user = await t.factories.user();
    proxy = t.app.get(ConnectProxyService);
    proxyPort = proxy.address()!.port;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => echo.server.close(resolve));
  });

  const via = (target: string, token: string | null = user.token) =>
    connectThrough(() => netConnect(proxyPort, '127.0.0.1'), target, token);

  it('asks for credentials (407) and refuses bad ones', async () => {
    expect((await via('127.0.0.2:443', null)).status).toBe(407);
    expect((await via('127.0.0.2:443', 'AAAAAAAAAA-bbbbbbbbbbbbbbbbbbbbbb')).status).toBe(407);
  });

  it.each([
    '127.0.0.1:80',
    '10.0.0.1:443',
    '192.168.1.10:443',
    '169.254.169.254:80',
    '100.64.0.1:443',
    '[::1]:80',
    '[fd00::1]:443',
    '[::ffff:127.0.0.1]:80',
    '224.0.0.1:443',
    '192.0.2.10:443',
  ])('refuses a tunnel to %s (403)', async (target) => {
    const { status, socket } = await via(target);
    expect(status).toBe(403);
    socket.destroy();
  });

  it('refuses a name that resolves to loopback', async () => {
    const { status } = await via(`localhost:${echo.port}`);
    expect(status).toBe(403);
  });

  it("always allows the deployment's access URL (host and port)", async () => {
    const { status, socket, rest } = await via(`127.0.0.1:${appPort}`);
    expect(status).toBe(200);
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(await readAll(socket, rest)).toMatch(/^HTTP\/1\.1 200/);
  });

  it('allows a listed private range (AI_GATEWAY_PROXY_ALLOWED_CIDRS)', async () => {
    const { status, socket, rest } = await via(`127.0.0.2:${echo.port}`);
    expect(status).toBe(200);
    expect(await readAll(socket, rest)).toBe('hello-from-127.0.0.2\n');
  });

  it('dials the address it checked: an answer that changes between check and dial changes nothing', async () => {
    let calls = 0;
    const original = proxy.resolver;
    proxy.resolver = (_host, callback) => {
      calls++;
      // The first answer is allowed; any later answer (a rebinding) points at loopback.
      callback(null, [{ address: calls === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }]);
    };
    try {
      const { status, socket, rest } = await via(`rebind.example:${echo.port}`);
      expect(status).toBe(200);
      expect(await readAll(socket, rest)).toBe('hello-from-127.0.0.2\n');
      expect(calls).toBe(1);
      proxy.resolver = (_host, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
      expect((await via(`loopback.example:${echo.port}`)).status).toBe(403);
      proxy.resolver = (_host, callback) =>
        callback(null, [
          { address: '127.0.0.2', family: 4 },
          { address: '10.1.2.3', family: 4 },
        ]);
      expect((await via(`mixed.example:${echo.port}`)).status).toBe(403);
    } finally {
      proxy.resolver = original;
    }
  });

  it('answers plain requests with 405', async () => {
    const res = await fetch(`http://127.0.0.1:${proxyPort}/`);
    expect(res.status).toBe(405);
  });
});

describe('AI gateway CONNECT proxy over TLS', () => {
  it('serves the CONNECT proxy on a TLS listener when a certificate and key are configured', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'proxy-tls-'));
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      {
        stdio: 'ignore',
      },
    );
    const echo = await echoOn127002();
    const t = await createTestApp({
      env: {
        AI_GATEWAY_PROXY_ADDRESS: '127.0.0.1:0',
        AI_GATEWAY_PROXY_ALLOWED_CIDRS: '127.0.0.2/32',
        AI_GATEWAY_PROXY_TLS_CERT: cert,
        AI_GATEWAY_PROXY_TLS_KEY: key,
      },
    });
    try {
      const user = await t.factories.user();
      const port = t.app.get(ConnectProxyService).address()!.port;
      const open = () =>
        tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }) as unknown as Socket;
      const allowed = await connectThrough(open, `127.0.0.2:${echo.port}`, user.token);
      expect(allowed.status).toBe(200);
      expect(await readAll(allowed.socket, allowed.rest)).toBe('hello-from-127.0.0.2\n');
      const refused = await connectThrough(open, '127.0.0.1:22', user.token);
      expect(refused.status).toBe(403);
      refused.socket.destroy();
    } finally {
      await t.close();
      await new Promise((resolve) => echo.server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('AI gateway CONNECT proxy with an upstream proxy', () => {
  it('checks the target first, then forwards the CONNECT upstream', async () => {
    const echo = await echoOn127002();
    const seen: string[] = [];
    // A minimal upstream proxy: reads the CONNECT line, dials the target, answers 200.
    const upstream = createServer((client) => {
      client.once('data', (chunk: Buffer) => {
        const line = chunk.toString('latin1').split('\r\n')[0]!;
        seen.push(line);
        const [host, port] = line.split(' ')[1]!.split(':');
        const target = netConnect(Number(port), host!, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          target.pipe(client);
          client.pipe(target);
        });
        target.on('error', () => client.destroy());
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamPort = (upstream.address() as { port: number }).port;
    const t = await createTestApp({
      env: {
        AI_GATEWAY_PROXY_ADDRESS: '127.0.0.1:0',
        AI_GATEWAY_PROXY_ALLOWED_CIDRS: '127.0.0.2/32',
        AI_GATEWAY_UPSTREAM_PROXY: `http://127.0.0.1:${upstreamPort}`,
      },
    });
    try {
      const user = await t.factories.user();
      const port = t.app.get(ConnectProxyService).address()!.port;
      const open = () => netConnect(port, '127.0.0.1');
      const allowed = await connectThrough(open, `127.0.0.2:${echo.port}`, user.token);
      expect(allowed.status).toBe(200);
      expect(await readAll(allowed.socket, allowed.rest)).toBe('hello-from-127.0.0.2\n');
      expect(seen).toEqual([`CONNECT 127.0.0.2:${echo.port} HTTP/1.1`]);
      const refused = await connectThrough(open, '10.0.0.1:443', user.token);
      expect(refused.status).toBe(403);
      refused.socket.destroy();
      expect(seen).toHaveLength(1);
    } finally {
      await t.close();
      await new Promise((resolve) => upstream.close(resolve));
      await new Promise((resolve) => echo.server.close(resolve));
    }
  });
});
