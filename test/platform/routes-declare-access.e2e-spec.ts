import { RequestMethod } from '@nestjs/common';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS_METADATA } from '../../src/modules/auth/access.decorators';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** Deny by default: every registered HTTP route declares @Public() or @Authenticated(...). */
describe('every route declares who may call it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('finds no undeclared route', () => {
    const discovery = t.app.get(DiscoveryService);
    const scanner = new MetadataScanner();
    const reflector = t.app.get(Reflector);
    const undeclared: string[] = [];
    let routes = 0;
    for (const wrapper of discovery.getControllers()) {
      const { instance, metatype } = wrapper;
      if (!instance || !metatype) continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, unknown>)[name] as () => unknown;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        routes++;
        const access = reflector.getAllAndOverride(ACCESS_METADATA, [handler, metatype]);
        if (!access) {
          const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
          undeclared.push(`${metatype.name}.${name} (${method} ${String(Reflect.getMetadata(PATH_METADATA, handler))})`);
        }
      }
    }
    expect(routes).toBeGreaterThan(5);
    expect(undeclared).toEqual([]);
  });
});
