import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { embeddedSocketDirectory } from '../../src/platform/database/embedded-postgres';
import { listeningTcpPorts, listeningUnixSockets, type MainProcess, startMain } from './helpers/server-main';

jest.setTimeout(240_000);

const ADMIN = {
  ADMIN_USERNAME: 'root31',
  ADMIN_EMAIL: 'root31@example.com',
  ADMIN_PASSWORD: 'Root-31-Pass-Word-x',
};

/**
 * Issue 31.7: with a DATA_DIR of 87 characters or more the Unix socket path did not fit, and the
 * embedded database fell back to a TCP port on 127.0.0.1 without a password (any local user could
 * connect). The real server (src/main.ts) is started on such a DATA_DIR: its only TCP listener is
 * the HTTP port, and the database is served on a Unix socket in a private directory. With no short
 * directory available at all, the start stops with one line instead of falling back.
 */
describe('security 31.7: the embedded database never listens on TCP', () => {
  let root = '';
  let server: MainProcess | undefined;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'dp-31-7-'));
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  it('a DATA_DIR too long for a socket path: a private socket directory, no TCP port', async () => {
    const dataDir = path.join(
      root,
      'a-data-directory-whose-path-is-far-too-long-for-a-unix-socket-'.repeat(2),
    );
    expect(dataDir.length).toBeGreaterThanOrEqual(120);
    server = await startMain({ ...ADMIN, DATA_DIR: dataDir });

    expect(listeningTcpPorts(server.pid)).toEqual([server.port]);
    const sockets = listeningUnixSockets(server.pid);
    expect(sockets).toHaveLength(1);
    const socketDir = path.dirname(sockets[0]!);
    expect(path.basename(sockets[0]!)).toBe('.s.PGSQL.5432');
    expect(socketDir.startsWith(os.tmpdir())).toBe(true);
    expect(statSync(socketDir).mode & 0o777).toBe(0o700);
    expect(statSync(sockets[0]!).mode & 0o777).toBe(0o600);
    // Other processes of the owner (the admin CLI) find it through DATA_DIR.
    expect(embeddedSocketDirectory(dataDir)).toBe(socketDir);

    // The server works on it, and the database answers on that socket (the owner's only way in).
    const res = await fetch(`${server.url}/api/v1/user`, {
      headers: {
        Authorization: `Basic ${Buffer.from(`${ADMIN.ADMIN_USERNAME}:${ADMIN.ADMIN_PASSWORD}`).toString('base64')}`,
      },
    });
    expect(res.status).toBe(200);
    const client = new Client({ host: socketDir, user: 'postgres', database: 'postgres' });
    await client.connect();
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await client.end();

    await server.stop('SIGTERM');
    server = undefined;
    expect(existsSync(socketDir)).toBe(false); // removed with the database
    expect(embeddedSocketDirectory(dataDir)).toBeUndefined();
  });

  it('no short directory for the socket either: the start stops with one line naming DATA_DIR and TMPDIR', async () => {
    const longTmp = path.join(root, 'a-temporary-directory-that-is-also-far-too-long-for-a-unix-socket-path');
    await mkdir(longTmp, { recursive: true });
    const dataDir = path.join(longTmp, 'data-directory-long-enough-on-its-own');
    const outcome = await startMain({ ...ADMIN, DATA_DIR: dataDir, TMPDIR: longTmp }).then(
      async (started) => {
        const ports = listeningTcpPorts(started.pid);
        await started.stop('SIGKILL');
        return `started (TCP ports ${ports.join(', ')})`;
      },
      (error: Error) => error.message,
    );
    expect(outcome).toMatch(
      /server exited \(1\) before it listened:\nInvalid configuration: DATA_DIR is too long for the embedded database's Unix socket .*TMPDIR/,
    );
  });
});
