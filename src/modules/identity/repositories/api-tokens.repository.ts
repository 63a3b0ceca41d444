import { Injectable } from '@nestjs/common';
import { DataSource, type DeepPartial, type EntityManager } from 'typeorm';
import { ApiToken } from '../entities/api-token.entity';
import type { LoginType } from '../entities/user.entity';

/** SQL on `api_tokens` for ApiTokensService. Methods used inside a caller's transaction take its manager. */
@Injectable()
export class ApiTokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  private tokens(manager: EntityManager = this.dataSource.manager) {
    return manager.getRepository(ApiToken);
  }

  nameExists(userId: string, name: string, manager?: EntityManager): Promise<boolean> {
    return this.tokens(manager).existsBy({ userId, name });
  }

  /** Builds the entity (not saved). */
  build(row: DeepPartial<ApiToken>): ApiToken {
    return this.tokens().create(row);
  }

  async insert(token: ApiToken, manager?: EntityManager): Promise<void> {
    await this.tokens(manager).insert(token);
  }

  listForUser(userId: string, loginType?: LoginType): Promise<ApiToken[]> {
    return this.tokens().find({
      where: { userId, ...(loginType ? { loginType } : {}) },
      order: { createdAt: 'ASC' },
    });
  }

  async update(id: string, changes: Partial<ApiToken>): Promise<void> {
    await this.tokens().update({ id }, changes);
  }

  async delete(id: string, manager?: EntityManager): Promise<void> {
    await this.tokens(manager).delete({ id });
  }

  async deleteAllForUser(userId: string, manager?: EntityManager): Promise<void> {
    await this.tokens(manager).delete({ userId });
  }
}
