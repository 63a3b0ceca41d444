import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { VersionedCache } from '../../platform/cache/versioned-cache';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { type Transaction, TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ConflictError, InvalidError } from '../../platform/errors/domain-error';
import { Organization } from './entities/organization.entity';
import { Team } from './entities/team.entity';
import { User, type Visibility } from './entities/user.entity';
import { OwnedResourcesRegistry } from './owned-resources.registry';
import { AccountsRepository } from './repositories/accounts.repository';
import { OrganizationsRepository } from './repositories/organizations.repository';

export interface Membership {
  organizationId: string;
  organizationUuid: string;
  organizationName: string;
  roles: string[];
  isOwner: boolean;
}

/** Gitea's Owners team, which every organization has. */
export const OWNERS_TEAM = 'Owners';
/** Gitea's repository units a team's permission can cover. */
export const TEAM_UNITS = [
  'repo.code',
  'repo.issues',
  'repo.ext_issues',
  'repo.wiki',
  'repo.ext_wiki',
  'repo.pulls',
  'repo.releases',
  'repo.projects',
  'repo.packages',
  'repo.actions',
] as const;

export interface EditOrganizationInput {
  fullName?: string;
  description?: string;
  website?: string;
  location?: string;
  visibility?: Visibility;
}

export interface TeamInput {
  name?: string;
  description?: string;
  permission?: 'read' | 'write' | 'admin';
  units?: string[];
  includesAllRepositories?: boolean;
  canCreateOrgRepo?: boolean;
}

