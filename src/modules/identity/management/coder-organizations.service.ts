import { Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CoderPage } from '../../../api/coder/coder-search-query';
import { SearchParser, searchTerms } from '../../../api/coder/coder-search-query';
import { AuditLog, type AuditEntry } from '../../../platform/audit/audit-log';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../../platform/errors/domain-error';
import { AccessPolicy, type AuthzObject } from '../../../api/access/access-policy';
import type { Principal } from '../../../api/access/principal';
import { OrganizationMember } from '../entities/organization-member.entity';
import { Organization, type WorkspaceSharingMode } from '../entities/organization.entity';
import { Team } from '../entities/team.entity';
import { LOGIN_TYPES, User, type UserStatus } from '../entities/user.entity';
import { OrganizationsService, OWNERS_TEAM } from '../organizations.service';
import { OrganizationsRepository } from '../repositories/organizations.repository';
import { UsersService } from '../users.service';
import type { CoderAssignableRoleDto } from './coder-management.dto';
import {
  type GroupView,
  type MemberView,
  type OrganizationView,
  presentAssignableRole,
} from './coder-presenters';

/** Coder's organization roles that can be assigned (the member and service-account roles are implicit). */
export const ASSIGNABLE_ORG_ROLES = [
  'organization-admin',
  'organization-user-admin',
  'organization-template-admin',
  'organization-auditor',
  'organization-workspace-creation-ban',
] as const;
export const SHARING_MODES: readonly WorkspaceSharingMode[] = ['none', 'everyone', 'service_accounts'];
/** Coder's implicit group of every member: its id is the organization's id. */
export const EVERYONE_GROUP = 'Everyone';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

import type { MemberSearch } from '../repositories/account-queries';
export type { MemberSearch } from '../repositories/account-queries';

/** Members filters: free text (username, name, email), `status:`, `login_type:`, `role:`, `service_account:`, `user_id:`. */
export function parseMemberSearch(q: string): MemberSearch {
  const terms = searchTerms(q.trim().toLowerCase(), () => ({ key: 'search' }));
  const fail = (fields: { field: string; detail: string }[]) =>
    new InvalidError('Invalid member search query.', { code: 'INVALID_QUERY', fields });
  if ('errors' in terms) throw fail(terms.errors);
  const parser = new SearchParser(terms.values);
  const result: MemberSearch = {
    search: parser.string('search'),
    statuses: parser.enumList('status', ['active', 'dormant', 'suspended'] as UserStatus[]),
    loginTypes: parser.enumList('login_type', LOGIN_TYPES),
    roles: parser.list(
      'role',
      (value) => value,
      (value) => value,
    ),
    serviceAccount: parser.nullableBool('service_account'),
    userId: parser.uuid('user_id'),
  };
  parser.string('include_system');
  parser.string('github_user_id');
  const errors = parser.finish();
  if (errors.length > 0) throw fail(errors);
  return result;
}

/**
 * Coder's organizations, members, groups and workspace sharing settings over devplane's one
 * identity: organizations are the accounts Gitea sees, groups are Gitea teams, the `Everyone`
 * group is every member (id = the organization's id).
 */
@Injectable()
export class CoderOrganizationsService {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly users: UsersService,
    private readonly authz: AccessPolicy,
    private readonly transactions: TransactionRunner,
    private readonly rows: OrganizationsRepository,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  private async record(manager: EntityManager, principal: Principal, entry: Omit<AuditEntry, 'actorUserId'>) {
    await this.audit?.record(manager, { actorUserId: principal.user.id, ...entry });
  }

  private static orgObject(view: OrganizationView, type = 'organization'): AuthzObject {
    return { type, id: view.account.uuid, orgId: view.account.uuid };
  }

  private async view(account: User): Promise<OrganizationView> {
    const details = await this.rows.findDetailsOrFail(account.id);
    return { account, details };
  }

  // ------------------------------------------------------------------------------- organizations

  async list(principal: Principal): Promise<OrganizationView[]> {
    const rows = await this.rows.listOrganizations();
    const views = rows.map((details) => ({ account: details.account, details }));
    return this.authz.filter(principal, 'read', views, (view) => CoderOrganizationsService.orgObject(view));
  }

