import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, type EntityManager } from 'typeorm';
import type { UserSearch, Page } from './account-queries';
import { User } from '../entities/user.entity';
import { pageAndCount } from '../../../platform/database/page-and-count';

/** SQL on `users` for Coder's user management (CoderUsersService). */
@Injectable()
export class CoderUsersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Individuals matching Coder's user search, one page, by name; `selfId` limits the result to one
   * user, `afterName` starts after that lower-cased name.
   */
  search(
    filters: UserSearch,
    page: Page,
    options: { selfId?: string; afterName?: string },
  ): Promise<[User[], number]> {
    const query = this.dataSource.getRepository(User).createQueryBuilder('u').where("u.type = 'individual'");
    if (options.selfId !== undefined) query.andWhere('u.id = :self', { self: options.selfId });
    if (filters.search) {
      const like = `%${filters.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query.andWhere(
        new Brackets((where) =>
          where.where('u.lower_name LIKE :like', { like }).orWhere('u.lower_email LIKE :like', { like }),
        ),
      );
    }
    if (filters.statuses.length) query.andWhere('u.status IN (:...statuses)', { statuses: filters.statuses });
    if (filters.loginTypes.length)
      query.andWhere('u.login_type IN (:...loginTypes)', { loginTypes: filters.loginTypes });
    if (filters.serviceAccount !== undefined)
      query.andWhere('u.is_service_account = :sa', { sa: filters.serviceAccount });
    const roles = filters.roles.filter((role) => role !== 'member');
    if (roles.length) {
      query.andWhere(
        new Brackets((where) => {
          where.where('u.site_roles && :roles', { roles });
          if (roles.includes('owner')) where.orWhere('u.is_admin');
        }),
      );
    }
    if (filters.createdAfter) query.andWhere('u.created_at >= :ca', { ca: filters.createdAfter });
    if (filters.createdBefore) query.andWhere('u.created_at <= :cb', { cb: filters.createdBefore });
    if (filters.lastSeenAfter) query.andWhere('u.last_seen_at >= :la', { la: filters.lastSeenAfter });
    if (filters.lastSeenBefore) query.andWhere('u.last_seen_at <= :lb', { lb: filters.lastSeenBefore });
    if (options.afterName !== undefined)
      query.andWhere('u.lower_name > :afterName', { afterName: options.afterName });
    query.orderBy('u.lower_name', 'ASC');
    return pageAndCount(query, page.offset ?? 0, page.limit || undefined);
  }

  findOrFail(id: string): Promise<User> {
    return this.dataSource.getRepository(User).findOneByOrFail({ id });
  }

  /** Active site administrators (Coder owners). */
  countActiveOwners(manager: EntityManager): Promise<number> {
    return manager.getRepository(User).countBy({ type: 'individual', isAdmin: true, status: 'active' });
  }

  async deleteIndividual(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(User).delete({ id, type: 'individual' });
  }
}
