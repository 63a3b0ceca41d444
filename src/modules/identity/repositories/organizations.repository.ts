import { Injectable } from '@nestjs/common';
import { DataSource, type DeepPartial, type EntityManager, In, type SelectQueryBuilder } from 'typeorm';
import type { CoderPage } from '../../../api/coder/coder-search-query';
import type { MemberSearch } from '../management/coder-organizations.service';
import { OrganizationMember } from '../entities/organization-member.entity';
import { Organization, type WorkspaceSharingMode } from '../entities/organization.entity';
import { TeamMember } from '../entities/team-member.entity';
import { Team } from '../entities/team.entity';
import { User } from '../entities/user.entity';

/**
 * SQL on `users` (organization accounts), `organizations`, `organization_members`, `teams` and
 * `team_members` for OrganizationsService and CoderOrganizationsService. Methods that run in the
 * caller's transaction take its `EntityManager`.
 */
@Injectable()
export class OrganizationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  // ------------------------------------------------------------------------------- accounts

  /** Whether any account (individual or organization) has this lower-cased name. */
  nameTaken(manager: EntityManager, lowerName: string): Promise<boolean> {
    return manager.getRepository(User).existsBy({ lowerName });
  }

  /** Saves a new organization account row (`users`), returning the saved entity. */
  insertAccount(manager: EntityManager, fields: DeepPartial<User>): Promise<User> {
    const accounts = manager.getRepository(User);
    return accounts.save(accounts.create(fields));
  }

  async updateAccount(manager: EntityManager, id: string, changes: Partial<User>): Promise<void> {
    await manager.getRepository(User).update({ id }, changes);
  }

  /** Deletes the organization account (members, teams and details cascade). */
  async deleteAccount(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(User).delete({ id, type: 'organization' });
  }

  // ------------------------------------------------------------------------------- details

  async insertOrganization(
    manager: EntityManager,
    row: { accountId: string; displayName: string; icon: string },
  ): Promise<void> {
    await manager.getRepository(Organization).insert(row);
  }

  async updateOrganization(
    manager: EntityManager,
    accountId: string,
    changes: Partial<Organization>,
  ): Promise<void> {
    await manager.getRepository(Organization).update({ accountId }, changes);
  }

  async setWorkspaceSharingMode(
    manager: EntityManager,
    accountId: string,
    mode: WorkspaceSharingMode,
  ): Promise<void> {
    await manager.getRepository(Organization).update({ accountId }, { workspaceSharingMode: mode });
  }

  // ------------------------------------------------------------------------------- members

  findMember(
    manager: EntityManager,
    organizationId: string,
    userId: string,
  ): Promise<OrganizationMember | null> {
    return manager.getRepository(OrganizationMember).findOneBy({ organizationId, userId });
  }

  countOwners(manager: EntityManager, organizationId: string): Promise<number> {
    return manager.getRepository(OrganizationMember).countBy({ organizationId, isOwner: true });
  }

  isOwner(manager: EntityManager, organizationId: string, userId: string): Promise<boolean> {
    return manager.getRepository(OrganizationMember).existsBy({ organizationId, userId, isOwner: true });
  }

  async insertMember(
    manager: EntityManager,
    row: { organizationId: string; userId: string; roles: string[]; isOwner?: boolean },
  ): Promise<void> {
    await manager.getRepository(OrganizationMember).insert(row);
  }

  /** Adds a member with no roles, or leaves an existing membership's roles as they are (upsert). */
  async addMember(manager: EntityManager, organizationId: string, userId: string): Promise<void> {
    await manager
      .getRepository(OrganizationMember)
      .upsert({ organizationId, userId, roles: [] }, ['organizationId', 'userId']);
  }

  async setOwner(
    manager: EntityManager,
    organizationId: string,
    userId: string,
    isOwner: boolean,
  ): Promise<void> {
    await manager.getRepository(OrganizationMember).update({ organizationId, userId }, { isOwner });
  }

  async setMemberRoles(
    manager: EntityManager,
    organizationId: string,
    userId: string,
    roles: string[],
  ): Promise<void> {
    await manager.getRepository(OrganizationMember).update({ organizationId, userId }, { roles });
  }

  async deleteMember(manager: EntityManager, organizationId: string, userId: string): Promise<void> {
    await manager.getRepository(OrganizationMember).delete({ organizationId, userId });
  }

  /** An organization's members (with their accounts) matching the filters, one page; `selfId` limits to one user. */
  searchMembers(
    organizationId: string,
    filters: MemberSearch,
    page: CoderPage,
    selfId?: string,
  ): Promise<[OrganizationMember[], number]> {
    const query = this.dataSource
      .getRepository(OrganizationMember)
      .createQueryBuilder('m')
      .innerJoinAndSelect('m.user', 'u')
      .where('m.organization_id = :org', { org: organizationId });
    if (selfId !== undefined) query.andWhere('m.user_id = :self', { self: selfId });
    applyUserFilters(query, filters, 'm.roles');
    query.orderBy('u.lower_name', 'ASC');
    if (page.offset) query.skip(page.offset);
    if (page.limit) query.take(page.limit);
    return query.getManyAndCount();
  }

  /** Members of the organization (of team `teamId` too, when given) matching the filters, one page. */
  searchGroupMembers(
    organizationId: string,
    teamId: string | null,
    filters: MemberSearch,
    page: CoderPage,
  ): Promise<[User[], number]> {
    const query = this.dataSource.getRepository(User).createQueryBuilder('u');
    if (teamId !== null) {
      query.innerJoin(TeamMember, 'tm', 'tm.user_id = u.id AND tm.team_id = :team', { team: teamId });
      query.innerJoin(OrganizationMember, 'm', 'm.user_id = u.id AND m.organization_id = :org', {
        org: organizationId,
      });
    } else {
      query.innerJoin(OrganizationMember, 'm', 'm.user_id = u.id AND m.organization_id = :org', {
        org: organizationId,
      });
    }
    applyUserFilters(query, filters, 'm.roles');
    query.orderBy('u.lower_name', 'ASC');
    if (page.offset) query.skip(page.offset);
    if (page.limit) query.take(page.limit);
    return query.getManyAndCount();
  }

  // ------------------------------------------------------------------------------- teams

  /** Saves a new team row, returning the saved entity. */
  insertTeam(manager: EntityManager, fields: DeepPartial<Team>): Promise<Team> {
    const teams = manager.getRepository(Team);
    return teams.save(teams.create(fields));
  }

  async updateTeam(manager: EntityManager, id: string, changes: Partial<Team>): Promise<void> {
    await manager.getRepository(Team).update({ id }, changes);
  }

  async deleteTeam(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(Team).delete({ id });
  }

  /** Ids of an organization's teams. */
  async teamIdsOf(manager: EntityManager, organizationId: string): Promise<string[]> {
    return (await manager.getRepository(Team).find({ where: { organizationId }, select: { id: true } })).map(
      (team) => team.id,
    );
  }

  async insertTeamMember(manager: EntityManager, teamId: string, userId: string): Promise<void> {
    await manager.getRepository(TeamMember).insert({ teamId, userId });
  }

  async upsertTeamMember(manager: EntityManager, teamId: string, userId: string): Promise<void> {
    await manager.getRepository(TeamMember).upsert({ teamId, userId }, ['teamId', 'userId']);
  }

  async deleteTeamMember(manager: EntityManager, teamId: string, userId: string): Promise<void> {
    await manager.getRepository(TeamMember).delete({ teamId, userId });
  }

  /** Ends the user's memberships of the given teams. */
  async removeMemberFromTeams(manager: EntityManager, userId: string, teamIds: string[]): Promise<void> {
    await manager.getRepository(TeamMember).delete({ userId, teamId: In(teamIds) });
  }
}

