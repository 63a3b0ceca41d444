import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { TestEnvironment as NodeEnvironment } from 'jest-environment-node';
import {
  dumpEmbeddedImage,
  type EmbeddedPostgres,
  startEmbeddedPostgres,
} from '../../src/platform/database/embedded-postgres';

/**
 * A new cluster costs PGlite about 5 s (initdb in WASM); loading the image of one costs about 1 s. The
 * environment module is loaded once per Jest worker process, so every file after the first starts from it.
 */
let image: Promise<Blob> | undefined;

/**
 * The e2e files' environment. With DATABASE_URL: that server (each test file gets its own schema).
 * Without (the README's `npm test` on a machine with no database server): a fresh in-memory PGlite for
 * each test file, served on a loopback port, so one file's leftovers (a transaction an app left open on
 * the single embedded session, a child process still connected) can never stall the files after it.
 * PGlite cannot start inside a test file's sandbox; an environment runs outside it.
 */
export default class DatabaseEnvironment extends NodeEnvironment {
  private embedded?: EmbeddedPostgres;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
  }

  override async setup(): Promise<void> {
    await super.setup();
    if (process.env.DATABASE_URL) return;
    image ??= dumpEmbeddedImage();
    this.embedded = await startEmbeddedPostgres(undefined, 40, await image);
    // The file's `process.env` is a copy made when the environment was built: set both.
    for (const env of [this.global.process.env, process.env]) {
      env.DATABASE_URL = this.embedded.url;
      env.DATABASE_EMBEDDED = 'true';
    }
  }

  override async teardown(): Promise<void> {
    if (this.embedded) {
      delete process.env.DATABASE_URL;
      delete process.env.DATABASE_EMBEDDED;
      // A child process a test left connected must not hold the run: give the stop a few seconds.
      await Promise.race([
        this.embedded.stop().catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, 5000).unref()),
      ]);
    }
    await super.teardown();
  }
}
