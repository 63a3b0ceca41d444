import { RequestMethod } from '@nestjs/common';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS_METADATA, type AccessDeclaration } from '../../src/modules/auth/access.decorators';
import { PRINCIPAL_KINDS } from '../../src/modules/auth/principal';
import { createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Deny by default: every registered HTTP route declares @Public() or @Authenticated(...); every
 * authenticated route declares the token scope it needs (Gitea `scopes`, Coder `tokenScope`, or
 * `rbac`; administrator routes imply the `admin` category) and only known principal kinds.
 */
describe('every route declares who may call it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  let audit: { withoutScope: string[] } | undefined;

  it('finds no undeclared route and no unknown principal kind', () => {
    const discovery = t.app.get(DiscoveryService);
    const scanner = new MetadataScanner();
    const reflector = t.app.get(Reflector);
    const undeclared: string[] = [];
    const withoutScope: string[] = [];
    const badKinds: string[] = [];
    let routes = 0;
    for (const wrapper of discovery.getControllers()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name] as () => unknown;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        routes++;
        const access = reflector.getAllAndOverride<AccessDeclaration | undefined>(ACCESS_METADATA, [
          handler,
          metatype,
        ]);
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const label = `${metatype.name}.${name} (${method} ${String(Reflect.getMetadata(PATH_METADATA, handler))})`;
        if (!access) {
          undeclared.push(label);
          continue;
        }
        if (access.kind !== 'authenticated') continue;
        const declaresScope =
          (access.scopes?.length ?? 0) > 0 ||
          access.tokenScope !== undefined ||
          access.rbac !== undefined ||
          access.admin === true ||
          access.anyTokenScope === true;
        const kinds = access.principals ?? ['user'];
        // Token scopes belong to users' API keys: routes for agent tokens or provisioner keys only have none.
        if (!declaresScope && kinds.includes('user')) withoutScope.push(label);
        if (kinds.length === 0 || kinds.some((kind) => !PRINCIPAL_KINDS.includes(kind)))
          badKinds.push(`${label}: ${kinds.join(',')}`);
      }
    }
    expect(routes).toBeGreaterThan(5);
    expect(undeclared).toEqual([]);
    expect(badKinds).toEqual([]);
    audit = { withoutScope };
  });

  it('finds no authenticated route without a token scope declaration (scopes, tokenScope, rbac, admin or anyTokenScope)', () => {
    expect(audit).toBeDefined();
    expect(audit!.withoutScope).toEqual([]);
  });
});