  /** `{organization}`: a uuid or a name; organizations the caller may not read are 404. */
  async resolve(principal: Principal, ref: string): Promise<OrganizationView> {
    const account = UUID.test(ref)
      ? await this.organizations.findByUuid(ref)
      : await this.organizations.findByName(ref);
    if (!account) throw new NotFoundError('Resource not found or you do not have access to this resource');
    const view = await this.view(account);
    await this.authz.require(principal, 'read', CoderOrganizationsService.orgObject(view), {
      notFound: true,
    });
    return view;
  }

  async create(
    principal: Principal,
    input: { name: string; displayName?: string; description?: string; icon?: string },
  ): Promise<OrganizationView> {
    await this.authz.require(principal, 'create', { type: 'organization' });
    if (await this.users.nameIsTaken(input.name))
      throw new ConflictError(`Organization already exists with the name "${input.name}".`, {
        code: 'ORG_NAME_TAKEN',
        fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    // The organization, its Owners team, the creator's membership and the audit entry: one transaction.
    const account = await this.organizations.create(
      {
        name: input.name,
        displayName: input.displayName || input.name,
        description: input.description ?? '',
        icon: input.icon ?? '',
        ownerId: principal.user.id,
      },
      (manager, created) =>
        this.record(manager, principal, {
          action: 'create',
          resourceType: 'organization',
          resourceId: created.uuid,
          resourceTarget: created.name,
          organizationId: created.uuid,
          statusCode: 201,
        }),
    );
    return this.view(await this.rows.findAccountOrFail(account.id));
  }

  async update(
    principal: Principal,
    view: OrganizationView,
    input: { name?: string; displayName?: string; description?: string; icon?: string },
  ): Promise<OrganizationView> {
    await this.authz.require(principal, 'update', CoderOrganizationsService.orgObject(view));
    const { account, details } = view;
    if (
      input.name &&
      input.name.toLowerCase() !== account.lowerName &&
      (await this.users.nameIsTaken(input.name))
    )
      throw new ConflictError(`Organization already exists with the name "${input.name}".`, {
        code: 'ORG_NAME_TAKEN',
        fields: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    await this.transactions.run(async (tx) => {
      const diff: AuditEntry['diff'] = {};
      const accountChanges: Partial<User> = {};
      const detailChanges: Partial<Organization> = {};
      if (input.name && input.name !== account.name) {
        accountChanges.name = input.name;
        accountChanges.lowerName = input.name.toLowerCase();
        diff.name = { old: account.name, new: input.name };
      }
      if (input.displayName !== undefined && input.displayName !== details.displayName) {
        detailChanges.displayName = input.displayName;
        accountChanges.fullName = input.displayName;
        diff.display_name = { old: details.displayName, new: input.displayName };
      }
      if (input.description !== undefined && input.description !== account.description) {
        accountChanges.description = input.description;
        diff.description = { old: account.description, new: input.description };
      }
      if (input.icon !== undefined && input.icon !== details.icon) {
        detailChanges.icon = input.icon;
        diff.icon = { old: details.icon, new: input.icon };
      }
      if (Object.keys(accountChanges).length)
        await this.rows.updateAccount(tx.manager, account.id, accountChanges);
      if (Object.keys(detailChanges).length)
        await this.rows.updateOrganization(tx.manager, account.id, detailChanges);
      await this.record(tx.manager, principal, {
        action: 'write',
        resourceType: 'organization',
        resourceId: account.uuid,
        resourceTarget: input.name ?? account.name,
        organizationId: account.uuid,
        diff,
      });
      if (diff.name) tx.emit('user.renamed', { userId: account.id, from: account.name, to: input.name! });
    });
    return this.view(await this.rows.findAccountOrFail(account.id));
  }

  async delete(principal: Principal, view: OrganizationView): Promise<void> {
    await this.authz.require(principal, 'delete', CoderOrganizationsService.orgObject(view));
    if (view.details.isDefault)
      throw new BadRequestError('Default organization cannot be deleted.', { code: 'DEFAULT_ORG' });
    await this.organizations.delete(view.account, async (manager) =>
      this.record(manager, principal, {
        action: 'delete',
        resourceType: 'organization',
        resourceId: view.account.uuid,
        resourceTarget: view.account.name,
        organizationId: view.account.uuid,
      }),
    );
  }

  // ------------------------------------------------------------------------------- members

  private async requireMember(view: OrganizationView, user: User): Promise<OrganizationMember> {
    const member = await this.rows.findMembership(view.account.id, user.id);
    if (!member) throw new NotFoundError('Resource not found or you do not have access to this resource');
    return member;
  }

  memberView(view: OrganizationView, member: OrganizationMember, user: User): MemberView {
    return {
      user,
      organizationUuid: view.account.uuid,
      roles: member.roles,
      createdAt: member.createdAt,
      updatedAt: member.updatedAt,
    };
  }

  async addMember(principal: Principal, view: OrganizationView, user: User): Promise<MemberView> {
    await this.authz.require(principal, 'create', {
      type: 'organization_member',
      orgId: view.account.uuid,
      ownerId: user.uuid,
    });
    if (await this.rows.isMember(view.account.id, user.id))
      throw new BadRequestError('User is already an organization member', {
        code: 'ALREADY_MEMBER',
        detail: `${user.name} is already a member of ${view.account.name}`,
      });
    await this.transactions.run(async (tx) => {
      await this.rows.insertMember(tx.manager, {
        organizationId: view.account.id,
        userId: user.id,
        roles: [],
      });
      await this.record(tx.manager, principal, {
        action: 'create',
        resourceType: 'organization_member',
        resourceId: user.uuid,
        resourceTarget: user.name,
        organizationId: view.account.uuid,
      });
    });
    return this.memberView(view, await this.requireMember(view, user), user);
  }

  async removeMember(principal: Principal, view: OrganizationView, user: User): Promise<void> {
    await this.authz.require(principal, 'delete', {
      type: 'organization_member',
      orgId: view.account.uuid,
      ownerId: user.uuid,
    });
    if (user.id === principal.user.id)
      throw new BadRequestError('cannot remove self from an organization', { code: 'REMOVE_SELF' });
    await this.requireMember(view, user);
    await this.organizations.removeMember(view.account.id, user.id, (manager) =>
      this.record(manager, principal, {
        action: 'delete',
        resourceType: 'organization_member',
        resourceId: user.uuid,
        resourceTarget: user.name,
        organizationId: view.account.uuid,
      }),
    );
  }

  /**
   * `GET /organizations/{organization}/members/roles` (Coder's assignableOrgRoles): the organization roles
   * with their permissions in this organization and whether the caller may assign them. Needs
   * `assign_org_role:read` in the organization.
   */
  async assignableRoles(principal: Principal, view: OrganizationView): Promise<CoderAssignableRoleDto[]> {
    const object = { type: 'assign_org_role', orgId: view.account.uuid };
    await this.authz.require(principal, 'read', object);
    const mayAssign = await this.authz.authorize(principal, 'assign', object);
    return ASSIGNABLE_ORG_ROLES.flatMap((role) => {
      const permissions = this.authz.rolePermissions({
        organizationRole: role,
        sharingMode: view.details.workspaceSharingMode,
      });
      return permissions ? [presentAssignableRole(role, permissions, mayAssign, view.account.uuid)] : [];
    });
  }

  async setMemberRoles(
    principal: Principal,
    view: OrganizationView,
    user: User,
    requested: string[],
  ): Promise<MemberView> {
    if (user.id === principal.user.id)
      throw new BadRequestError('You cannot change your own organization roles.', { code: 'OWN_ROLES' });
    const member = await this.requireMember(view, user);
    const wanted = [...new Set(requested.filter((role) => role !== 'organization-member'))].sort();
    for (const role of wanted) {
      if (!(ASSIGNABLE_ORG_ROLES as readonly string[]).includes(role))
        throw new BadRequestError(`"${role}" is not a valid organization role`, { code: 'UNKNOWN_ROLE' });
    }
    const added = wanted.filter((role) => !member.roles.includes(role));
    const removed = member.roles.filter((role) => !wanted.includes(role));
    const object = { type: 'assign_org_role', orgId: view.account.uuid };
    if (added.length && !(await this.authz.authorize(principal, 'assign', object)))
      throw new ForbiddenError();
    if (removed.length && !(await this.authz.authorize(principal, 'unassign', object)))
      throw new ForbiddenError();
    await this.transactions.run(async (tx) => {
      await this.rows.setMemberRoles(tx.manager, view.account.id, user.id, wanted);
      await this.record(tx.manager, principal, {
        action: 'write',
        resourceType: 'organization_member',
        resourceId: user.uuid,
        resourceTarget: user.name,
        organizationId: view.account.uuid,
        diff: { roles: { old: member.roles, new: wanted } },
      });
    });
    return this.memberView(view, await this.requireMember(view, user), user);
  }

  /** Members with their users, filtered and paged; callers without organization-wide member read see only themselves. */
  async members(
    principal: Principal,
    view: OrganizationView,
    filters: MemberSearch,
    page: CoderPage,
  ): Promise<{ members: MemberView[]; count: number }> {
    const everyone = await this.authz.authorize(principal, 'read', {
      type: 'organization_member',
      orgId: view.account.uuid,
    });
    if (!everyone && !(await this.rows.isMember(view.account.id, principal.user.id)))
      throw new NotFoundError('Resource not found or you do not have access to this resource');
    const [rows, count] = await this.rows.searchMembers(
      view.account.id,
      filters,
      page,
      everyone ? undefined : principal.user.id,
    );
    return { members: rows.map((row) => this.memberView(view, row, row.user)), count };
  }

  // ------------------------------------------------------------------------------- groups

  private everyoneGroup(view: OrganizationView, members: User[]): GroupView {
    return {
      id: view.account.uuid,
      name: EVERYONE_GROUP,
      displayName: '',
      avatarUrl: '',
      quotaAllowance: 0,
      organization: view,
      members,
    };
  }

  private async teamGroup(view: OrganizationView, team: Team): Promise<GroupView> {
    return {
      id: team.uuid,
      name: team.name,
      displayName: team.displayName,
      avatarUrl: team.avatarUrl,
      quotaAllowance: team.quotaAllowance,
      organization: view,
      members: await this.organizations.teamMembers(team.id),
    };
  }

  private async allMembers(view: OrganizationView): Promise<User[]> {
    return this.rows.memberAccounts(view.account.id);
  }

  async groups(principal: Principal, view: OrganizationView): Promise<GroupView[]> {
    if (!(await this.authz.authorize(principal, 'read', { type: 'group', orgId: view.account.uuid })))
      return [];
    const teams = await this.rows.teamsByName(view.account.id);
    const groups = [this.everyoneGroup(view, await this.allMembers(view))];
    for (const team of teams) groups.push(await this.teamGroup(view, team));
    return groups;
  }

  /** `{group}`: a group uuid (the Everyone group has its organization's id). */
  async resolveGroup(
    principal: Principal,
    id: string,
  ): Promise<{ view: OrganizationView; team: Team | null }> {
    const notFound = () => new NotFoundError('Resource not found or you do not have access to this resource');
    if (!UUID.test(id)) throw notFound();
    const team = await this.rows.findTeamBy({ uuid: id.toLowerCase() });
    const account = team
      ? await this.rows.findAccount(team.organizationId)
      : await this.organizations.findByUuid(id);
    if (!account) throw notFound();
    const view = await this.view(account);
    await this.authz.require(
      principal,
      'read',
      { type: 'group', id, orgId: view.account.uuid },
      { notFound: true },
    );
    return { view, team };
  }

  async group(view: OrganizationView, team: Team | null): Promise<GroupView> {
    return team ? this.teamGroup(view, team) : this.everyoneGroup(view, await this.allMembers(view));
  }

  async createGroup(
    principal: Principal,
    view: OrganizationView,
    input: { name: string; displayName?: string; avatarUrl?: string; quotaAllowance?: number },
  ): Promise<GroupView> {
    await this.authz.require(principal, 'create', { type: 'group', orgId: view.account.uuid });
    if (input.name.toLowerCase() === EVERYONE_GROUP.toLowerCase())
      throw new InvalidError('Invalid group name.', {
        code: 'RESERVED_GROUP',
        fields: [{ field: 'name', detail: `"${EVERYONE_GROUP}" is a reserved group name` }],
      });
    if (await this.organizations.findTeam(view.account.id, input.name))
      throw new ConflictError(`A group named "${input.name}" already exists.`, { code: 'GROUP_EXISTS' });
    const team = await this.transactions.run(async (tx) => {
      const saved = await this.rows.insertTeam(tx.manager, {
        organizationId: view.account.id,
        name: input.name,
        lowerName: input.name.toLowerCase(),
        displayName: input.displayName ?? '',
        avatarUrl: input.avatarUrl ?? '',
        quotaAllowance: input.quotaAllowance ?? 0,
        permission: 'read',
        units: [],
      });
      await this.record(tx.manager, principal, {
        action: 'create',
        resourceType: 'group',
        resourceId: saved.uuid,
        resourceTarget: saved.name,
        organizationId: view.account.uuid,
        statusCode: 201,
      });
      return saved;
    });
    return this.teamGroup(view, team);
  }

  async patchGroup(
    principal: Principal,
    view: OrganizationView,
    team: Team | null,
    input: {
      name?: string;
      displayName?: string;
      avatarUrl?: string;
      quotaAllowance?: number;
      addUsers: string[];
      removeUsers: string[];
    },
  ): Promise<GroupView> {
    await this.authz.require(principal, 'update', {
      type: 'group',
      id: team?.uuid ?? view.account.uuid,
      orgId: view.account.uuid,
    });
    if (!team) {
      if (input.addUsers.length || input.removeUsers.length)
        throw new BadRequestError(`Cannot add or remove users from the "${EVERYONE_GROUP}" group.`, {
          code: 'EVERYONE_MEMBERS',
        });
      if (input.name && input.name !== EVERYONE_GROUP)
        throw new BadRequestError(`Cannot rename the "${EVERYONE_GROUP}" group.`, { code: 'EVERYONE_NAME' });
      return this.group(view, null);
    }
    if (input.name && input.name.toLowerCase() === EVERYONE_GROUP.toLowerCase())
      throw new InvalidError('Invalid group name.', {
        code: 'RESERVED_GROUP',
        fields: [{ field: 'name', detail: `"${EVERYONE_GROUP}" is a reserved group name` }],
      });
    if (input.name && input.name.toLowerCase() !== team.lowerName) {
      if (team.lowerName === OWNERS_TEAM.toLowerCase())
        throw new BadRequestError('the Owners team cannot be renamed', { code: 'OWNERS_TEAM' });
      if (await this.organizations.findTeam(view.account.id, input.name))
        throw new ConflictError(`A group named "${input.name}" already exists.`, { code: 'GROUP_EXISTS' });
    }
    const resolveUsers = async (ids: string[]): Promise<User[]> => {
      const found: User[] = [];
      for (const id of ids) {
        const user = UUID.test(id) ? await this.users.findByUuid(id) : null;
        if (!user) throw new BadRequestError(`Invalid user ID: ${id}`, { code: 'BAD_USER_ID' });
        if (!(await this.rows.isMember(view.account.id, user.id)))
          throw new BadRequestError(`User must be a member of organization "${view.account.name}"`, {
            code: 'NOT_ORG_MEMBER',
          });
        found.push(user);
      }
      return found;
    };
    const adding = await resolveUsers(input.addUsers);
    const removing = await resolveUsers(input.removeUsers);
    const changes: Partial<Team> = {};
    const diff: AuditEntry['diff'] = {};
    if (input.name && input.name !== team.name) {
      changes.name = input.name;
      changes.lowerName = input.name.toLowerCase();
      diff.name = { old: team.name, new: input.name };
    }
    if (input.displayName !== undefined && input.displayName !== team.displayName) {
      changes.displayName = input.displayName;
      diff.display_name = { old: team.displayName, new: input.displayName };
    }
    if (input.avatarUrl !== undefined && input.avatarUrl !== team.avatarUrl) {
      changes.avatarUrl = input.avatarUrl;
      diff.avatar_url = { old: team.avatarUrl, new: input.avatarUrl };
    }
    if (input.quotaAllowance !== undefined && input.quotaAllowance !== team.quotaAllowance) {
      changes.quotaAllowance = input.quotaAllowance;
      diff.quota_allowance = { old: team.quotaAllowance, new: input.quotaAllowance };
    }
    if (adding.length) diff.members_added = { old: [], new: adding.map((user) => user.name) };
    if (removing.length) diff.members_removed = { old: removing.map((user) => user.name), new: [] };
    await this.transactions.run(async (tx) => {
      if (Object.keys(changes).length) await this.rows.updateTeam(tx.manager, team.id, changes);
      for (const user of adding) await this.organizations.joinTeam(team, user.id, tx);
      for (const user of removing) await this.organizations.removeTeamMember(team, user.id, tx);
      await this.record(tx.manager, principal, {
        action: 'write',
        resourceType: 'group',
        resourceId: team.uuid,
        resourceTarget: changes.name ?? team.name,
        organizationId: view.account.uuid,
        diff,
      });
    });
    return this.teamGroup(view, await this.rows.findTeamOrFail(team.id));
  }

  async deleteGroup(principal: Principal, view: OrganizationView, team: Team | null): Promise<void> {
    await this.authz.require(principal, 'delete', {
      type: 'group',
      id: team?.uuid ?? view.account.uuid,
      orgId: view.account.uuid,
    });
    if (!team)
      throw new BadRequestError(`Cannot delete the "${EVERYONE_GROUP}" group.`, { code: 'EVERYONE_DELETE' });
    if (team.permission === 'owner')
      throw new BadRequestError('the Owners team cannot be deleted', { code: 'OWNERS_TEAM' });
    await this.transactions.run(async (tx) => {
      await this.rows.deleteTeam(tx.manager, team.id);
      await this.record(tx.manager, principal, {
        action: 'delete',
        resourceType: 'group',
        resourceId: team.uuid,
        resourceTarget: team.name,
        organizationId: view.account.uuid,
      });
    });
  }

  async groupMembers(
    principal: Principal,
    view: OrganizationView,
    team: Team | null,
    filters: MemberSearch,
    page: CoderPage,
  ): Promise<{ users: User[]; count: number }> {
    if (
      !(await this.authz.authorize(principal, 'read', { type: 'group_member', orgId: view.account.uuid }))
    ) {
      throw new ForbiddenError();
    }
    const [users, count] = await this.rows.searchGroupMembers(
      view.account.id,
      team ? team.id : null,
      filters,
      page,
    );
    return { users, count };
  }

  // ------------------------------------------------------------------------------- workspace sharing

  async sharing(principal: Principal, view: OrganizationView): Promise<WorkspaceSharingMode> {
    await this.authz.require(principal, 'read', CoderOrganizationsService.orgObject(view));
    return view.details.workspaceSharingMode;
  }

  async setSharing(
    principal: Principal,
    view: OrganizationView,
    input: { mode?: string; sharingDisabled?: boolean },
  ): Promise<WorkspaceSharingMode> {
    await this.authz.require(principal, 'update', CoderOrganizationsService.orgObject(view));
    let mode: WorkspaceSharingMode = view.details.workspaceSharingMode;
    if (input.mode !== undefined && input.mode !== '') {
      if (!SHARING_MODES.includes(input.mode as WorkspaceSharingMode))
        throw new BadRequestError('Invalid shareable workspace owners value.', {
          code: 'BAD_SHARING_MODE',
          detail: `must be one of ${SHARING_MODES.join(', ')}`,
        });
      mode = input.mode as WorkspaceSharingMode;
    } else if (input.sharingDisabled !== undefined) {
      mode = input.sharingDisabled ? 'none' : 'everyone';
    }
    const from = view.details.workspaceSharingMode;
    if (mode === from) return mode;
    await this.transactions.run(async (tx) => {
      await this.rows.setWorkspaceSharingMode(tx.manager, view.account.id, mode);
      await this.record(tx.manager, principal, {
        action: 'write',
        resourceType: 'workspace_sharing_settings',
        resourceId: view.account.uuid,
        resourceTarget: view.account.name,
        organizationId: view.account.uuid,
        diff: { shareable_workspace_owners: { old: from, new: mode } },
      });
      // Workspace ACLs live with the workspaces module: it drops the shares the new mode no longer allows.
      tx.emit('organization.workspace_sharing_changed', { organizationId: view.account.id, from, to: mode });
    });
    return mode;
  }
}
