import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { AuditLog, type AuditEntry } from '../../platform/audit/audit-log';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, QueryFailedError, Repository } from 'typeorm';
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
import { ApiToken } from '../identity/entities/api-token.entity';
import { User, type Visibility } from '../identity/entities/user.entity';
import { PasswordHasher } from '../identity/password-hasher.service';
import { UsersService } from '../identity/users.service';
import { AdminPolicyService } from './admin-policy.service';
import type { CreateUserOptionDto } from './dto/create-user-option.dto';
import type { EditUserOptionDto } from './dto/edit-user-option.dto';
import type { SearchUsersQueryDto } from './dto/search-users-query.dto';
import { AdminGrantTombstone } from './entities/admin-grant-tombstone.entity';
import {
  compileEmailDomainCheck,
  emailDomainMessage,
  emailProblem,
  usernameProblem,
} from '../identity/gitea-rules';
import { OwnedResourcesRegistry } from '../identity/owned-resources.registry';
import { GiteaPasswordPolicy } from './password-policy.service';

/** Serialises every change that can lower the number of administrators. */
const ADMINS_LOCK = "SELECT pg_advisory_xact_lock(hashtext('devplane.admin-users.admins'))";

const SORTS: Record<string, string> = {
  name: 'u.lower_name',
  created: 'u.created_at',
  updated: 'u.updated_at',
  id: 'u.id',
};

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

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
    @InjectRepository(User) private readonly accounts: Repository<User>,
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
      count: async (userId, manager) => {
        const rows = (await manager.query(
          `SELECT count(*)::int AS n FROM organization_members m
             JOIN organizations o ON o.account_id = m.organization_id
            WHERE m.user_id = $1 AND m.is_owner AND NOT o.is_default`,
          [userId],
        )) as { n: number }[];
        return rows[0]?.n ?? 0;
      },
      purge: async (userId, tx) => {
        // Organizations the user alone owns go with the user; other memberships just end.
        await tx.manager.query(
          `DELETE FROM users WHERE type = 'organization' AND id IN (
             SELECT m.organization_id FROM organization_members m
               JOIN organizations o ON o.account_id = m.organization_id
              WHERE m.user_id = $1 AND m.is_owner AND NOT o.is_default
                AND NOT EXISTS (SELECT 1 FROM organization_members other
                                 WHERE other.organization_id = m.organization_id AND other.is_owner AND other.user_id <> $1))`,
          [userId],
        );
        await tx.manager.query(
          `DELETE FROM organization_members m USING organizations o
            WHERE o.account_id = m.organization_id AND m.user_id = $1 AND NOT o.is_default`,
          [userId],
        );
      },
    });
  }

  /** `{username}` of the admin routes: users and organizations, case-insensitive; 404 otherwise. */
  async requireAccount(username: string): Promise<User> {
    const account = await this.accounts.findOneBy({ lowerName: username.toLowerCase() });
    if (!account)
      throw new NotFoundError(`user does not exist [uid: 0, name: ${username}]`, { code: 'USER_NOT_FOUND' });
    return account;
  }

  /** 422 when the account is an organization (edit, delete, rename and keys act on users only). */
  assertIndividual(account: User): void {
    if (account.type === 'organization') throw organizationTarget(account);
  }

  // ---------------------------------------------------------------------------------- search

  private trigramIndexes: Promise<boolean> | undefined;

  private hasTrigramIndexes(): Promise<boolean> {
    this.trigramIndexes ??= this.accounts
      .query(`SELECT to_regclass('"IDX_users_trgm_name"') IS NOT NULL AS present`)
      .then((rows: { present: boolean }[]) => rows[0]?.present === true)
      .catch(() => false);
    return this.trigramIndexes;
  }

  /** `query` is validated: `sort`, `order` (with a sort) and `visibility` are known values. */
  async search(query: SearchUsersQueryDto): Promise<SearchResult> {
    const { sort, visibility } = query;
    const order = query.order || 'asc';
    const paging = giteaPaging(query);

    const qb = this.accounts.createQueryBuilder('u').where("u.type = 'individual'");
    const q = query.q.trim().toLowerCase();
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
    const sourceId = /^\d{1,18}$/.test(query.source_id) ? query.source_id : '0';
    if (sourceId !== '0' && !/^0+$/.test(sourceId)) qb.andWhere('u.login_source = :sourceId', { sourceId });
    const loginName = query.login_name.trim();
    if (loginName !== '') qb.andWhere('u.login_name = :loginName', { loginName });
    if (visibility !== '') qb.andWhere('u.visibility = :visibility', { visibility });
    const {
      is_active: active,
      is_admin: admin,
      is_restricted: restricted,
      is_prohibit_login: prohibited,
    } = query;
    if (active !== undefined) qb.andWhere(active ? "u.status = 'active'" : "u.status <> 'active'");
    if (admin !== undefined) qb.andWhere('u.is_admin = :admin', { admin });
    if (restricted !== undefined) qb.andWhere('u.restricted = :restricted', { restricted });
    if (prohibited !== undefined) qb.andWhere('u.prohibit_login = :prohibited', { prohibited });
    // No second factor exists yet: nobody has 2FA enabled.
    if (query.is_2fa_enabled === true) qb.andWhere('false');

    const direction = sort !== '' && order === 'desc' ? 'DESC' : 'ASC';
    const column = SORTS[sort] ?? SORTS.name!;
    qb.orderBy(column, direction);
    // Tie-break by id; not when sorting by id (a second key on the same column would replace the direction).
    if (column !== SORTS.id) qb.addOrderBy('u.id', 'ASC');
    qb.offset(paging.offset).limit(paging.limit);
    const users = await qb.getMany();
    // A short, non-empty page (or an empty first page) already tells the total: skip the count.
    const shortPage = users.length < paging.limit && (users.length > 0 || paging.offset === 0);
    // count(*) on the same conditions: TypeORM's getCount() counts DISTINCT ids, which sorts them all.
    const total = shortPage
      ? paging.offset + users.length
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
          await tx.manager.query('UPDATE users SET created_at = $1, updated_at = $1 WHERE id = $2', [
            createdAt,
            created.id,
          ]);
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
      const owner = await this.accounts.findOneBy({ lowerEmail: newEmail.toLowerCase() });
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
          await tx.manager.query(ADMINS_LOCK);
          if ((await this.countAdmins(tx.manager)) <= 1)
            throw new BadRequestError(lastAdmin(target), { code: 'LAST_ADMIN' });
        }
        await tx.manager.getRepository(User).update({ id: target.id }, changes);
        if (passwordHash !== undefined) {
          // Like Gitea's "remember me" tokens: browser sessions end, API tokens stay.
          await tx.manager.getRepository(ApiToken).delete({ userId: target.id, loginType: 'password' });
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
    return this.accounts.findOneByOrFail({ id: target.id });
  }

  // ---------------------------------------------------------------------------------- delete

  async delete(caller: User, target: User, purge: boolean): Promise<void> {
    if (target.type === 'organization') throw organizationTarget(target);
    await this.transactions.run(async (tx) => {
      await tx.manager.query(ADMINS_LOCK);
      // Re-read under the lock: the policy must see committed grants and flags.
      const current = await tx.manager.getRepository(User).findOneBy({ id: target.id });
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
      if (current.isAdmin && current.status === 'active' && (await this.countAdmins(tx.manager)) <= 1) {
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
      await tx.manager
        .getRepository(AdminGrantTombstone)
        .upsert({ userId: user.id, adminGrantedBy: user.adminGrantedBy, username: user.name }, ['userId']);
    }
    // Tokens, keys, memberships and team memberships cascade with the account row.
    await tx.manager.getRepository(User).delete({ id: user.id });
  }

  /** Administrators among individual accounts (Gitea IsLastAdminUser counts every admin). */
  private countAdmins(manager: EntityManager): Promise<number> {
    return manager.getRepository(User).countBy({ type: 'individual', isAdmin: true });
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
        await tx.manager
          .getRepository(User)
          .update({ id: target.id }, { name: newName, lowerName: newName.toLowerCase() });
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
