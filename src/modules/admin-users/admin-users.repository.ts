import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AdminGrantTombstone } from './entities/admin-grant-tombstone.entity';

/** Serialises every change that can lower the number of administrators. */
const ADMINS_LOCK = "SELECT pg_advisory_xact_lock(hashtext('devplane.admin-users.admins'))";

/** SQL on admin-users' own tables (administrator grant tombstones) and its advisory lock. */
@Injectable()
export class AdminUsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async lockAdmins(manager: EntityManager): Promise<void> {
    await manager.query(ADMINS_LOCK);
  }

  findTombstone(
    userId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<AdminGrantTombstone | null> {
    return manager.getRepository(AdminGrantTombstone).findOneBy({ userId });
  }

  async saveTombstone(
    row: Pick<AdminGrantTombstone, 'userId' | 'adminGrantedBy' | 'username'>,
    manager: EntityManager,
  ): Promise<void> {
    await manager.getRepository(AdminGrantTombstone).upsert(row, ['userId']);
  }
}
