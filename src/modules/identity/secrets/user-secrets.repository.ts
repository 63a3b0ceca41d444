import { Injectable } from '@nestjs/common';
import { DataSource, type DeepPartial, type EntityManager } from 'typeorm';
import { UserSecret } from './user-secret.entity';

/** SQL on `user_secrets`. Methods used inside a caller's transaction take its manager. */
@Injectable()
export class UserSecretsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The per-user advisory lock every secret write takes (limits and uniqueness are checked under it). */
  async lockUser(userId: string, manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`user-secrets:${userId}`]);
  }

  listByName(userId: string): Promise<UserSecret[]> {
    return this.dataSource.getRepository(UserSecret).find({ where: { userId }, order: { name: 'ASC' } });
  }

  listEnabledByName(userId: string): Promise<UserSecret[]> {
    return this.dataSource
      .getRepository(UserSecret)
      .find({ where: { userId, enabled: true }, order: { name: 'ASC' } });
  }

  findByName(
    userId: string,
    name: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<UserSecret | null> {
    return manager.getRepository(UserSecret).findOneBy({ userId, name });
  }

  allOf(userId: string, manager: EntityManager): Promise<UserSecret[]> {
    return manager.getRepository(UserSecret).findBy({ userId });
  }

  /** Inserts a new secret (or writes a loaded one back). */
  save(secret: DeepPartial<UserSecret>, manager: EntityManager): Promise<UserSecret> {
    const table = manager.getRepository(UserSecret);
    return table.save(table.create(secret));
  }

  /** Writes a loaded (and changed) secret back. */
  update(secret: UserSecret, manager: EntityManager): Promise<UserSecret> {
    return manager.getRepository(UserSecret).save(secret);
  }

  /** Deletes the named secret; its id, or undefined when there is none. */
  async deleteByName(userId: string, name: string, manager: EntityManager): Promise<string | undefined> {
    const deleted = (await manager.query(
      'DELETE FROM user_secrets WHERE user_id = $1 AND name = $2 RETURNING id',
      [userId, name],
    )) as [{ id: string }[], number];
    return deleted[0][0]?.id;
  }
}
