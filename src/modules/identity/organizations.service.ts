import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { VersionedCache } from '../../platform/cache/versioned-cache';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { ConflictError } from '../../platform/errors/domain-error';
import { OrganizationMember } from './entities/organization-member.entity';
import { Organization } from './entities/organization.entity';
import { TeamMember } from './entities/team-member.entity';
import { Team } from './entities/team.entity';
import { User, type Visibility } from './entities/user.entity';

export interface Membership {
  organizationId: string;
  organizationUuid: string;
  organizationName: string;
  roles: string[];
  isOwner: boolean;
}

export interface CreateOrganizationInput {
  name: string;
  displayName?: string;
  description?: string;
  visibility?: Visibility;
  ownerId?: string;
}

@Injectable()
export class OrganizationsService {
  constructor(
    @InjectRepository(User) private readonly accounts: Repository<User>,
    @InjectRepository(Organization) private readonly organizations: Repository<Organization>,
    @InjectRepository(OrganizationMember) private readonly members: Repository<OrganizationMember>,
    @InjectRepository(Team) private readonly teams: Repository<Team>,
    @InjectRepository(TeamMember) private readonly teamMembers: Repository<TeamMember>,
    private readonly transactions: TransactionRunner,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.membershipCache = new VersionedCache({ tables: ['organization_members', 'users'], ttlMs: config.identityCacheSeconds * 1000 });
  }

  /** A user's memberships (every Coder User response lists them), until a membership or account changes. */
  private readonly membershipCache: VersionedCache<string, Membership[]>;

  findByName(name: string): Promise<User | null> {
    return this.accounts.findOneBy({ lowerName: name.toLowerCase(), type: 'organization' });
  }

  getDefault(): Promise<Organization | null> {
    return this.organizations.findOne({ where: { isDefault: true }, relations: { account: true } });
  }

  /** Creates the organization account and its details row; the owner becomes an owner member. */
  create(input: CreateOrganizationInput): Promise<User> {
    return this.transactions.run(async (tx) => {
      const accounts = tx.manager.getRepository(User);
      if (await accounts.existsBy({ lowerName: input.name.toLowerCase() })) {
        throw new ConflictError(`organization already exists [name: ${input.name}]`, { code: 'ORG_NAME_TAKEN' });
      }
      const account = await accounts.save(
        accounts.create({
          type: 'organization',
          name: input.name,
          lowerName: input.name.toLowerCase(),
          fullName: input.displayName ?? '',
          description: input.description ?? '',
          visibility: input.visibility ?? 'public',
          loginType: 'none',
        }),
      );
      await tx.manager.getRepository(Organization).insert({ accountId: account.id, displayName: input.displayName ?? input.name });
      if (input.ownerId) {
        await tx.manager
          .getRepository(OrganizationMember)
          .insert({ organizationId: account.id, userId: input.ownerId, roles: ['organization-admin'], isOwner: true });
      }
      return account;
    });
  }

  async addMember(organizationId: string, userId: string, roles: string[] = [], isOwner = false): Promise<void> {
    await this.members.upsert({ organizationId, userId, roles, isOwner }, ['organizationId', 'userId']);
  }

  /** The user's organizations with their roles, in one query. */
  async membershipsOf(userId: string): Promise<Membership[]> {
    const memberships = await this.membershipCache.get(userId, async () => {
      const rows = await this.members.find({ where: { userId }, relations: { organization: true } });
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

  async createTeam(organizationId: string, name: string, permission: Team['permission'] = 'read'): Promise<Team> {
    return this.teams.save(this.teams.create({ organizationId, name, lowerName: name.toLowerCase(), permission }));
  }

  async addTeamMember(teamId: string, userId: string): Promise<void> {
    await this.teamMembers.upsert({ teamId, userId }, ['teamId', 'userId']);
  }

  /** The teams the user belongs to, in organization `organizationId` (repository permissions). */
  async teamsOf(userId: string, organizationId: string): Promise<Team[]> {
    const rows = await this.teamMembers.find({ where: { userId, team: { organizationId } }, relations: { team: true } });
    return rows.map((row) => row.team);
  }

  /** Numeric ids of an organization's owners (members of its Owners team). */
  async ownerIdsOf(organizationId: string): Promise<string[]> {
    return (await this.members.find({ where: { organizationId, isOwner: true }, select: { userId: true } })).map((row) => row.userId);
  }

  /** An organization's team by name (case-insensitive). */
  findTeam(organizationId: string, name: string): Promise<Team | null> {
    return this.teams.findOneBy({ organizationId, lowerName: name.toLowerCase() });
  }

  /** Names of the teams the user belongs to, as `org/team`. */
  async teamNamesOf(userId: string): Promise<string[]> {
    const rows = await this.teamMembers.find({ where: { userId }, relations: { team: { organization: true } } });
    return rows.map((row) => `${row.team.organization.name}/${row.team.name}`);
  }
}
