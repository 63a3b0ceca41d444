import { ActivityRecorder } from '../activity-recorder.service';
import { Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CoderPage } from '../../../api/coder/coder-search-query';
import { SearchParser, searchTerms } from '../../../api/coder/coder-search-query';
import { AuditLog, type AuditEntry } from '../../../platform/audit/audit-log';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ConflictError,
  EXPECTATION_FAILED,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  PreconditionFailedError,
} from '../../../platform/errors/domain-error';
import { SignInMethods } from '../../../api/access/sign-in-methods';
import { AccessPolicy, userObject } from '../../../api/access/access-policy';
import { validatePasswordStrength } from '../password-strength';
import type { Principal } from '../../../api/access/principal';
import { LOGIN_TYPES, type LoginType, User, type UserStatus } from '../entities/user.entity';
import { OrganizationsService } from '../organizations.service';
import { OwnedResourcesRegistry } from '../owned-resources.registry';
import { coderSiteRoles } from '../presenters/coder-user.presenter';
import { AccountsRepository } from '../repositories/accounts.repository';
import { CoderUsersRepository } from '../repositories/coder-users.repository';
import { OrganizationsRepository } from '../repositories/organizations.repository';
import { UsersService } from '../users.service';
import type { CoderAssignableRoleDto } from './coder-management.dto';
import { presentAssignableRole } from './coder-presenters';

export const ASSIGNABLE_SITE_ROLES = ['owner', 'auditor', 'template-admin', 'user-admin'] as const;
const USER_STATUSES: readonly UserStatus[] = ['active', 'dormant', 'suspended'];
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

import type { UserSearch } from '../repositories/account-queries';
export type { UserSearch } from '../repositories/account-queries';

export interface CreateCoderUserInput {
  username: string;
  email: string;
  name: string;
  password: string;
  loginType: string;
  userStatus?: string;
  organizationIds?: string[];
  serviceAccount: boolean;
}

/** Coder's user search language (`searchquery.Users`): `status:`, `role:`, `login_type:`, `service_account:`, times, free text. */
export function parseUserSearch(q: string): UserSearch {
  const terms = searchTerms(q.toLowerCase(), () => ({ key: 'search' }));
  const fail = (fields: { field: string; detail: string }[]) =>
    new InvalidError('Invalid user search query.', { code: 'INVALID_QUERY', fields });
  if ('errors' in terms) throw fail(terms.errors);
  const parser = new SearchParser(terms.values);
  const search: UserSearch = {
    search: parser.string('search') || parser.string('name'),
    statuses: parser.enumList('status', USER_STATUSES),
    roles: parser.list(
      'role',
      (value) => value,
      (value) => value,
    ),
    loginTypes: parser.enumList('login_type', LOGIN_TYPES),
    serviceAccount: parser.nullableBool('service_account'),
    lastSeenAfter: parser.time('last_seen_after'),
    lastSeenBefore: parser.time('last_seen_before'),
    createdAfter: parser.time('created_after'),
    createdBefore: parser.time('created_before'),
  };
  parser.string('github_com_user_id');
  const errors = parser.finish();
  if (errors.length > 0) throw fail(errors);
  return search;
}

/**
 * Coder's user management (`/api/v2/users`): search, create (service accounts too), suspend and
 * activate, delete, profile and site roles. One identity: the same `users` rows the Gitea routes
 * manage; the Coder `owner` role is the site administrator flag. Every write is audited in its
 * transaction.
 */
