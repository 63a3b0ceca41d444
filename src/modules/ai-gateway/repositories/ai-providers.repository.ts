import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AiProvider } from '../entities/ai-provider.entity';

/** `ai_gateway_providers`: the provider instances (their centralized keys sealed). */
@Injectable()
export class AiProvidersRepository {
  constructor(@InjectRepository(AiProvider) private readonly providers: Repository<AiProvider>) {}

  findByName(name: string): Promise<AiProvider | null> {
    return this.providers.findOneBy({ name });
  }

  existsByName(name: string): Promise<boolean> {
    return this.providers.existsBy({ name });
  }

  /** A provider not saved yet (no id). */
  build(name: string): AiProvider {
    return this.providers.create({ name });
  }

  /** A fresh id (the key is sealed with it before the row is saved). */
  async newId(): Promise<string> {
    return (await this.providers.query('SELECT gen_random_uuid() AS id'))[0].id as string;
  }

  save(provider: AiProvider): Promise<AiProvider> {
    return this.providers.save(provider);
  }

  /** Every provider, by name. */
  all(): Promise<AiProvider[]> {
    return this.providers.find({ order: { name: 'ASC' } });
  }

  /** Deletes the provider; false when there was none. */
  async deleteByName(name: string): Promise<boolean> {
    const result = await this.providers.delete({ name });
    return Boolean(result.affected);
  }
}
