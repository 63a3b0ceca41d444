import type { ExecutionContext } from '@nestjs/common';
import { requestDialect } from '../../src/api/dialect';
import { AuthGuard } from '../../src/modules/auth/auth.guard';
import { CoderAuthController } from '../../src/modules/auth/controllers/coder-auth.controller';
import { GiteaUsersController } from '../../src/modules/identity/controllers/gitea-users.controller';
import { BadRequestError, ForbiddenError } from '../../src/platform/errors/domain-error';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const CSRF_FAILURE =
  'Something is wrong with your CSRF token. Please refresh the page. If this error persists, try clearing your cookies.';

/**
 * Issue 11 item 2 (guard side): the Coder cookie-CSRF rule and the Gitea must-change-password rule
 * were skipped for `/API/V2/...` and `/API/V1/...` because the guard chose the dialect with a
 * case-sensitive path test. The dialect now comes from the route's metadata: the guard's decision
 * is the same whatever the path's case (with case-sensitive routing such a path is a 404 anyway).
 */
describe('security 11.2: the dialect of a route comes from its metadata, not its path', () => {
  let t: TestApp;
  let user: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp();
  });
  beforeEach(async () => {
    user = await t.factories.user();
  });
  afterAll(() => t.close());

  function contextFor(
    handler: (...args: never[]) => unknown,
    controller: object,
    req: object,
  ): ExecutionContext {
    const res = { setHeader: () => undefined };
    return {
      getType: () => 'http',
      getHandler: () => handler,
      getClass: () => controller,
      switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }),
    } as unknown as ExecutionContext;
  }

  function request(
    path: string,
    method: string,
    extra: { cookies?: Record<string, string>; headers?: Record<string, string> },
  ) {
    return {
      path,
      url: path,
      originalUrl: path,
      method,
      query: {},
      headers: extra.headers ?? {},
      cookies: extra.cookies ?? {},
      ip: '127.0.0.1',
    };
  }

  it.each(['/api/v2/users/logout', '/API/V2/USERS/LOGOUT', '/Api/v2/users/logout', '/somewhere/else'])(
    'the guard applies Coder cookie CSRF on a Coder route served as %s',
    async (path) => {
      const guard = t.app.get(AuthGuard);
      const req = request(path, 'POST', { cookies: { service_session_token: user.token } });
      const decision = guard.canActivate(
        contextFor(CoderAuthController.prototype.logout, CoderAuthController, req),
      );
      await expect(decision).rejects.toBeInstanceOf(BadRequestError);
      await expect(decision).rejects.toThrow(CSRF_FAILURE);
      expect(requestDialect(req as never)).toBe('coder');
    },
  );

  it.each(['/api/v1/user', '/API/V1/USER', '/Api/V1/user'])(
    'the guard applies Gitea must-change-password on a Gitea route served as %s',
    async (path) => {
      await t.dataSource.query('UPDATE users SET must_change_password = true WHERE id = $1', [user.user.id]);
      const guard = t.app.get(AuthGuard);
      const req = request(path, 'GET', { headers: { authorization: `token ${user.token}` } });
      const decision = guard.canActivate(
        contextFor(GiteaUsersController.prototype.current, GiteaUsersController, req),
      );
      await expect(decision).rejects.toBeInstanceOf(ForbiddenError);
      await expect(decision).rejects.toThrow('You must change your password.');
      expect(requestDialect(req as never)).toBe('gitea');
    },
  );

  it('over HTTP, a mixed-case Coder path never lets a cookie-only write through', async () => {
    const login = await t
      .http()
      .post('/api/v2/users/login')
      .send({ email: user.user.email, password: user.password });
    const session = ([] as string[])
      .concat(login.headers['set-cookie'] ?? [])
      .find((cookie) => cookie.startsWith('service_session_token='))!
      .split(';')[0]!
      .slice('service_session_token='.length);
    const res = await t.http().post('/API/V2/users/logout').set('Cookie', `service_session_token=${session}`);
    // 400 with case-insensitive routing, 404 once routing is case-sensitive: never a logout.
    expect([400, 404]).toContain(res.status);
    if (res.status === 400) expect(res.body.message).toBe(CSRF_FAILURE);
    const still = await t.http().get('/api/v2/users/me').set('Service-Session-Token', session);
    expect(still.status).toBe(200);
  });

  it('over HTTP, a mixed-case Gitea path never serves a user who must change the password', async () => {
    await t.dataSource.query('UPDATE users SET must_change_password = true WHERE id = $1', [user.user.id]);
    const res = await t.http().get('/API/V1/user').set('Authorization', `token ${user.token}`);
    expect([403, 404]).toContain(res.status);
    if (res.status === 403) expect(res.body.message).toMatch(/^You must change your password\./);
  });
});