@Injectable()
export class CoderUsersService {
  constructor(
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly authz: AccessPolicy,
    private readonly owned: OwnedResourcesRegistry,
    private readonly transactions: TransactionRunner,
    private readonly signInMethods: SignInMethods,
    private readonly activity: ActivityRecorder,
    private readonly rows: CoderUsersRepository,
    private readonly accountRows: AccountsRepository,
    private readonly organizationRows: OrganizationsRepository,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  private async record(
    manager: EntityManager,
    principal: Principal | null,
    entry: Omit<AuditEntry, 'actorUserId'>,
  ) {
    await this.audit?.record(manager, { actorUserId: principal?.user.id ?? null, ...entry });
  }

  // ------------------------------------------------------------------------------- search

  async search(
    principal: Principal,
    filters: UserSearch,
    page: CoderPage,
  ): Promise<{ users: User[]; count: number }> {
    await this.activity.flush(); // last_seen_at filters and fields see the batched activity
    // Callers without site-wide `user:read` (plain members) see only themselves, as Coder's filtered query does.
    const selfId = (await this.authz.authorize(principal, 'read', { type: 'user' }))
      ? undefined
      : principal.user.id;
    let afterName: string | undefined;
    if (page.afterId) {
      const after = await this.users.findByUuid(page.afterId);
      if (!after) return { users: [], count: 0 };
      afterName = after.lowerName;
    }
    const [users, count] = await this.rows.search(filters, page, { selfId, afterName });
    return { users, count };
  }

  // ------------------------------------------------------------------------------- create

  async create(principal: Principal, input: CreateCoderUserInput): Promise<User> {
    if (!(await this.authz.authorize(principal, 'create', { type: 'user' })))
      throw new ForbiddenError('You are not authorized to create users.', 'permission');
    let loginType = input.loginType;
    if (input.serviceAccount) {
      if (loginType !== '' && loginType !== 'none')
        throw new BadRequestError("Service accounts must use login type 'none'.", { code: 'SA_LOGIN_TYPE' });
      if (input.password !== '')
        throw new BadRequestError('Password cannot be set for service accounts.', { code: 'SA_PASSWORD' });
      if (input.email !== '')
        throw new BadRequestError('Email cannot be set for service accounts.', { code: 'SA_EMAIL' });
      loginType = 'none';
    } else {
      if (loginType === 'none')
        throw new BadRequestError("Login type 'none' requires a service account.", { code: 'NONE_NEEDS_SA' });
      if (input.email === '')
        throw new InvalidError('Validation failed.', {
          code: 'VALIDATION',
          fields: [{ field: 'email', detail: 'Validation failed for tag "required" with value: ""' }],
        });
      if (loginType === '') loginType = 'password';
      if (loginType !== 'password' && input.password !== '')
        throw new BadRequestError(`Password cannot be set for non-password ("${loginType}") authentication.`);
    }
    const organizationIds = input.organizationIds ?? [];
    if (organizationIds.length === 0)
      throw new BadRequestError(
        'No organization specified to place the user as a member of. It is required to specify at least one organization id to place the user in.',
        {
          detail: "required at least 1 value for the array 'organization_ids'",
          fields: [{ field: 'organization_ids', detail: 'Missing values, this cannot be empty' }],
        },
      );
    if (
      (await this.users.findByName(input.username)) ||
      (input.email && (await this.users.findByEmail(input.email)))
    )
      throw new ConflictError('User already exists.', { code: 'USER_EXISTS' });
    const organizationAccounts: string[] = [];
    for (const id of organizationIds) {
      const organization =
        id === NIL_UUID
          ? (await this.organizations.getDefault())?.account
          : await this.organizations.findByUuid(id);
      if (!organization)
        throw new NotFoundError(`Organization does not exist with the provided id "${id}".`, {
          code: 'ORG_NOT_FOUND',
        });
      organizationAccounts.push(organization.id);
    }
    switch (loginType) {
      case 'none':
      case 'github':
        break;
      case 'password': {
        const verdict = validatePasswordStrength(input.password);
        if (!verdict.valid)
          throw new BadRequestError('Password not strong enough!', {
            code: 'WEAK_PASSWORD',
            fields: [{ field: 'password', detail: verdict.details }],
          });
        break;
      }
      case 'oidc':
        if (!this.signInMethods.oidc)
          throw new BadRequestError('You must configure OIDC before creating OIDC users.', {
            code: 'NO_OIDC',
          });
        break;
      default:
        throw new BadRequestError(`Unsupported login type "${loginType}" for manually creating new users.`);
    }
    const status = input.userStatus ?? '';
    if (status !== '' && !USER_STATUSES.includes(status as UserStatus))
      throw new InvalidError('Validation failed.', {
        code: 'VALIDATION',
        fields: [{ field: 'user_status', detail: `"${status}" is not a valid user status` }],
      });
    return this.transactions.run(async (tx) => {
      const user = await this.users.create(
        {
          username: input.username,
          email: input.email,
          password: loginType === 'password' ? input.password : null,
          fullName: input.name,
          loginType: loginType as LoginType,
          isServiceAccount: input.serviceAccount,
          // Coder: a user is dormant until the first sign-in unless a status is given.
          status: (status || 'dormant') as UserStatus,
          createdBy: principal.user.id,
        },
        tx,
      );
      for (const organizationId of organizationAccounts) {
        await this.organizationRows.addMember(tx.manager, organizationId, user.id);
      }
      await this.record(tx.manager, principal, {
        action: 'create',
        resourceType: 'user',
        resourceId: user.uuid,
        resourceTarget: user.name,
        diff: {
          username: { old: '', new: user.name },
          email: { old: '', new: user.email },
          login_type: { old: '', new: user.loginType },
          ...(input.serviceAccount ? { is_service_account: { old: false, new: true } } : {}),
        },
        statusCode: 201,
      });
      return user;
    });
  }

  // ------------------------------------------------------------------------------- status

  async setStatus(principal: Principal, target: User, status: 'active' | 'suspended'): Promise<User> {
    await this.authz.require(principal, 'update', userObject(target));
    if (status === 'suspended') {
      if (target.id === principal.user.id)
        throw new BadRequestError('You cannot suspend yourself.', { code: 'SUSPEND_SELF' });
      if (coderSiteRoles(target).includes('owner'))
        throw new BadRequestError(
          'You cannot suspend a user with the "owner" role. You must remove the role first.',
          {
            code: 'SUSPEND_OWNER',
          },
        );
    }
    if (target.status === status) return target;
    const from = target.status;
    await this.transactions.run(async (tx) => {
      await this.accountRows.updateUser(target.id, { status }, tx.manager);
      await this.record(tx.manager, principal, {
        action: 'write',
        resourceType: 'user',
        resourceId: target.uuid,
        resourceTarget: target.name,
        diff: { status: { old: from, new: status } },
      });
      tx.emit('user.status_changed', { userId: target.id, from, to: status, actorId: principal.user.id });
    });
    return this.rows.findOrFail(target.id);
  }

  // ------------------------------------------------------------------------------- delete

  async delete(principal: Principal, target: User): Promise<void> {
    await this.authz.require(principal, 'delete', userObject(target));
    if (target.id === principal.user.id)
      throw new ForbiddenError('You cannot delete yourself!', 'permission', { code: 'DELETE_SELF' });
    if (coderSiteRoles(target).includes('owner') && !coderSiteRoles(principal.user).includes('owner'))
      throw new ForbiddenError();
    if (target.hasBootstrapGrant)
      throw new ForbiddenError('The first administrator cannot be deleted by another user.', 'permission', {
        code: 'BOOTSTRAP_ADMIN',
      });
    await this.transactions.run(async (tx) => {
      for (const handler of this.owned.list()) {
        if (handler.kind === 'organizations') continue; // memberships end with the account
        if ((await handler.count(target.id, tx.manager)) > 0) {
          throw new PreconditionFailedError(
            `You cannot delete a user that has ${handler.kind}. Delete their ${handler.kind} and try again!`,
            { code: EXPECTATION_FAILED },
          );
        }
      }
      if (target.isAdmin && (await this.countActiveOwners(tx.manager)) <= 1 && target.status === 'active')
        throw new BadRequestError('You cannot delete the last owner.', { code: 'LAST_OWNER' });
      await this.record(tx.manager, principal, {
        action: 'delete',
        resourceType: 'user',
        resourceId: target.uuid,
        resourceTarget: target.name,
      });
      await this.rows.deleteIndividual(tx.manager, target.id);
      tx.emit('user.deleted', {
        userId: target.id,
        uuid: target.uuid,
        username: target.name,
        purge: false,
        actorId: principal.user.id,
      });
    });
  }

  private countActiveOwners(manager: EntityManager): Promise<number> {
    return this.rows.countActiveOwners(manager);
  }

  // ------------------------------------------------------------------------------- profile

  async updateProfile(
    principal: Principal,
    target: User,
    input: { username: string; name?: string },
  ): Promise<User> {
    await this.authz.require(principal, 'update_personal', userObject(target), {
      notFound: true,
    });
    const clash = await this.users.findAccountByName(input.username);
    if (clash && clash.id !== target.id)
      throw new ConflictError('A user with this username already exists.', {
        code: 'USER_NAME_TAKEN',
        fields: [{ field: 'username', detail: 'This username is already in use.' }],
      });
    const name = input.name ?? '';
    await this.transactions.run(async (tx) => {
      await this.accountRows.updateUser(
        target.id,
        { name: input.username, lowerName: input.username.toLowerCase(), fullName: name },
        tx.manager,
      );
      const diff: AuditEntry['diff'] = {};
      if (input.username !== target.name) diff.username = { old: target.name, new: input.username };
      if (name !== target.fullName) diff.name = { old: target.fullName, new: name };
      await this.record(tx.manager, principal, {
        action: 'write',
        resourceType: 'user',
        resourceId: target.uuid,
        resourceTarget: input.username,
        diff,
      });
      if (input.username !== target.name)
        tx.emit('user.renamed', { userId: target.id, from: target.name, to: input.username });
      tx.emit('user.updated', { userId: target.id, changed: Object.keys(diff) });
    });
    return this.rows.findOrFail(target.id);
  }

  // ------------------------------------------------------------------------------- roles

  async roles(
    principal: Principal,
    target: User,
  ): Promise<{ roles: string[]; organization_roles: Record<string, string[]> }> {
    await this.authz.require(principal, 'read_personal', userObject(target), {
      notFound: true,
    });
    const memberships = await this.organizations.membershipsOf(target.id);
    return {
      roles: coderSiteRoles(target),
      organization_roles: Object.fromEntries(memberships.map((m) => [m.organizationUuid, m.roles])),
    };
  }

  /**
   * `GET /users/roles` (Coder's AssignableSiteRoles): the site roles an administrator can hand out, with
   * their permissions and whether the caller may assign each (only owners assign `owner`). Needs
   * `assign_role:read`.
   */
  async assignableSiteRoles(principal: Principal): Promise<CoderAssignableRoleDto[]> {
    await this.authz.require(principal, 'read', { type: 'assign_role' });
    const mayAssign = await this.authz.authorize(principal, 'assign', { type: 'assign_role' });
    const isOwner = coderSiteRoles(principal.user).includes('owner');
    return ASSIGNABLE_SITE_ROLES.flatMap((role) => {
      const permissions = this.authz.rolePermissions({ site: role });
      return permissions
        ? [presentAssignableRole(role, permissions, mayAssign && (role !== 'owner' || isOwner))]
        : [];
    });
  }

  async setRoles(principal: Principal, target: User, requested: string[]): Promise<User> {
    if (target.id === principal.user.id)
      throw new BadRequestError('You cannot change your own roles.', { code: 'OWN_ROLES' });
    const wanted = [...new Set(requested.filter((role) => role !== 'member'))].sort();
    for (const role of wanted) {
      if (!(ASSIGNABLE_SITE_ROLES as readonly string[]).includes(role))
        throw new BadRequestError(`"${role}" is not a valid site role`, { code: 'UNKNOWN_ROLE' });
    }
    const current = coderSiteRoles(target);
    const added = wanted.filter((role) => !current.includes(role));
    const removed = current.filter((role) => !wanted.includes(role));
    if (added.length && !(await this.authz.authorize(principal, 'assign', { type: 'assign_role' })))
      throw new ForbiddenError();
    if (removed.length && !(await this.authz.authorize(principal, 'unassign', { type: 'assign_role' })))
      throw new ForbiddenError();
    // Only owners grant or take the owner role (Coder's CanAssignRole).
    if (
      (added.includes('owner') || removed.includes('owner')) &&
      !coderSiteRoles(principal.user).includes('owner')
    )
      throw new ForbiddenError();
    const isAdmin = wanted.includes('owner');
    await this.transactions.run(async (tx) => {
      if (
        removed.includes('owner') &&
        target.status === 'active' &&
        (await this.countActiveOwners(tx.manager)) <= 1
      )
        throw new BadRequestError('You cannot remove the owner role from the last owner.', {
          code: 'LAST_OWNER',
        });
      await this.accountRows.updateUser(
        target.id,
        {
          siteRoles: wanted.filter((role) => role !== 'owner'),
          isAdmin,
          ...(added.includes('owner') ? { adminGrantedBy: principal.user.id } : {}),
          ...(removed.includes('owner') ? { adminGrantedBy: null, isSuperAdmin: false } : {}),
        },
        tx.manager,
      );
      await this.record(tx.manager, principal, {
        action: 'write',
        resourceType: 'user',
        resourceId: target.uuid,
        resourceTarget: target.name,
        diff: { rbac_roles: { old: current, new: wanted } },
      });
      tx.emit('user.updated', { userId: target.id, changed: ['roles'] });
    });
    return this.rows.findOrFail(target.id);
  }
}
