import { startEmbeddedPostgres } from '../../src/platform/database/embedded-postgres';

/**
 * `npm test` with DATABASE_URL: that server (each test file gets its own schema).
 * Without: one in-memory PGlite for the run, served on a loopback port (PGlite cannot start
 * inside a Jest test file's sandbox, so it starts here and the URL goes to the test files).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) return;
  const embedded = await startEmbeddedPostgres(undefined, 40);
  process.env.DATABASE_URL = embedded.url;
  process.env.DATABASE_EMBEDDED = 'true';
  (globalThis as { __devplaneEmbedded?: typeof embedded }).__devplaneEmbedded = embedded;
}
