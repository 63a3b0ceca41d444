import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { VersionedCache } from '../../platform/cache/versioned-cache';
import { SecretBox } from '../../platform/crypto/secret-box';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors/domain-error';
import { AI_GATEWAY_CONFIG, type AiGatewayConfig, type ProviderType } from './ai-gateway.config';
import type { AiProvider } from './entities/ai-provider.entity';
import { AiProvidersRepository } from './repositories/ai-providers.repository';

/** Path segments of the gateway's own API: a provider cannot be named after them. */
export const RESERVED_PROVIDER_NAMES = [
  'sessions',
  'interceptions',
  'providers',
  'models',
  'clients',
  'keys',
];
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

export interface ProviderInput {
  name: string;
  type: string;
  baseUrl: string;
  key: string;
}

/**
 * Provider instances: from `AI_GATEWAY_PROVIDERS` at start (upserted) and the admin routes. The
 * centralized key is sealed with the platform SecretBox (AES-256-GCM under `SECRETS_KEY`), bound to
 * the provider's id; it is opened only to call the provider and never returned.
 */
@Injectable()
export class AiProvidersService implements OnModuleInit {
  private readonly logger = new Logger(AiProvidersService.name);
  private readonly byName = new VersionedCache<string, AiProvider | null>({
    tables: ['ai_gateway_providers'],
    ttlMs: 60_000,
  });

  constructor(
    private readonly providers: AiProvidersRepository,
    private readonly box: SecretBox,
    @Inject(AI_GATEWAY_CONFIG) private readonly config: AiGatewayConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.injectPlatformTools)
      this.logger.warn(
        'AI_GATEWAY_INJECT_PLATFORM_TOOLS is deprecated and has no effect; it will be removed in a future release',
      );
    for (const provider of this.config.providers) await this.save(provider);
  }

  private context(id: string): string {
    return `ai-provider:${id}`;
  }

  private validate(input: ProviderInput): void {
    if (!NAME.test(input.name) || RESERVED_PROVIDER_NAMES.includes(input.name))
      throw new BadRequestError('Invalid provider name.', {
        code: 'AI_PROVIDER_NAME',
        fields: [
          {
            field: 'name',
            detail: `must match ${NAME} and not be one of ${RESERVED_PROVIDER_NAMES.join(', ')}`,
          },
        ],
      });
    if (input.type !== 'openai' && input.type !== 'anthropic')
      throw new BadRequestError('Invalid provider type.', {
        code: 'AI_PROVIDER_TYPE',
        fields: [{ field: 'type', detail: 'must be openai or anthropic' }],
      });
    if (!/^https?:\/\/[^/]/.test(input.baseUrl))
      throw new BadRequestError('Invalid provider base URL.', {
        code: 'AI_PROVIDER_URL',
        fields: [{ field: 'base_url', detail: 'must be an http(s) URL' }],
      });
  }

  /** Creates or replaces a provider by name. */
  async save(input: ProviderInput): Promise<AiProvider> {
    this.validate(input);
    const existing = await this.providers.findByName(input.name);
    const row = existing ?? this.providers.build(input.name);
    row.type = input.type as ProviderType;
    row.baseUrl = input.baseUrl.replace(/\/+$/, '');
    if (!row.id) row.id = await this.providers.newId();
    row.sealedKey = input.key ? this.box.seal(input.key, this.context(row.id)) : null;
    return this.providers.save(row);
  }

  async create(input: ProviderInput): Promise<AiProvider> {
    if (await this.providers.existsByName(input.name))
      throw new ConflictError(`A provider named "${input.name}" already exists.`, {
        code: 'AI_PROVIDER_EXISTS',
      });
    return this.save(input);
  }

  list(): Promise<AiProvider[]> {
    return this.providers.all();
  }

  async remove(name: string): Promise<void> {
    if (!(await this.providers.deleteByName(name)))
      throw new NotFoundError('Provider not found.', { code: 'AI_PROVIDER_NOT_FOUND' });
  }

  find(name: string): Promise<AiProvider | null> {
    return this.byName.get(name, () => this.providers.findByName(name));
  }

  /**
   * The centralized key, or null. Opened once per sealed value and kept in memory (it is in memory
   * for every upstream call anyway): opening it per request was a visible share of the proxy's CPU.
   */
  keyOf(provider: AiProvider): string | null {
    if (!provider.sealedKey) return null;
    const cacheKey = `${provider.id}:${provider.sealedKey}`;
    let key = this.openedKeys.get(cacheKey);
    if (key === undefined) {
      key = this.box.open(provider.sealedKey, this.context(provider.id)).toString('utf8');
      if (this.openedKeys.size >= 256) this.openedKeys.clear();
      this.openedKeys.set(cacheKey, key);
    }
    return key;
  }

  private readonly openedKeys = new Map<string, string>();
}
