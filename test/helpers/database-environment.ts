import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { TestEnvironment as NodeEnvironment } from 'jest-environment-node';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  dumpEmbeddedImage,
  type EmbeddedPostgres,
  processIsAlive,
  startEmbeddedPostgres,
} from '../../src/platform/database/embedded-postgres';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- shared with the sequencer, a CommonJS file
const { HEAVY_FILE } = require('./heavy-files') as { HEAVY_FILE: RegExp };

/**
 * A new cluster costs PGlite about 5 s (initdb in WASM); loading the image of one costs about 1 s. The
 * environment module is loaded once per Jest worker process, so every file after the first starts from it.
 */
let image: Promise<Blob> | undefined;

/**
 * Files that start real provisioners, agents or server processes (children that compile TypeScript,
 * sandboxes, Xvfb) wait for each other across Jest workers: two of them side by side on two cores
 * starve each other's agents past the tests' timeouts. Light files still run beside them. The wait
 * happens here, before the file's hooks, so it never counts against a test's timeout.
 */
const HEAVY_LOCK = path.join(os.tmpdir(), 'devplane-test-heavy.lock');

async function acquireHeavyLock(): Promise<() => void> {
  let pidless = 0;
  for (;;) {
    try {
      mkdirSync(HEAVY_LOCK);
      writeFileSync(path.join(HEAVY_LOCK, 'pid'), String(process.pid));
      return () => rmSync(HEAVY_LOCK, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder = 0;
      try {
        holder = Number(readFileSync(path.join(HEAVY_LOCK, 'pid'), 'utf8'));
        pidless = 0;
      } catch {
        // the holder is between mkdir and writing its pid, or died there
        pidless += 1;
      }
      if ((holder > 0 && !processIsAlive(holder)) || pidless > 40)
        rmSync(HEAVY_LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/**
 * The e2e files' environment. With DATABASE_URL: that server (each test file gets its own schema).
 * Without (the README's `npm test` on a machine with no database server): a fresh in-memory PGlite for
 * each test file, served on a loopback port, so one file's leftovers (a transaction an app left open on
 * the single embedded session, a child process still connected) can never stall the files after it.
 * PGlite cannot start inside a test file's sandbox; an environment runs outside it.
 */
export default class DatabaseEnvironment extends NodeEnvironment {
  private embedded?: EmbeddedPostgres;
  private readonly heavy: boolean;
  private releaseHeavy?: () => void;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    let source = '';
    try {
      source = readFileSync(context.testPath, 'utf8');
    } catch {
      // no source to look at: a light file
    }
    this.heavy = HEAVY_FILE.test(source);
  }

  override async setup(): Promise<void> {
    await super.setup();
    if (this.heavy) this.releaseHeavy = await acquireHeavyLock();
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
    try {
      if (this.embedded) {
        delete process.env.DATABASE_URL;
        delete process.env.DATABASE_EMBEDDED;
        // A child process a test left connected must not hold the run: give the stop a few seconds.
        await Promise.race([
          this.embedded.stop().catch(() => undefined),
          new Promise((resolve) => setTimeout(resolve, 5000).unref()),
        ]);
      }
    } finally {
      this.releaseHeavy?.();
      await super.teardown();
    }
  }
}