/** The user filters shared by the members lists (`u` = users, `rolesColumn` = the organization roles). */
function applyUserFilters(
  query: SelectQueryBuilder<any>, // eslint-disable-line @typescript-eslint/no-explicit-any
  filters: MemberSearch,
  rolesColumn: string,
): void {
  if (filters.search) {
    const like = `%${filters.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query.andWhere('(u.lower_name LIKE :like OR u.lower_email LIKE :like OR lower(u.full_name) LIKE :like)', {
      like,
    });
  }
  if (filters.statuses.length) query.andWhere('u.status IN (:...statuses)', { statuses: filters.statuses });
  if (filters.loginTypes.length)
    query.andWhere('u.login_type IN (:...loginTypes)', { loginTypes: filters.loginTypes });
  if (filters.serviceAccount !== undefined)
    query.andWhere('u.is_service_account = :sa', { sa: filters.serviceAccount });
  if (filters.userId) query.andWhere('u.uuid = :userId', { userId: filters.userId });
  const roles = filters.roles.filter((role) => role !== 'organization-member' && role !== 'member');
  if (roles.length)
    query.andWhere(
      `(${rolesColumn} && :roles OR u.site_roles && :roles${roles.includes('owner') ? ' OR u.is_admin' : ''})`,
      {
        roles,
      },
    );
}
