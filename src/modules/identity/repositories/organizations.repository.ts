import { Injectable } from '@nestjs/common';
import { DataSource, type DeepPartial, type EntityManager, In, type SelectQueryBuilder } from 'typeorm';
import type { MemberSearch, Page } from './account-queries';
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

  private get accounts() {
    return this.dataSource.getRepository(User);
  }

  private get details() {
    return this.dataSource.getRepository(Organization);
  }

  private get members() {
    return this.dataSource.getRepository(OrganizationMember);
  }

  private get teams() {
    return this.dataSource.getRepository(Team);
  }

  private get teamMembers() {
    return this.dataSource.getRepository(TeamMember);
  }

  // ------------------------------------------------------------------------------- reads and single writes

  findOrganizationAccount(where: { lowerName: string } | { uuid: string }): Promise<User | null> {
    return this.accounts.findOneBy({ ...where, type: 'organization' });
  }

  organizationAccountExists(lowerName: string): Promise<boolean> {
    return this.accounts.existsBy({ lowerName, type: 'organization' });
  }

  findAccountOrFail(id: string): Promise<User> {
    return this.accounts.findOneByOrFail({ id });
  }

  findAccount(id: string): Promise<User | null> {
    return this.accounts.findOneBy({ id });
  }

  async updateAccountFields(id: string, changes: Partial<User>): Promise<void> {
    await this.accounts.update({ id }, changes);
  }

  findDefaultOrganization(): Promise<Organization | null> {
    return this.details.findOne({ where: { isDefault: true }, relations: { account: true } });
  }

  findDetailsOrFail(accountId: string): Promise<Organization> {
    return this.details.findOneByOrFail({ accountId });
  }

  /** Every organization's details with its account, oldest first. */
  listOrganizations(): Promise<Organization[]> {
    return this.details.find({ relations: { account: true }, order: { createdAt: 'ASC' } });
  }

  async upsertMember(row: {
    organizationId: string;
    userId: string;
    roles: string[];
    isOwner: boolean;
  }): Promise<void> {
    await this.members.upsert(row, ['organizationId', 'userId']);
  }

  /** The user's memberships, each with its organization account. */
  membershipsWithOrganizations(userId: string): Promise<OrganizationMember[]> {
    return this.members.find({ where: { userId }, relations: { organization: true } });
  }

  findMembership(organizationId: string, userId: string): Promise<OrganizationMember | null> {
    return this.members.findOneBy({ organizationId, userId });
  }

  isMember(organizationId: string, userId: string): Promise<boolean> {
    return this.members.existsBy({ organizationId, userId });
  }

  /** Members of an organization, each with its account, by user id, one page. */
  pageMembers(
    organizationId: string,
    page: { offset: number; limit: number },
  ): Promise<[OrganizationMember[], number]> {
    return this.members.findAndCount({
      where: { organizationId },
      relations: { user: true },
      order: { userId: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
  }

  /** A user's memberships of organization accounts, each with the organization, by organization id, one page. */
  pageMembershipsOf(
    userId: string,
    page: { offset: number; limit: number },
  ): Promise<[OrganizationMember[], number]> {
    return this.members.findAndCount({
      where: { userId, organization: { type: 'organization' } },
      relations: { organization: true },
      order: { organizationId: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
  }

  /** Numeric ids of an organization's owners. */
  async ownerIds(organizationId: string): Promise<string[]> {
    return (
      await this.members.find({ where: { organizationId, isOwner: true }, select: { userId: true } })
    ).map((row) => row.userId);
  }

  /** An organization's members' accounts, by user id. */
  async memberAccounts(organizationId: string): Promise<User[]> {
    return (
      await this.members.find({
        where: { organizationId },
        relations: { user: true },
        order: { userId: 'ASC' },
      })
    ).map((row) => row.user);
  }

  /** An organization's teams, by lower-cased name. */
  teamsByName(organizationId: string): Promise<Team[]> {
    return this.teams.find({ where: { organizationId }, order: { lowerName: 'ASC' } });
  }

  /** A new, unsaved team entity. */
  newTeam(fields: DeepPartial<Team>): Team {
    return this.teams.create(fields);
  }

  saveTeam(team: Team): Promise<Team> {
    return this.teams.save(team);
  }

  async deleteTeamById(id: string): Promise<void> {
    await this.teams.delete({ id });
  }

  async upsertTeamMembership(teamId: string, userId: string): Promise<void> {
    await this.teamMembers.upsert({ teamId, userId }, ['teamId', 'userId']);
  }

  /** An organization's teams by id, one page. */
  pageTeams(organizationId: string, page: { offset: number; limit: number }): Promise<[Team[], number]> {
    return this.teams.findAndCount({
      where: { organizationId },
      order: { id: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
  }

  findTeamWithOrganization(id: string): Promise<Team | null> {
    return this.teams.findOne({ where: { id }, relations: { organization: true } });
  }

  findTeamBy(where: { organizationId: string; lowerName: string } | { uuid: string }): Promise<Team | null> {
    return this.teams.findOneBy(where);
  }

  findTeamOrFail(id: string): Promise<Team> {
    return this.teams.findOneByOrFail({ id });
  }

  teamExists(organizationId: string, lowerName: string): Promise<boolean> {
    return this.teams.existsBy({ organizationId, lowerName });
  }

  /** A team's members' accounts, by user id. */
  async teamMemberAccounts(teamId: string): Promise<User[]> {
    return (
      await this.teamMembers.find({ where: { teamId }, relations: { user: true }, order: { userId: 'ASC' } })
    ).map((row) => row.user);
  }

  /** The user's team memberships, each with its team (in organization `organizationId` when given). */
  teamMembershipsOf(userId: string, organizationId?: string): Promise<TeamMember[]> {
    return organizationId === undefined
      ? this.teamMembers.find({ where: { userId }, relations: { team: true } })
      : this.teamMembers.find({ where: { userId, team: { organizationId } }, relations: { team: true } });
  }

  /** The user's team memberships, each with its team and the team's organization. */
  teamMembershipsWithOrganizations(userId: string): Promise<TeamMember[]> {
    return this.teamMembers.find({ where: { userId }, relations: { team: { organization: true } } });
  }

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
    page: Page,
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
    page: Page,
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
