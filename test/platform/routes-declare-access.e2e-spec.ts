import { RequestMethod } from '@nestjs/common';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { DIALECT_METADATA, type Dialect } from '../../src/api/dialect';
import { ACCESS_METADATA, type AccessDeclaration } from '../../src/api/access/access.decorators';
import { PRINCIPAL_KINDS } from '../../src/api/access/principal';
import { createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Deny by default: every registered HTTP route declares @Public() or @Authenticated(...); every
 * authenticated route declares the token scope it needs (Gitea `scopes`, Coder `tokenScope`, or
 * `rbac`; administrator routes imply the `admin` category) and only known principal kinds.
 * Protocol routes (git smart HTTP, the npm and generic registries) admit anonymous callers but
 * must still declare the scopes a key needs (`@Public({ scopes })`, issue 31.1).
 */
const PROTOCOL_DIALECTS: readonly Dialect[] = ['git', 'npm', 'generic'];

describe('every route declares who may call it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  let audit: { withoutScope: string[]; protocolWithoutScope: string[]; protocolRoutes: number } | undefined;

  it('finds no undeclared route and no unknown principal kind', () => {
    const discovery = t.app.get(DiscoveryService);
    const scanner = new MetadataScanner();
    const reflector = t.app.get(Reflector);
    const undeclared: string[] = [];
    const withoutScope: string[] = [];
    const badKinds: string[] = [];
    const protocolWithoutScope: string[] = [];
    let protocolRoutes = 0;
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
        const dialect = reflector.getAllAndOverride<Dialect | undefined>(DIALECT_METADATA, [
          handler,
          metatype,
        ]);
        if (dialect && PROTOCOL_DIALECTS.includes(dialect)) protocolRoutes++;
        if (access.kind === 'public') {
          if (
            dialect &&
            PROTOCOL_DIALECTS.includes(dialect) &&
            (access.scopes?.length ?? 0) === 0 &&
            access.anyTokenScope !== true
          )
            protocolWithoutScope.push(label);
          continue;
        }
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
    audit = { withoutScope, protocolWithoutScope, protocolRoutes };
  });

  it('finds no authenticated route without a token scope declaration (scopes, tokenScope, rbac, admin or anyTokenScope)', () => {
    expect(audit).toBeDefined();
    expect(audit!.withoutScope).toEqual([]);
  });

  it('finds no protocol route (git, npm, generic) without the scopes a key needs', () => {
    expect(audit).toBeDefined();
    // git smart HTTP (3), the npm and generic registries: the audit must actually see them.
    expect(audit!.protocolRoutes).toBeGreaterThanOrEqual(10);
    expect(audit!.protocolWithoutScope).toEqual([]);
  });
});
