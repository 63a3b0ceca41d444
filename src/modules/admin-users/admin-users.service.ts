import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { AuditLog, type AuditEntry } from '../../platform/audit/audit-log';
import { type EntityManager, QueryFailedError } from 'typeorm';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { TransactionRunner, type Transaction } from '../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../platform/errors/domain-error';
import { giteaPaging, type GiteaPaging } from '../../api/gitea/gitea-page';
import { User, type Visibility } from '../identity/entities/user.entity';
import { PasswordHasher } from '../identity/password-hasher.service';
import { UsersService } from '../identity/users.service';
import { AccountAdministration } from '../identity/account-administration.service';
import { AdminPolicyService } from './admin-policy.service';
import { AdminUsersRepository } from './admin-users.repository';
import type { CreateUserOptionDto } from './dto/create-user-option.dto';
import type { EditUserOptionDto } from './dto/edit-user-option.dto';
import type { SearchUsersQueryDto } from './dto/search-users-query.dto';
import {
  compileEmailDomainCheck,
  emailDomainMessage,
  emailProblem,
  usernameProblem,
} from '../identity/gitea-rules';
import { OwnedResourcesRegistry } from '../identity/owned-resources.registry';
import { GiteaPasswordPolicy } from './password-policy.service';

function sourceMissing(id: number): InvalidError {
  return new InvalidError(`login source does not exist [id: ${id}]`, { code: 'LOGIN_SOURCE_NOT_FOUND' });
}

function organizationTarget(target: User): InvalidError {
  return new InvalidError(`${target.name} is an organization not a user`, { code: 'TARGET_IS_ORGANIZATION' });
}

function lastAdmin(target: User): string {
  return `can not delete the last admin user [uid: ${target.id}]`;
}

function uniqueViolation(error: unknown): string | null {
  if (!(error instanceof QueryFailedError)) return null;
  const driverError = error.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' ? (driverError.constraint ?? '') : null;
}

/** A validated create body; `createdAt` is `created_at` as an instant. */
export type CreateUserInput = Omit<CreateUserOptionDto, 'created_at'> & { createdAt?: Date };

export interface SearchResult {
  users: User[];
  total: number;
  paging: GiteaPaging;
}

/**
 * Gitea's administrator user management (`/api/v1/admin/users`): search, create, edit, delete,
 * rename, with the administrator management policy applied to edit and delete.
 */
