import { type ExecutionContext, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { CoderController } from '../../src/api/coder/coder-controller.decorator';
import { GiteaController } from '../../src/api/gitea/gitea-controller.decorator';
import {
  ACCESS_METADATA,
  type AccessDeclaration,
  Authenticated,
} from '../../src/api/access/access.decorators';
import { AuthGuard } from '../../src/modules/auth/auth.guard';
import { ForbiddenError } from '../../src/platform/errors/domain-error';
import type { CreatedUser } from '../helpers/factories';
import { basic, createTestApp, type TestApp } from '../helpers/test-app';

/** Routes declared only for this test: the guard is exercised directly with their metadata. */
@CoderController('scope-probe')
class CoderProbe {
  @Authenticated({ tokenScope: { type: 'notification_preference', action: 'update' } })
  coderOnly(): void {}

  @Authenticated({
    scopes: ['notification'],
    tokenScope: { type: 'notification_preference', action: 'update' },
  })
  either(): void {}
}

@GiteaController('scope-probe')
class GiteaProbe {
  @Authenticated({ scopes: ['user'] })
  giteaOnly(): void {}
}

/**
 * Issue 11 item 4 (guard side): token scopes are enforced. A route declares Gitea categories
 * (`scopes`), a Coder resource/action (`tokenScope`) or site-wide `rbac`; a token passes when it
 * satisfies either declared vocabulary; `all`, `coder:all`, passwords and sessions without scopes
 * pass. A table walks every registered write route with a narrow token: the guard refuses it with
 * 403 before any pipe or handler runs.
 */
describe('security 11.4: token scopes are enforced by the guard', () => {
  let t: TestApp;
  let owner: CreatedUser;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.admin();
  });
  afterAll(() => t.close());

  function contextFor(
    handler: (...args: never[]) => unknown,
    controller: object,
    method: string,
    headers: Record<string, string>,
  ): ExecutionContext {
    const req = { path: '/probe', url: '/probe', method, query: {}, headers, cookies: {}, ip: '127.0.0.1' };
    return {
      getType: () => 'http',
      getHandler: () => handler,
      getClass: () => controller,
      switchToHttp: () => ({ getRequest: () => req, getResponse: () => ({ setHeader: () => undefined }) }),
    } as unknown as ExecutionContext;
  }

  async function decide(
    handler: (...args: never[]) => unknown,
    controller: object,
    method: string,
    authorization: string,
  ): Promise<'allowed' | 'scope' | string> {
    try {
      await t.app.get(AuthGuard).canActivate(contextFor(handler, controller, method, { authorization }));
      return 'allowed';
    } catch (error) {
      if (error instanceof ForbiddenError) return error.reason;
      throw error;
    }
  }

  const tokenWith = async (scopes: string[]) =>
    `Bearer ${await t.factories.token(owner.user, { scopes, name: `probe-${Math.random()}` })}`;

  it.each<[string, string[], 'allowed' | 'scope']>([
    ['coder resource/action granted', ['notification_preference:update'], 'allowed'],
    ['coder wildcard action', ['notification_preference:*'], 'allowed'],
    ['coder:all', ['coder:all'], 'allowed'],
    ['legacy all', ['all'], 'allowed'],
    ['workspace:read only', ['workspace:read'], 'scope'],
    ['user:read only', ['user:read'], 'scope'],
    ['Gitea category does not satisfy a Coder-only route', ['write:notification'], 'scope'],
  ])('Coder-only route (tokenScope), token %s → %s', async (_name, scopes, expected) => {
    expect(await decide(CoderProbe.prototype.coderOnly, CoderProbe, 'PUT', await tokenWith(scopes))).toBe(
      expected,
    );
  });

  it.each<[string, string[], 'allowed' | 'scope']>([
    ['Gitea write category', ['write:notification'], 'allowed'],
    ['Coder resource/action', ['notification_preference:update'], 'allowed'],
    ['Gitea read category on a write', ['read:notification'], 'scope'],
    ['neither', ['read:misc', 'template:read'], 'scope'],
  ])('route declaring both vocabularies, token %s → %s', async (_name, scopes, expected) => {
    expect(await decide(CoderProbe.prototype.either, CoderProbe, 'POST', await tokenWith(scopes))).toBe(
      expected,
    );
  });

  it.each<[string, string, string[], 'allowed' | 'scope']>([
    ['GET with read:user', 'GET', ['read:user'], 'allowed'],
    ['PATCH with read:user', 'PATCH', ['read:user'], 'scope'],
    ['PATCH with write:user', 'PATCH', ['write:user'], 'allowed'],
    ['GET with a Coder scope only', 'GET', ['user:read'], 'scope'],
  ])('Gitea-only route (scopes), %s → %s', async (_name, method, scopes, expected) => {
    expect(await decide(GiteaProbe.prototype.giteaOnly, GiteaProbe, method, await tokenWith(scopes))).toBe(
      expected,
    );
  });

  it('a password carries every right of its user', async () => {
    const authorization = basic(owner.user.name, owner.password);
    expect(await decide(CoderProbe.prototype.coderOnly, CoderProbe, 'PUT', authorization)).toBe('allowed');
    expect(await decide(GiteaProbe.prototype.giteaOnly, GiteaProbe, 'PATCH', authorization)).toBe('allowed');
  });

  it.each<[string, string, string, object]>([
    ['pause the notifier', 'PUT', '/api/v2/notifications/settings', { notifier_paused: true }],
    ['post the test notification', 'POST', '/api/v2/notifications/test', {}],
    [
      "change another user's notification preferences",
      'PUT',
      '/api/v2/users/{other}/notifications/preferences',
      { template_disabled_map: {} },
    ],
    [
      'send a custom notification',
      'POST',
      '/api/v2/notifications/custom',
      { content: { title: 'x', message: 'y' } },
    ],
  ])('the reported abuse: a workspace:read owner token cannot %s', async (_name, method, path, body) => {
    const other = await t.factories.user();
    const token = await t.factories.token(owner.user, {
      scopes: ['workspace:read'],
      name: `abuse-${Math.random()}`,
    });
    const http = t.http();
    const res = await (
      method === 'PUT' ? http.put(path.replace('{other}', other.user.uuid)) : http.post(path)
    )
      .set('Authorization', `Bearer ${token}`)
      .send(body);
    expect(res.status).toBe(403);
  });

  it('the reported abuse: a user:read token cannot create a user-scope workflow rule', async () => {
    const token = await t.factories.token(owner.user, {
      scopes: ['user:read'],
      name: `abuse-${Math.random()}`,
    });
    const res = await t
      .http()
      .post('/ocs/v2.php/apps/workflowengine/api/v1/workflows/user?format=json')
      .set({ 'OCS-APIRequest': 'true', Authorization: `Bearer ${token}` })
      .send({});
    expect(res.status).toBe(403);
  });

  it('every registered write route refuses a narrow token (read:misc + template:read) with 403 before its handler', async () => {
    const discovery = t.app.get(DiscoveryService);
    const reflector = t.app.get(Reflector);
    const scanner = new MetadataScanner();
    const rows: { route: string; method: string; path: string }[] = [];
    for (const wrapper of discovery.getControllers()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, metatype) ?? '');
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name] as () => unknown;
        const sub = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (sub === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        if (['GET', 'HEAD', 'OPTIONS', 'ALL'].includes(method)) continue;
        const access = reflector.getAllAndOverride<AccessDeclaration | undefined>(ACCESS_METADATA, [
          handler,
          metatype,
        ]);
        // Introspection open to every key by declaration (authcheck) is not a write to refuse.
        if (access?.kind !== 'authenticated' || access.anyTokenScope === true) continue;
        // Routes for workspace agents or provisioner daemons only: a user's token is 401 there (issue 17.8).
        if (access.principals && !access.principals.includes('user')) continue;
        const path =
          `/${[base, Array.isArray(sub) ? sub[0]! : sub].filter((part) => part !== '' && part !== '/').join('/')}`
            .replace(/\/+/g, '/')
            .replace(/:(\w+)(\([^)]*\))?\??/g, (_m, param: string) => (param === 'user' ? 'me' : '1'));
        rows.push({ route: `${metatype.name}.${name}`, method, path });
      }
    }
    expect(rows.length).toBeGreaterThan(10);
    const notRefused: string[] = [];
    for (const row of rows) {
      const token = await t.factories.token(owner.user, {
        scopes: ['read:misc', 'template:read'],
        name: `narrow-${Math.random()}`,
      });
      const req = t.http()[row.method.toLowerCase() as 'post' | 'put' | 'patch' | 'delete'](row.path);
      const res = await req
        .set({ Authorization: `Bearer ${token}`, 'OCS-APIRequest': 'true' })
        .query({ format: 'json' })
        .send({});
      if (res.status !== 403) notRefused.push(`${row.route} (${row.method} ${row.path}) → ${res.status}`);
    }
    expect(notRefused).toEqual([]);
  });
});
