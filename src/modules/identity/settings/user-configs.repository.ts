import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { UserConfig } from './user-config.entity';

/** The SQL of `user_configs`. */
@Injectable()
export class UserConfigsRepository {
  constructor(@InjectRepository(UserConfig) private readonly rows: Repository<UserConfig>) {}

  find(userId: string, key: string): Promise<UserConfig | null> {
    return this.rows.findOneBy({ userId, key });
  }

  async upsert(userId: string, key: string, value: string): Promise<UserConfig> {
    await this.rows.upsert({ userId, key, value, updatedAt: new Date() }, ['userId', 'key']);
    return (await this.find(userId, key))!;
  }

  /** Inserts unless a row exists (a concurrent first read keeps the first writer's value). */
  async insertIfAbsent(userId: string, key: string, value: string): Promise<UserConfig> {
    await this.rows
      .createQueryBuilder()
      .insert()
      .into(UserConfig)
      .values({ userId, key, value })
      .orIgnore()
      .execute();
    return (await this.find(userId, key))!;
  }
}
