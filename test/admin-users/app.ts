import { createTestApp, type TestApp } from '../helpers/test-app';

/**
 * createTestApp for this folder. On the embedded database the pool is one connection: pglite-socket
 * interleaves the extended-protocol messages of concurrent connections (another module's
 * background queries then corrupt a request's statement: "bind message supplies N parameters, but
 * prepared statement requires M"). On a PostgreSQL server the default pool is kept.
 */
export function createAdminUsersTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const embedded = process.env.DATABASE_EMBEDDED === 'true';
  return createTestApp({ env: { ...(embedded ? { DATABASE_POOL_SIZE: '1' } : {}), ...env } });
}