export interface CreateOrganizationInput {
  name: string;
  displayName?: string;
  description?: string;
  visibility?: Visibility;
  ownerId?: string;
  icon?: string;
}

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly owned: OwnedResourcesRegistry,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly accountRows: AccountsRepository,
    private readonly rows: OrganizationsRepository,
  ) {
    this.membershipCache = new VersionedCache({
      tables: ['organization_members', 'users'],
      ttlMs: config.identityCacheSeconds * 1000,
    });
    this.groupsCache = new VersionedCache({
      tables: ['organization_members', 'team_members', 'teams', 'users'],
      ttlMs: config.identityCacheSeconds * 1000,
    });
  }

  /** A user's memberships (every Coder User response lists them), until a membership or account changes. */
  private readonly membershipCache: VersionedCache<string, Membership[]>;
  /** `groupsOf` (OCS cloud/user, workflow group checks), until a membership, team or account changes. */
  private readonly groupsCache: VersionedCache<string, string[]>;

  findByName(name: string): Promise<User | null> {
    return this.rows.findOrganizationAccount({ lowerName: name.toLowerCase() });
  }

  findByUuid(uuid: string): Promise<User | null> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid))
      return Promise.resolve(null);
    return this.rows.findOrganizationAccount({ uuid: uuid.toLowerCase() });
  }

  getDefault(): Promise<Organization | null> {
    return this.rows.findDefaultOrganization();
  }

  /** Creates the organization account and its details row; the owner becomes an owner member. */
  create(
    input: CreateOrganizationInput,
    audit?: (manager: EntityManager, account: User) => Promise<void>,
  ): Promise<User> {
    return this.transactions.run(async (tx) => {
      if (await this.rows.nameTaken(tx.manager, input.name.toLowerCase())) {
        throw new ConflictError(`organization already exists [name: ${input.name}]`, {
          code: 'ORG_NAME_TAKEN',
        });
      }
      const account = await this.rows.insertAccount(tx.manager, {
        type: 'organization',
        name: input.name,
        lowerName: input.name.toLowerCase(),
        fullName: input.displayName ?? '',
        description: input.description ?? '',
        visibility: input.visibility ?? 'public',
        loginType: 'none',
      });
      await this.rows.insertOrganization(tx.manager, {
        accountId: account.id,
        displayName: input.displayName ?? input.name,
        icon: input.icon ?? '',
      });
      // Gitea: every organization has an Owners team (owner permission, every repository).
      const owners = await this.rows.insertTeam(tx.manager, {
        organizationId: account.id,
        name: OWNERS_TEAM,
        lowerName: OWNERS_TEAM.toLowerCase(),
        permission: 'owner',
        includesAllRepositories: true,
        canCreateOrgRepo: true,
        units: [...TEAM_UNITS],
      });
      if (input.ownerId) {
        await this.rows.insertMember(tx.manager, {
          organizationId: account.id,
          userId: input.ownerId,
          roles: ['organization-admin'],
          isOwner: true,
        });
        await this.rows.insertTeamMember(tx.manager, owners.id, input.ownerId);
      }
      await audit?.(tx.manager, account);
      return account;
    });
  }

  async addMember(
    organizationId: string,
    userId: string,
    roles: string[] = [],
    isOwner = false,
  ): Promise<void> {
    await this.rows.upsertMember({ organizationId, userId, roles, isOwner });
  }

  /** The user's organizations with their roles, in one query. */
  async membershipsOf(userId: string): Promise<Membership[]> {
    const memberships = await this.membershipCache.get(userId, async () => {
      const rows = await this.rows.membershipsWithOrganizations(userId);
      return rows.map((row) => ({
        organizationId: row.organizationId,
        organizationUuid: row.organization.uuid,
        organizationName: row.organization.name,
        roles: row.roles,
        isOwner: row.isOwner,
      }));
    });
    return memberships.map((membership) => ({ ...membership, roles: [...membership.roles] }));
  }

  async createTeam(
    organizationId: string,
    name: string,
    permission: Team['permission'] = 'read',
  ): Promise<Team> {
    return this.rows.saveTeam(
      this.rows.newTeam({ organizationId, name, lowerName: name.toLowerCase(), permission }),
    );
  }

  async addTeamMember(teamId: string, userId: string): Promise<void> {
    await this.rows.upsertTeamMembership(teamId, userId);
  }

  /** Gitea's EditOrg: the organization account's public fields. */
  async edit(organization: User, input: EditOrganizationInput): Promise<User> {
    const changes: Partial<User> = {};
    if (input.fullName !== undefined) changes.fullName = input.fullName;
    if (input.description !== undefined) changes.description = input.description;
    if (input.website !== undefined) changes.website = input.website;
    if (input.location !== undefined) changes.location = input.location;
    if (input.visibility !== undefined) changes.visibility = input.visibility;
    if (Object.keys(changes).length > 0) await this.rows.updateAccountFields(organization.id, changes);
    return this.rows.findAccountOrFail(organization.id);
  }

  /**
   * Deletes the organization account (members, teams and details cascade), refused (422, Gitea's
   * text) while it still owns repositories or packages (the owned-resources registry).
   */
  async delete(organization: User, audit?: (manager: EntityManager) => Promise<void>): Promise<void> {
    await this.transactions.run(async (tx) => {
      for (const handler of this.owned.list()) {
        if ((await handler.count(organization.id, tx.manager)) > 0) {
          throw new InvalidError(handler.message(organization.id).replace(/^user /, 'organization '), {
            code: `OWNS_${handler.kind.toUpperCase()}`,
          });
        }
      }
      await audit?.(tx.manager);
      await this.rows.deleteAccount(tx.manager, organization.id);
    });
  }

  /** Members of an organization, by id. */
  async members(
    organizationId: string,
    page: { offset: number; limit: number },
  ): Promise<{ items: User[]; total: number }> {
    const [rows, total] = await this.rows.pageMembers(organizationId, page);
    return { items: rows.map((row) => row.user), total };
  }

  async isMember(organizationId: string, userId: string): Promise<boolean> {
    return this.rows.isMember(organizationId, userId);
  }

  /** Removes a member and their team memberships; the last owner cannot leave. */
  async removeMember(
    organizationId: string,
    userId: string,
    audit?: (manager: EntityManager) => Promise<void>,
  ): Promise<void> {
    await this.transactions.run(async (tx) => {
      const member = await this.rows.findMember(tx.manager, organizationId, userId);
      if (!member) return;
      if (member.isOwner && (await this.rows.countOwners(tx.manager, organizationId)) <= 1) {
        throw new InvalidError(`user is the last member of owner team [uid: ${userId}]`, {
          code: 'LAST_OWNER',
        });
      }
      const teamIds = await this.rows.teamIdsOf(tx.manager, organizationId);
      if (teamIds.length) await this.rows.removeMemberFromTeams(tx.manager, userId, teamIds);
      await this.rows.deleteMember(tx.manager, organizationId, userId);
      await audit?.(tx.manager);
    });
  }

  /** Organizations a user belongs to (Gitea `GET /user/orgs`). */
  async organizationsOf(
    userId: string,
    page: { offset: number; limit: number },
  ): Promise<{ items: User[]; total: number }> {
    const [rows, total] = await this.rows.pageMembershipsOf(userId, page);
    return { items: rows.map((row) => row.organization), total };
  }

  async teamsOfOrganization(
    organizationId: string,
    page: { offset: number; limit: number },
  ): Promise<{ items: Team[]; total: number }> {
    const [items, total] = await this.rows.pageTeams(organizationId, page);
    return { items, total };
  }

  findTeamById(id: string): Promise<Team | null> {
    return /^\d{1,18}$/.test(id) ? this.rows.findTeamWithOrganization(id) : Promise.resolve(null);
  }

  /** Gitea's CreateTeam / EditTeam. Names are unique per organization (422 otherwise). */
  async saveTeam(organizationId: string, input: TeamInput, existing?: Team): Promise<Team> {
    const name = input.name ?? existing?.name;
    if (!name) throw new InvalidError('[Name]: Required', { code: 'TEAM_NAME' });
    if (existing?.lowerName === OWNERS_TEAM.toLowerCase() && name.toLowerCase() !== existing.lowerName) {
      throw new InvalidError('the Owners team cannot be renamed', { code: 'OWNERS_TEAM' });
    }
    const clash = await this.rows.findTeamBy({ organizationId, lowerName: name.toLowerCase() });
    if (clash && clash.id !== existing?.id)
      throw new InvalidError(`team already exists [org_id: ${organizationId}, name: ${name}]`, {
        code: 'TEAM_EXISTS',
      });
    const team = existing ?? this.rows.newTeam({ organizationId });
    team.name = name;
    team.lowerName = name.toLowerCase();
    if (input.description !== undefined) team.description = input.description;
    if (existing?.permission !== 'owner') {
      if (input.permission !== undefined) team.permission = input.permission;
      if (input.units !== undefined) team.units = input.units;
      if (input.includesAllRepositories !== undefined)
        team.includesAllRepositories = input.includesAllRepositories;
    }
    team.permission ??= 'read';
    team.units ??= [];
    if (input.canCreateOrgRepo !== undefined) team.canCreateOrgRepo = input.canCreateOrgRepo;
    return this.rows.saveTeam(team);
  }

  async deleteTeam(team: Team): Promise<void> {
    if (team.permission === 'owner')
      throw new InvalidError('the Owners team cannot be deleted', { code: 'OWNERS_TEAM' });
    await this.rows.deleteTeamById(team.id);
  }

  async teamMembers(teamId: string): Promise<User[]> {
    return this.rows.teamMemberAccounts(teamId);
  }

  /** Adds a user to a team (and to the organization); the Owners team makes them an owner. */
  async joinTeam(team: Team, userId: string, outer?: Transaction): Promise<void> {
    const work = async (tx: Transaction) => {
      await this.rows.upsertTeamMember(tx.manager, team.id, userId);
      const member = await this.rows.findMember(tx.manager, team.organizationId, userId);
      const isOwner = team.permission === 'owner' || member?.isOwner === true;
      if (!member)
        await this.rows.insertMember(tx.manager, {
          organizationId: team.organizationId,
          userId,
          roles: [],
          isOwner,
        });
      else if (isOwner !== member.isOwner)
        await this.rows.setOwner(tx.manager, team.organizationId, userId, isOwner);
    };
    await (outer ? work(outer) : this.transactions.run(work));
  }

  /** Removes a user from a team; leaving the Owners team ends ownership (not for the last owner). */
  async removeTeamMember(team: Team, userId: string, outer?: Transaction): Promise<void> {
    const work = async (tx: Transaction) => {
      if (team.permission === 'owner') {
        if (
          (await this.rows.countOwners(tx.manager, team.organizationId)) <= 1 &&
          (await this.rows.isOwner(tx.manager, team.organizationId, userId))
        ) {
          throw new InvalidError(`user is the last member of owner team [uid: ${userId}]`, {
            code: 'LAST_OWNER',
          });
        }
        await this.rows.setOwner(tx.manager, team.organizationId, userId, false);
      }
      await this.rows.deleteTeamMember(tx.manager, team.id, userId);
    };
    await (outer ? work(outer) : this.transactions.run(work));
  }

  /** The teams the user belongs to, in organization `organizationId` (repository permissions). */
  async teamsOf(userId: string, organizationId: string): Promise<Team[]> {
    const rows = await this.rows.teamMembershipsOf(userId, organizationId);
    return rows.map((row) => row.team);
  }

  /** Numeric ids of an organization's owners (members of its Owners team). */
  async ownerIdsOf(organizationId: string): Promise<string[]> {
    return this.rows.ownerIds(organizationId);
  }

  /** Every team the user belongs to, in any organization (repository visibility). */
  async allTeamsOf(userId: string): Promise<Team[]> {
    return (await this.rows.teamMembershipsOf(userId)).map((row) => row.team);
  }

  /** An organization's team by name (case-insensitive). */
  findTeam(organizationId: string, name: string): Promise<Team | null> {
    return this.rows.findTeamBy({ organizationId, lowerName: name.toLowerCase() });
  }

  /**
   * The groups of a user, lower-cased, as every dialect names them (Nextcloud groups: the OCS
   * `cloud/user` list and the workflow UserGroupMembership check): organization names, `org/team`
   * for team memberships, and `admin` for site administrators. One query; pass a transaction's
   * manager when inside one.
   */
  async groupsOf(userId: string, manager?: EntityManager): Promise<Set<string>> {
    if (!/^\d{1,18}$/.test(userId)) return new Set();
    // Inside a transaction the caller may see its own uncommitted writes: read, do not cache.
    if (manager) return new Set(await this.loadGroups(userId, manager));
    return new Set(await this.groupsCache.get(userId, () => this.accountRows.groupNames(userId)));
  }

  private loadGroups(userId: string, manager: EntityManager): Promise<string[]> {
    return this.accountRows.groupNames(userId, manager);
  }

  /** Whether a group name of `groupsOf` exists: `admin`, an organization, or `org/team`. */
  async groupExists(group: string): Promise<boolean> {
    const lowered = group.toLowerCase();
    if (lowered === 'admin') return true;
    const slash = lowered.indexOf('/');
    if (slash < 0) return this.rows.organizationAccountExists(lowered);
    const organization = await this.rows.findOrganizationAccount({ lowerName: lowered.slice(0, slash) });
    return organization !== null && (await this.rows.teamExists(organization.id, lowered.slice(slash + 1)));
  }

  /** Names of the teams the user belongs to, as `org/team`. */
  async teamNamesOf(userId: string): Promise<string[]> {
    const rows = await this.rows.teamMembershipsWithOrganizations(userId);
    return rows.map((row) => `${row.team.organization.name}/${row.team.name}`);
  }
}