@Injectable()
export class AdminUsersService implements OnModuleInit {
  private readonly emailDomainAllowed: (email: string) => boolean;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accountAdmin: AccountAdministration,
    private readonly rows: AdminUsersRepository,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly passwords: GiteaPasswordPolicy,
    private readonly policy: AdminPolicyService,
    private readonly owned: OwnedResourcesRegistry,
    private readonly transactions: TransactionRunner,
    @Optional() private readonly audit?: AuditLog,
  ) {
    this.emailDomainAllowed = compileEmailDomainCheck(
      config.emailDomainAllowlist,
      config.emailDomainBlocklist,
    );
  }

  /** Organization ownership is identity data: registered here, next to what other modules add. */
  onModuleInit(): void {
    this.owned.register({
      kind: 'organizations',
      message: (userId) => `user still has membership of organizations [uid: ${userId}]`,
      count: (userId, manager) => this.accountAdmin.countOwnedOrganizations(userId, manager),
      // Organizations the user alone owns go with the user; other memberships just end.
      purge: (userId, tx) => this.accountAdmin.purgeOwnedOrganizations(userId, tx.manager),
    });
  }

  /** `{username}` of the admin routes: users and organizations, case-insensitive; 404 otherwise. */
  async requireAccount(username: string): Promise<User> {
    const account = await this.accountAdmin.findByName(username);
    if (!account)
      throw new NotFoundError(`user does not exist [uid: 0, name: ${username}]`, { code: 'USER_NOT_FOUND' });
    return account;
  }

  /** 422 when the account is an organization (edit, delete, rename and keys act on users only). */
  assertIndividual(account: User): void {
    if (account.type === 'organization') throw organizationTarget(account);
  }

  // ---------------------------------------------------------------------------------- search

  /** `query` is validated: `sort`, `order` (with a sort) and `visibility` are known values. */
  async search(query: SearchUsersQueryDto): Promise<SearchResult> {
    const { sort, visibility } = query;
    const order = query.order || 'asc';
    const paging = giteaPaging(query);
    const { users, total } = await this.accountAdmin.searchIndividuals({
      q: query.q.trim().toLowerCase(),
      sourceId: /^\d{1,18}$/.test(query.source_id) ? query.source_id : '0',
      loginName: query.login_name.trim(),
      visibility: visibility as Visibility | '',
      active: query.is_active,
      admin: query.is_admin,
      restricted: query.is_restricted,
      prohibitLogin: query.is_prohibit_login,
      twoFactorEnabled: query.is_2fa_enabled,
      sort,
      direction: sort !== '' && order === 'desc' ? 'DESC' : 'ASC',
      offset: paging.offset,
      limit: paging.limit,
    });
    return { users, total, paging };
  }

  // ---------------------------------------------------------------------------------- create

  /** Creates a user; `warning` is the X-Service-Warning text when the email domain is not allowed. */
  async create(caller: User, input: CreateUserInput): Promise<{ user: User; warning: string | null }> {
    const sourceId = input.source_id ?? 0;
    if (sourceId !== 0) throw sourceMissing(sourceId);
    const password = input.password ?? '';
    const problem = await this.passwords.check(password);
    if (problem) {
      const code =
        problem.kind === 'too_short'
          ? 'PasswordIsRequired'
          : problem.kind === 'not_complex'
            ? 'PasswordComplexity'
            : 'PasswordPwned';
      throw new BadRequestError(code, { code });
    }
    const nameProblem = usernameProblem(input.username);
    if (nameProblem) throw new InvalidError(nameProblem, { code: 'USERNAME_INVALID' });
    const mailProblem = emailProblem(input.email);
    if (mailProblem) throw new InvalidError(mailProblem, { code: 'EMAIL_INVALID' });
    const nameTaken = () =>
      new InvalidError(`user already exists [name: ${input.username}]`, { code: 'USER_NAME_TAKEN' });
    const emailTaken = () =>
      new InvalidError(`e-mail already in use [email: ${input.email}]`, { code: 'USER_EMAIL_TAKEN' });
    if (await this.users.nameIsTaken(input.username)) throw nameTaken();
    if (await this.users.emailIsTaken(input.email)) throw emailTaken();

    const createdAt = input.createdAt;
    let user: User;
    try {
      user = await this.transactions.run(async (tx) => {
        const created = await this.users.create(
          {
            username: input.username,
            email: input.email,
            password,
            fullName: input.full_name ?? '',
            loginType: 'password',
            loginName: input.login_name ?? '',
            loginSource: '0',
            mustChangePassword: input.must_change_password ?? true,
            restricted: input.restricted ?? false,
            visibility: (input.visibility || 'public') as Visibility,
            status: 'active',
            createdAt,
            createdBy: caller.id,
            sendNotify: input.send_notify ?? false,
          },
          tx,
        );
        if (createdAt) {
          await this.accountAdmin.backdate(created.id, createdAt, tx.manager);
          created.createdAt = createdAt;
          created.updatedAt = createdAt;
        }
        await this.record(tx.manager, caller, 'create', created, {
          username: { old: '', new: created.name },
          email: { old: '', new: created.email },
        });
        return created;
      });
    } catch (error) {
      if (error instanceof ConflictError)
        throw error.code === 'USER_EMAIL_TAKEN' ? emailTaken() : nameTaken();
      const constraint = uniqueViolation(error);
      if (constraint !== null) throw constraint.includes('email') ? emailTaken() : nameTaken();
      throw error;
    }
    const warning = this.emailDomainAllowed(input.email) ? null : emailDomainMessage(input.email);
    return { user, warning };
  }

  // ------------------------------------------------------------------------------------ edit

  async edit(caller: User, target: User, body: EditUserOptionDto): Promise<User> {
    if (target.type === 'organization') throw organizationTarget(target);
    // Spec: one's own Admin, Active, Restricted and ProhibitLogin are ignored.
    const input: EditUserOptionDto =
      target.id === caller.id
        ? { ...body, admin: undefined, active: undefined, restricted: undefined, prohibit_login: undefined }
        : body;
    const policy = this.policy.for();
    const refusal = await policy.editRefusal(caller, target);
    if (refusal) throw new ForbiddenError(refusal, 'permission', { code: 'ADMIN_POLICY' });
    const sourceId = input.source_id ?? 0;
    if (sourceId !== 0) throw sourceMissing(sourceId);

    const password = input.password ?? '';
    const passwordApplies = password !== '' && ['password', 'github', 'oidc'].includes(target.loginType);
    if (passwordApplies) {
      const problem = await this.passwords.check(password);
      if (problem) {
        const message =
          problem.kind === 'too_short'
            ? `password must be at least ${this.passwords.minLength} characters`
            : problem.kind === 'not_complex'
              ? 'password not complex enough'
              : problem.kind === 'pwned'
                ? 'password has been pwned'
                : `using Have-I-Been-Pwned service failed: ${problem.error}`;
        throw new BadRequestError(message, { code: 'PASSWORD_POLICY' });
      }
    }
    const newEmail =
      input.email !== undefined && input.email.toLowerCase() !== target.lowerEmail ? input.email : undefined;
    if (newEmail !== undefined) {
      const mailProblem = emailProblem(newEmail);
      if (mailProblem) throw new BadRequestError(mailProblem, { code: 'EMAIL_INVALID' });
      if (!this.emailDomainAllowed(newEmail))
        throw new BadRequestError(emailDomainMessage(newEmail), { code: 'EMAIL_DOMAIN' });
      const owner = await this.accountAdmin.findByEmail(newEmail);
      if (owner && owner.id !== target.id) {
        throw new BadRequestError(`e-mail already in use [email: ${newEmail}]`, { code: 'USER_EMAIL_TAKEN' });
      }
    }
    const adminDecision =
      input.admin === undefined ? 'unchanged' : await policy.decideAdminFlag(caller, target, input.admin);
    const passwordHash = passwordApplies ? await this.hasher.hash(password) : undefined;

    const changes: Partial<User> = { loginName: input.login_name };
    const set = <K extends keyof User>(key: K, value: User[K] | undefined) => {
      if (value !== undefined) (changes as Record<string, unknown>)[key] = value;
    };
    set('passwordHash', passwordHash);
    set('mustChangePassword', input.must_change_password);
    if (newEmail !== undefined) {
      changes.email = newEmail;
      changes.lowerEmail = newEmail.toLowerCase();
    }
    set('fullName', input.full_name);
    set('website', input.website);
    set('location', input.location);
    set('description', input.description);
    set('allowGitHook', input.allow_git_hook);
    set('allowImportLocal', input.allow_import_local);
    if (input.max_repo_creation !== undefined)
      changes.maxRepoCreation = Math.min(2_147_483_647, Math.max(-1, input.max_repo_creation));
    set('prohibitLogin', input.prohibit_login);
    set('allowCreateOrganization', input.allow_create_organization);
    set('restricted', input.restricted);
    if (input.visibility) changes.visibility = input.visibility as Visibility;
    const previousStatus = target.status;
    if (input.active !== undefined) changes.status = input.active ? 'active' : 'suspended';
    const promote = adminDecision === 'apply' && input.admin === true && !target.isAdmin;
    const demote = adminDecision === 'apply' && input.admin === false && target.isAdmin;
    if (promote) {
      changes.isAdmin = true;
      changes.adminGrantedBy = caller.id;
    }
    if (demote) {
      changes.isAdmin = false;
      changes.isSuperAdmin = false; // the grant record stays: the inheritance walk needs it
      // A Gitea site administrator is a Coder `owner`: the role goes with the flag.
      if (target.siteRoles.includes('owner'))
        changes.siteRoles = target.siteRoles.filter((role) => role !== 'owner');
    }

    try {
      await this.transactions.run(async (tx) => {
        if (demote) {
          await this.rows.lockAdmins(tx.manager);
          if ((await this.accountAdmin.countAdmins(tx.manager)) <= 1)
            throw new BadRequestError(lastAdmin(target), { code: 'LAST_ADMIN' });
        }
        await this.accountAdmin.update(target.id, changes, tx.manager);
        if (passwordHash !== undefined) {
          // Like Gitea's "remember me" tokens: browser sessions end, API tokens stay.
          await this.accountAdmin.endPasswordSessions(target.id, tx.manager);
        }
        const changed = Object.keys(changes).filter((key) => key !== 'passwordHash' && key !== 'lowerEmail');
        if (passwordHash !== undefined) changed.push('password');
        const diff: NonNullable<AuditEntry['diff']> = {};
        for (const key of changed) {
          if (key === 'password') diff.hashed_password = { old: '', new: '', secret: true };
          else
            diff[key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = {
              old: (target as unknown as Record<string, unknown>)[key],
              new: (changes as Record<string, unknown>)[key],
            };
        }
        await this.record(tx.manager, caller, 'write', target, diff);
        tx.emit('user.updated', { userId: target.id, changed });
        if (changes.status !== undefined && changes.status !== previousStatus) {
          tx.emit('user.status_changed', {
            userId: target.id,
            from: previousStatus,
            to: changes.status,
            actorId: caller.id,
          });
        }
      });
    } catch (error) {
      if (uniqueViolation(error) !== null && newEmail !== undefined) {
        throw new BadRequestError(`e-mail already in use [email: ${newEmail}]`, { code: 'USER_EMAIL_TAKEN' });
      }
      throw error;
    }
    return this.accountAdmin.reload(target.id);
  }

  // ---------------------------------------------------------------------------------- delete

  async delete(caller: User, target: User, purge: boolean): Promise<void> {
    if (target.type === 'organization') throw organizationTarget(target);
    await this.transactions.run(async (tx) => {
      await this.rows.lockAdmins(tx.manager);
      // Re-read under the lock: the policy must see committed grants and flags.
      const current = await this.accountAdmin.findById(target.id, tx.manager);
      if (!current)
        throw new NotFoundError(`user does not exist [uid: 0, name: ${target.name}]`, {
          code: 'USER_NOT_FOUND',
        });
      const refusal = await this.policy.for(tx.manager).deleteRefusal(caller, current);
      if (refusal) throw new ForbiddenError(refusal, 'permission', { code: 'ADMIN_POLICY' });
      // Spec order: what the user still owns (purge removes it), then the last administrator.
      // A refusal after a purge rolls the purge back with the rest of the transaction.
      for (const handler of this.owned.list()) {
        if (purge) {
          await handler.purge(current.id, tx);
        } else if ((await handler.count(current.id, tx.manager)) > 0) {
          throw new InvalidError(handler.message(current.id), { code: `OWNS_${handler.kind.toUpperCase()}` });
        }
      }
      if (
        current.isAdmin &&
        current.status === 'active' &&
        (await this.accountAdmin.countAdmins(tx.manager)) <= 1
      ) {
        throw new InvalidError(lastAdmin(current), { code: 'LAST_ADMIN' });
      }
      await this.record(tx.manager, caller, 'delete', current, {});
      await this.removeAccount(current, tx);
      tx.emit('user.deleted', {
        userId: current.id,
        uuid: current.uuid,
        username: current.name,
        purge,
        actorId: caller.id,
      });
    });
  }

  /** Every administrative write of a user is audited in its transaction (the audit log). */
  private async record(
    manager: EntityManager,
    caller: User | null,
    action: 'create' | 'write' | 'delete',
    target: User,
    diff: NonNullable<AuditEntry['diff']>,
  ): Promise<void> {
    await this.audit?.record(manager, {
      ...(caller ? { actorUserId: caller.id } : {}),
      action,
      resourceType: 'user',
      resourceId: target.uuid,
      resourceTarget: target.name,
      diff,
    });
  }

  private async removeAccount(user: User, tx: Transaction): Promise<void> {
    if (user.isAdmin || user.adminGrantedBy !== null) {
      await this.rows.saveTombstone(
        { userId: user.id, adminGrantedBy: user.adminGrantedBy, username: user.name },
        tx.manager,
      );
    }
    // Tokens, keys, memberships and team memberships cascade with the account row.
    await this.accountAdmin.deleteAccount(user.id, tx.manager);
  }

  // ---------------------------------------------------------------------------------- rename

  async rename(target: User, newName: string): Promise<void> {
    if (target.type === 'organization') throw organizationTarget(target);
    if (newName === target.name) return;
    const problem = usernameProblem(newName);
    if (problem) throw new InvalidError(problem, { code: 'USERNAME_INVALID' });
    const taken = () =>
      new InvalidError(`user already exists [name: ${newName}]`, { code: 'USER_NAME_TAKEN' });
    const caseOnly = newName.toLowerCase() === target.lowerName;
    if (!caseOnly && (await this.users.nameIsTaken(newName))) throw taken();
    try {
      await this.transactions.run(async (tx) => {
        await this.accountAdmin.update(
          target.id,
          { name: newName, lowerName: newName.toLowerCase() },
          tx.manager,
        );
        await this.record(tx.manager, null, 'write', target, {
          username: { old: target.name, new: newName },
        });
        tx.emit('user.renamed', { userId: target.id, from: target.name, to: newName });
      });
    } catch (error) {
      if (uniqueViolation(error) !== null) throw taken();
      throw error;
    }
  }
}
