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

/** The key: SECRETS_KEY when set, else DATA_DIR/secrets.key (created owner-only on first start). */
export function loadSecretsKey(config: AppConfig): Buffer {
  const raw = read(config.env, 'SECRETS_KEY');
  if (raw !== undefined) {
    const key = parseSecretsKey(raw);
    if (!key) throw new ConfigError('SECRETS_KEY', 'must be 32 bytes as 64 hex characters or base64');
    return key;
  }
  const file = path.join(config.dataDir, KEY_FILE);
  if (existsSync(file)) {
    const key = parseSecretsKey(readFileSync(file, 'utf8').trim());
    if (!key) throw new ConfigError('SECRETS_KEY', `is unset and ${file} does not hold a 32-byte key`);
    return key;
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}

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
  ) {}

  async onModuleInit(): Promise<void> {
    let stored = await this.siteConfig.get(CHECK_KEY);
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
    {
      provide: SecretBox,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new SecretBox(loadSecretsKey(config)),
    },
    SecretsKeyCheck,
  ],
  exports: [SecretBox],
})
export class SecretsModule {}
