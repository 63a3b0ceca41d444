import { Global, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { type AppConfig, ConfigError, read } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { SiteConfig } from '../site-config/site-config.entity';
import { SiteConfigService } from '../site-config/site-config.service';
import { parseSecretsKey, SecretBox, SecretBoxError } from './secret-box';

const KEY_FILE = 'secrets.key';
const CHECK_KEY = 'secrets.key_check';
const CHECK_VALUE = 'devplane secrets key check';

/** The key and where it came from: a `new` key is not written to DATA_DIR/secrets.key until the check passed. */
export interface SecretsKey {
  key: Buffer;
  source: 'env' | 'file' | 'new';
}

/** The key: SECRETS_KEY when set, else DATA_DIR/secrets.key, else a new one (see writeNewSecretsKey). */
export function loadSecretsKey(config: AppConfig): SecretsKey {
  const raw = read(config.env, 'SECRETS_KEY');
  if (raw !== undefined) {
    const key = parseSecretsKey(raw);
    if (!key)
      throw new ConfigError(
        'SECRETS_KEY',
        'must be 32 bytes as 64 hex characters or base64: set it to the key this instance was first started with, or for a new instance to the output of `openssl rand -hex 32`',
      );
    return { key, source: 'env' };
  }
  const file = path.join(config.dataDir, KEY_FILE);
  if (existsSync(file)) {
    const key = parseSecretsKey(readFileSync(file, 'utf8').trim());
    if (!key)
      throw new ConfigError(
        'SECRETS_KEY',
        `is unset and ${file} does not hold a 32-byte key: put the instance's key back into that file (64 hex characters), or set SECRETS_KEY to it`,
      );
    return { key, source: 'file' };
  }
  return { key: randomBytes(32), source: 'new' };
}

/** DATA_DIR/secrets.key for a new key, owner-only, once this database is known to take it (issue 51.7). */
function writeNewSecretsKey(config: AppConfig, key: Buffer): void {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(config.dataDir, KEY_FILE);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
}

const SECRETS_KEY_SOURCE = Symbol('SECRETS_KEY_SOURCE');

/**
 * Checks at start that the key opens what this database holds: a sealed constant is stored
 * beside the data the first time; a different key later stops the start with one clear line
 * instead of failing (or returning garbage) on the first secret read.
 */
class SecretsKeyCheck implements OnModuleInit {
  constructor(
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(SiteConfigService) private readonly siteConfig: SiteConfigService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(SECRETS_KEY_SOURCE) private readonly loaded: SecretsKey,
  ) {}

  async onModuleInit(): Promise<void> {
    let stored = await this.siteConfig.get(CHECK_KEY);
    const file = path.join(this.config.dataDir, KEY_FILE);
    if (this.loaded.source === 'new') {
      if (stored !== undefined) {
        // A database whose secrets were sealed with a key this instance does not have: a restored
        // dump started without its key, or a second instance on the database. Refuse before writing
        // a new key (issue 51.7): it could never open them, and had to be overwritten by hand.
        throw new ConfigError(
          'SECRETS_KEY',
          `is unset and ${file} does not exist, but this database holds secrets sealed with a key (a restored ` +
            "dump, or another instance on the same database): copy the original instance's secrets.key into " +
            'DATA_DIR (a dump made with --include-key restores it), or set SECRETS_KEY to it. Every instance ' +
            'on one database needs the same SECRETS_KEY. No new key was written',
        );
      }
      writeNewSecretsKey(this.config, this.loaded.key);
    }
    if (stored === undefined) {
      // Insert-if-absent, then read back: of instances started together on an empty database,
      // the first one's key is the database's, and the others are told so below (an upsert
      // would let the last one overwrite the check while the first keeps sealing with its key).
      await this.dataSource
        .createQueryBuilder()
        .insert()
        .into(SiteConfig)
        .values({ key: CHECK_KEY, value: this.box.seal(CHECK_VALUE, CHECK_KEY) })
        .orIgnore()
        .execute();
      stored = (await this.siteConfig.get(CHECK_KEY))!;
    }
    try {
      if (this.box.openText(stored, CHECK_KEY) === CHECK_VALUE) return;
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
    }
    if (read(this.config.env, 'SECRETS_KEY') === undefined) {
      // The usual cause (issue 31.8): a second instance on one PostgreSQL database without
      // SECRETS_KEY generated its own DATA_DIR/secrets.key.
      throw new ConfigError(
        'SECRETS_KEY',
        `is unset, and the key this instance uses (${path.join(this.config.dataDir, KEY_FILE)}, generated at its ` +
          'first start) is not the one this database was encrypted with: another instance sealed its secrets ' +
          'first. Every instance on one database needs the same SECRETS_KEY: set SECRETS_KEY on every instance ' +
          "to the first instance's key (the content of its DATA_DIR/secrets.key)",
      );
    }
    throw new ConfigError(
      'SECRETS_KEY',
      'is not the key this database was encrypted with (the stored key check does not open): every instance ' +
        'on one database needs the same SECRETS_KEY, the one the database was first started with',
    );
  }
}

/** Provides `SecretBox` to every module (user secrets, AI gateway provider keys). */
@Global()
@Module({
  providers: [
    { provide: SECRETS_KEY_SOURCE, inject: [APP_CONFIG], useFactory: loadSecretsKey },
    {
      provide: SecretBox,
      inject: [SECRETS_KEY_SOURCE],
      useFactory: (loaded: SecretsKey) => new SecretBox(loaded.key),
    },
    SecretsKeyCheck,
  ],
  exports: [SecretBox],
})
export class SecretsModule {}
