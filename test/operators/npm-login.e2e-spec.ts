import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from '../helpers/test-app';

const run = promisify(execFile);

/**
 * Issue 36.6: npm's legacy login (`PUT /-/user/org.couchdb.user:{name}`) mints a token for a password
 * user, and the real npm client uses that token (`npm whoami`).
 */
describe('npm login (legacy adduser PUT)', () => {
  let t: TestApp;
  let tmp = '';
  beforeAll(async () => {
    t = await createTestApp();
    await t.listen();
    tmp = await mkdtemp(path.join(os.tmpdir(), 'dp-npm-login-'));
  });
  afterAll(async () => {
    await t.close();
    await rm(tmp, { recursive: true, force: true });
  });

  it('answers a password user with a token that npm whoami accepts, and 401 to a wrong password', async () => {
    const { user, password } = await t.factories.user();
    const registry = `${t.url}/api/packages/${user.name}/npm/`;
    const put = (body: object, name = user.name) =>
      fetch(`${registry}-/user/org.couchdb.user:${encodeURIComponent(name)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const wrong = await put({ name: user.name, password: `${password}x`, type: 'user' });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { token?: string }).token).toBeUndefined();
    expect((await put({ name: 'nobody-here', password }, 'nobody-here')).status).toBe(401);

    const ok = await put({ name: user.name, password, email: user.email, type: 'user' });
    expect(ok.status).toBe(201);
    const body = (await ok.json()) as { ok: boolean; token: string; id: string };
    expect(body).toMatchObject({ ok: true, id: `org.couchdb.user:${user.name}` });

    const npmrc = path.join(tmp, '.npmrc');
    await writeFile(
      npmrc,
      `registry=${registry}\n${registry.replace(/^http:/, '')}:_authToken=${body.token}\n`,
    );
    const { stdout } = await run('npm', ['whoami', '--userconfig', npmrc], {
      cwd: tmp,
      env: { PATH: process.env.PATH, HOME: tmp, npm_config_cache: path.join(tmp, 'cache') },
    });
    expect(stdout.trim()).toBe(user.name);
  }, 120_000);
});
