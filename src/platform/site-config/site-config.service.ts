import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, Repository } from 'typeorm';
import { SiteConfig } from './site-config.entity';

@Injectable()
export class SiteConfigService {
  constructor(@InjectRepository(SiteConfig) private readonly configs: Repository<SiteConfig>) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.configs.findOneBy({ key }))?.value;
  }

  async set(key: string, value: string, manager?: EntityManager): Promise<void> {
    await (manager ?? this.configs.manager).getRepository(SiteConfig).upsert({ key, value }, ['key']);
  }
}
