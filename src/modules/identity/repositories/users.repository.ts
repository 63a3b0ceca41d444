import { Injectable } from '@nestjs/common';
import { DataSource, type DeepPartial, type EntityManager, type FindOptionsWhere } from 'typeorm';
import { OrganizationMember } from '../entities/organization-member.entity';
import { Organization } from '../entities/organization.entity';
import { User } from '../entities/user.entity';

/** SQL on `users` for UsersService. Methods used inside a caller's transaction take its manager. */
@Injectable()
export class UsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  private users(manager: EntityManager = this.dataSource.manager) {
    return manager.getRepository(User);
  }

  findOneBy(where: FindOptionsWhere<User>): Promise<User | null> {
    return this.users().findOneBy(where);
  }

  exists(where: FindOptionsWhere<User>, manager?: EntityManager): Promise<boolean> {
    return this.users(manager).existsBy(where);
  }

  countIndividuals(): Promise<number> {
    return this.users().countBy({ type: 'individual' });
  }

  listIndividuals(): Promise<User[]> {
    return this.users().find({ where: { type: 'individual' }, order: { id: 'ASC' } });
  }

  findBootstrapAdmin(): Promise<User | null> {
    return this.users().findOne({
      where: { type: 'individual', hasBootstrapGrant: true },
      order: { id: 'ASC' },
    });
  }

  async update(id: string, changes: Partial<User>, manager?: EntityManager): Promise<void> {
    await this.users(manager).update({ id }, changes);
  }

  /** Builds and saves a new account row (generated columns filled in). */
  insert(row: DeepPartial<User>, manager: EntityManager): Promise<User> {
    const repo = this.users(manager);
    return repo.save(repo.create(row));
  }

  findDefaultOrganization(manager: EntityManager): Promise<Organization | null> {
    return manager.getRepository(Organization).findOneBy({ isDefault: true });
  }

  async addMember(organizationId: string, userId: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(OrganizationMember).insert({ organizationId, userId, roles: [] });
  }
}
