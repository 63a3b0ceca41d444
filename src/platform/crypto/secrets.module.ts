import { Global, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type AppConfig, ConfigError, read } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
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
  ) {}

  async onModuleInit(): Promise<void> {
    const stored = await this.siteConfig.get(CHECK_KEY);
    if (stored === undefined) {
      await this.siteConfig.set(CHECK_KEY, this.box.seal(CHECK_VALUE, CHECK_KEY));
      return;
    }
    try {
      if (this.box.openText(stored, CHECK_KEY) === CHECK_VALUE) return;
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
    }
    throw new ConfigError(
      'SECRETS_KEY',
      'is not the key this database was encrypted with (the stored key check does not open)',
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
