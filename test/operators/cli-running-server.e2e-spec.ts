import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/free-port';
import { runCli } from '../helpers/cli-process';

/** The status of `request` once `settled` accepts it, or the last one after 20 s. */
async function statusSettles(
  request: () => Promise<{ status: number }>,
  settled: (status: number) => boolean,
): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { status } = await request();
    if (settled(status) || Date.now() > deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
import { type MainProcess, startMain } from '../security/helpers/server-main';

const cli = runCli;

/**
 * Issue 36 item 5 and issue 31 item 12: the admin CLI works while the server runs on the embedded
 * database (through the server's socket) and binds no port even when the server's CONNECT proxy is
 * configured; create-user without --password prints a password that signs in; suspend/activate,
 * set-admin, list-tokens and revoke-token act on the running server's data.
 */
describe('admin CLI next to a running server on the embedded database', () => {
  let tmp = '';
  let server: MainProcess | undefined;
  let env: Record<string, string> = {};

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'dp-cli-run-'));
    env = {
      DATA_DIR: path.join(tmp, 'data'),
      AI_GATEWAY_PROXY_ADDRESS: `127.0.0.1:${await freePort()}`,
    };
    server = await startMain(env);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await rm(tmp, { recursive: true, force: true });
  });

  const basic = (user: string, password: string) =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const whoami = (authorization: string) =>
    fetch(`${server!.url}/api/v1/user`, { headers: { authorization } });

  it('manages accounts and tokens of the running server without binding its ports', async () => {
    const created = await cli(env, 'create-user', '--username', 'carol', '--email', 'carol@example.com');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const password = /Password: (\S+)/.exec(created.stdout)![1]!;
    const signIn = await whoami(basic('carol', password));
    expect(signIn.status).toBe(200);
    expect(((await signIn.json()) as { login: string; is_admin: boolean }).is_admin).toBe(false);

    expect((await cli(env, 'set-admin', '--username', 'carol')).stdout).toContain('site administrator');
    expect(((await (await whoami(basic('carol', password))).json()) as { is_admin: boolean }).is_admin).toBe(
      true,
    );
    expect((await cli(env, 'set-admin', '--username', 'carol', '--no-admin')).stdout).toContain(
      'not an administrator',
    );

    const token = await cli(env, 'create-token', '--username', 'carol', '--name', 'ci');
    expect(token.code).toBe(0);
    const key = token.stdout.trim().split('\n').pop()!;
    expect((await whoami(`token ${key}`)).status).toBe(200);

    const suspended = await cli(env, 'suspend', '--username', 'carol');
    expect(suspended.stdout).toContain('status suspended');
    // The server hears of the change through the database's notification after the CLI commits: poll.
    expect(
      await statusSettles(
        () => whoami(`token ${key}`),
        (status) => status !== 200,
      ),
    ).not.toBe(200);
    expect((await cli(env, 'activate', '--username', 'carol')).stdout).toContain('status active');
    expect(
      await statusSettles(
        () => whoami(`token ${key}`),
        (status) => status === 200,
      ),
    ).toBe(200);

    const listed = await cli(env, 'list-tokens', '--username', 'carol');
    expect(listed.code).toBe(0);
    const row = listed.stdout.split('\n').find((line) => / ci /.test(line))!;
    expect(row).toBeDefined();
    const id = row.split(/\s+/)[0]!;
    expect((await cli(env, 'revoke-token', '--username', 'carol', '--id', id)).code).toBe(0);
    // The server's credential cache hears of the deletion through the database's notification: poll.
    expect(
      await statusSettles(
        () => whoami(`token ${key}`),
        (status) => status === 401,
      ),
    ).toBe(401);
    expect((await cli(env, 'revoke-token', '--username', 'carol', '--id', id)).stderr).toContain(
      'has no token',
    );
    expect(server!.output()).not.toContain('EADDRINUSE');
  }, 240_000);
});
