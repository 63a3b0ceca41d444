import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ApiToken } from '../entities/api-token.entity';
import { User, type Visibility } from '../entities/user.entity';

const SORTS: Record<string, string> = {
  name: 'u.lower_name',
  created: 'u.created_at',
  updated: 'u.updated_at',
  id: 'u.id',
};

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The filters of Gitea's administrator user search, validated by the caller. */
export interface IndividualSearch {
  /** Lowercased, trimmed free text ('' = none). */
  q: string;
  /** A login source id other than 0, or '0'. */
  sourceId: string;
  loginName: string;
  visibility: Visibility | '';
  active?: boolean;
  admin?: boolean;
  restricted?: boolean;
  prohibitLogin?: boolean;
  twoFactorEnabled?: boolean;
  /** `name`, `created`, `updated`, `id` ('' or unknown = name). */
  sort: string;
  direction: 'ASC' | 'DESC';
  offset: number;
  limit: number;
}

/** SQL on `users` and `api_tokens` for account administration (AccountAdministration). */
@Injectable()
export class AccountAdminRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get users() {
    return this.dataSource.getRepository(User);
  }

  private trigramIndexes: Promise<boolean> | undefined;

  private hasTrigramIndexes(): Promise<boolean> {
    this.trigramIndexes ??= this.dataSource
      .query(`SELECT to_regclass('"IDX_users_trgm_name"') IS NOT NULL AS present`)
      .then((rows: { present: boolean }[]) => rows[0]?.present === true)
      .catch(() => false);
    return this.trigramIndexes;
  }

  /** Individuals matching the filters, one page; `total` is counted (once) only when the page cannot tell it. */
  async searchIndividuals(search: IndividualSearch): Promise<{ users: User[]; total: number }> {
    const qb = this.users.createQueryBuilder('u').where("u.type = 'individual'");
    const q = search.q;
    if (q !== '') {
      const pattern = `%${escapeLike(q)}%`;
      // With the trigram indexes (migration UserSearchTrigramIndexes) the predicate must use their
      // expressions; without them the stored lowercase columns scan about twice as fast.
      qb.andWhere(
        (await this.hasTrigramIndexes())
          ? '(lower(u.name) LIKE :pattern OR lower(u.full_name) LIKE :pattern OR lower(u.email) LIKE :pattern)'
          : '(u.lower_name LIKE :pattern OR lower(u.full_name) LIKE :pattern OR u.lower_email LIKE :pattern)',
        { pattern },
      );
    }
    const sourceId = search.sourceId;
    if (sourceId !== '0' && !/^0+$/.test(sourceId)) qb.andWhere('u.login_source = :sourceId', { sourceId });
    const loginName = search.loginName;
    if (loginName !== '') qb.andWhere('u.login_name = :loginName', { loginName });
    const visibility = search.visibility;
    if (visibility !== '') qb.andWhere('u.visibility = :visibility', { visibility });
    const { active, admin, restricted, prohibitLogin: prohibited } = search;
    if (active !== undefined) qb.andWhere(active ? "u.status = 'active'" : "u.status <> 'active'");
    if (admin !== undefined) qb.andWhere('u.is_admin = :admin', { admin });
    if (restricted !== undefined) qb.andWhere('u.restricted = :restricted', { restricted });
    if (prohibited !== undefined) qb.andWhere('u.prohibit_login = :prohibited', { prohibited });
    // No second factor exists yet: nobody has 2FA enabled.
    if (search.twoFactorEnabled === true) qb.andWhere('false');

    const column = SORTS[search.sort] ?? SORTS.name!;
    qb.orderBy(column, search.direction);
    // Tie-break by id; not when sorting by id (a second key on the same column would replace the direction).
    if (column !== SORTS.id) qb.addOrderBy('u.id', 'ASC');
    qb.offset(search.offset).limit(search.limit);
    // The page alone (no window count: `count(*) OVER ()` computes every matching row before the LIMIT, so
    // the planner can neither stop early on the sort's index nor pick the trigram indexes for a page).
    const users = await qb.getMany();
    // The total: the page tells it when it is short (and not past the end); else one count(*) over the same
    // conditions (not TypeORM's getCount(), which counts DISTINCT ids and sorts them all).
    const total =
      users.length < search.limit && (users.length > 0 || search.offset === 0)
        ? search.offset + users.length
        : Number(
            (
              await qb
                .clone()
                .select('count(*)', 'n')
                .orderBy()
                .offset(undefined)
                .limit(undefined)
                .getRawOne<{ n: string }>()
            )?.n ?? 0,
          );
    return { users, total };
  }

  findByLowerName(lowerName: string): Promise<User | null> {
    return this.users.findOneBy({ lowerName });
  }

  findByLowerEmail(lowerEmail: string): Promise<User | null> {
    return this.users.findOneBy({ lowerEmail });
  }

  findById(id: string, manager: EntityManager = this.dataSource.manager): Promise<User | null> {
    return manager.getRepository(User).findOneBy({ id });
  }

  findByIdOrFail(id: string): Promise<User> {
    return this.users.findOneByOrFail({ id });
  }

  /** Sets `created_at` (and `updated_at`) of a new account. */
  async backdate(userId: string, at: Date, manager: EntityManager): Promise<void> {
    await manager.query('UPDATE users SET created_at = $1, updated_at = $1 WHERE id = $2', [at, userId]);
  }

  async update(userId: string, changes: Partial<User>, manager: EntityManager): Promise<void> {
    await manager.getRepository(User).update({ id: userId }, changes);
  }

  async clearMustChangePassword(userId: string): Promise<void> {
    await this.users.update({ id: userId, mustChangePassword: true }, { mustChangePassword: false });
  }

  /** Browser sessions (login type password) end; API tokens stay. */
  async deletePasswordSessions(userId: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(ApiToken).delete({ userId, loginType: 'password' });
  }

  /** Tokens, keys, memberships and team memberships cascade with the account row. */
  async deleteAccount(userId: string, manager: EntityManager): Promise<void> {
    await manager.getRepository(User).delete({ id: userId });
  }

  countAdmins(manager: EntityManager): Promise<number> {
    return manager.getRepository(User).countBy({ type: 'individual', isAdmin: true });
  }

  countSuperAdmins(manager: EntityManager): Promise<number> {
    return manager.getRepository(User).countBy({ type: 'individual', isSuperAdmin: true });
  }

  grantNode(
    id: string,
    manager: EntityManager,
  ): Promise<Pick<User, 'id' | 'isAdmin' | 'adminGrantedBy' | 'type'> | null> {
    return manager.getRepository(User).findOne({
      where: { id },
      select: { id: true, isAdmin: true, adminGrantedBy: true, type: true },
    });
  }

  async countOwnedOrganizations(userId: string, manager: EntityManager): Promise<number> {
    const rows = (await manager.query(
      `SELECT count(*)::int AS n FROM organization_members m
         JOIN organizations o ON o.account_id = m.organization_id
        WHERE m.user_id = $1 AND m.is_owner AND NOT o.is_default`,
      [userId],
    )) as { n: number }[];
    return rows[0]?.n ?? 0;
  }

  /** Organizations the user alone owns go with the user; other memberships just end. */
  async purgeOwnedOrganizations(userId: string, manager: EntityManager): Promise<void> {
    await manager.query(
      `DELETE FROM users WHERE type = 'organization' AND id IN (
         SELECT m.organization_id FROM organization_members m
           JOIN organizations o ON o.account_id = m.organization_id
          WHERE m.user_id = $1 AND m.is_owner AND NOT o.is_default
            AND NOT EXISTS (SELECT 1 FROM organization_members other
                             WHERE other.organization_id = m.organization_id AND other.is_owner AND other.user_id <> $1))`,
      [userId],
    );
    await manager.query(
      `DELETE FROM organization_members m USING organizations o
        WHERE o.account_id = m.organization_id AND m.user_id = $1 AND NOT o.is_default`,
      [userId],
    );
  }
}
