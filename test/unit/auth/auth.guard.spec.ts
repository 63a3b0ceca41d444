import type { ExecutionContext } from '@nestjs/common';
import type { ModuleRef, Reflector } from '@nestjs/core';
import { ForbiddenError } from '../../../src/platform/errors/domain-error';
import { ACCESS_METADATA, type AccessDeclaration } from '../../../src/api/access/access.decorators';
import { AuthGuard } from '../../../src/modules/auth/auth.guard';
import type { AuthorizationService } from '../../../src/modules/auth/authorization.service';
import type { CredentialResolver } from '../../../src/modules/auth/credential-resolver.service';
import type { Principal } from '../../../src/api/access/principal';

/** The `rbac` option of @Authenticated routes a site-wide check through AuthorizationService. */
describe('AuthGuard rbac option', () => {
  const principal = {
    kind: 'user',
    user: { isAdmin: false, mustChangePassword: false },
    token: null,
    source: 'bearer',
    scopes: ['coder:all'],
  } as unknown as Principal;
  const context = {
    getType: () => 'http',
    getHandler: () => undefined,
    getClass: () => undefined,
    switchToHttp: () => ({
      getRequest: () => ({ path: '/api/v2/x', method: 'GET' }),
      getResponse: () => ({}),
    }),
  } as unknown as ExecutionContext;

  function guard(access: AccessDeclaration, allowed: boolean, calls: unknown[]): AuthGuard {
    const reflector = {
      getAllAndOverride: (key: string) => (key === ACCESS_METADATA ? access : undefined),
    } as unknown as Reflector;
    const credentials = { resolveAny: () => Promise.resolve(principal) } as unknown as CredentialResolver;
    const authz = {
      require: (_p: Principal, action: string, object: unknown) => {
        calls.push([action, object]);
        return allowed ? Promise.resolve() : Promise.reject(new ForbiddenError());
      },
    } as unknown as AuthorizationService;
    return new AuthGuard(reflector, credentials, authz, {} as ModuleRef);
  }

  it('checks the declared action and type', async () => {
    const calls: unknown[] = [];
    await expect(
      guard({ kind: 'authenticated', rbac: { type: 'audit_log', action: 'read' } }, true, calls).canActivate(
        context,
      ),
    ).resolves.toBe(true);
    expect(calls).toEqual([['read', { type: 'audit_log' }]]);
  });

  it('refuses with 403 when not allowed, and skips the check without the option', async () => {
    const calls: unknown[] = [];
    await expect(
      guard({ kind: 'authenticated', rbac: { type: 'audit_log', action: 'read' } }, false, calls).canActivate(
        context,
      ),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const none: unknown[] = [];
    await expect(guard({ kind: 'authenticated' }, false, none).canActivate(context)).resolves.toBe(true);
    expect(none).toEqual([]);
  });
});
