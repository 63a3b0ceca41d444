import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ConflictError, NotFoundError } from '../../platform/errors/domain-error';
import { TransactionRunner, type Transaction } from '../../platform/database/transaction-runner.service';
import { AccountsRepository } from './repositories/accounts.repository';
import { UsersRepository } from './repositories/users.repository';
import { ActivityRecorder } from './activity-recorder.service';
import { type LoginType, User, type Visibility } from './entities/user.entity';
import { PasswordHasher } from './password-hasher.service';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CreateUserInput {
  username: string;
  email: string;
  password?: string | null;
  fullName?: string;
  loginType?: LoginType;
  loginName?: string;
  loginSource?: string;
  isAdmin?: boolean;
  isSuperAdmin?: boolean;
  adminGrantedBy?: string | null;
  hasBootstrapGrant?: boolean;
  siteRoles?: string[];
  mustChangePassword?: boolean;
  restricted?: boolean;
  visibility?: Visibility;
  isServiceAccount?: boolean;
  status?: User['status'];
  createdAt?: Date;
  createdBy?: string | null;
  sendNotify?: boolean;
}

/**
 * The shared core of user accounts. Dialect-specific creation rules (Gitea's username and
 * password policies, Coder's service accounts) live in their modules and call `create` here.
 */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
    private readonly transactions: TransactionRunner,
    private readonly activity: ActivityRecorder,
    private readonly accountRows: AccountsRepository,
  ) {}

  findById(id: string): Promise<User | null> {
    if (!/^\d{1,18}$/.test(id)) return Promise.resolve(null);
    return this.users.findOneBy({ id, type: 'individual' });
  }

  findByUuid(uuid: string): Promise<User | null> {
    if (!UUID_PATTERN.test(uuid)) return Promise.resolve(null);
    return this.users.findOneBy({ uuid: uuid.toLowerCase(), type: 'individual' });
  }

  findByName(name: string): Promise<User | null> {
    return this.users.findOneBy({ lowerName: name.toLowerCase(), type: 'individual' });
  }

  /** An account of either kind (owners of repositories and packages share the namespace). */
  findAccountByName(name: string): Promise<User | null> {
    return this.users.findOneBy({ lowerName: name.toLowerCase() });
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findOneBy({ lowerEmail: email.toLowerCase(), type: 'individual' });
  }

  /** Basic auth accepts a username or an email. */
  findByLogin(login: string): Promise<User | null> {
    return login.includes('@') ? this.findByEmail(login) : this.findByName(login);
  }

  /** Coder's `{user}` path parameter: a UUID or a username (`me` is resolved by the caller). */
  async findByUuidOrName(ref: string): Promise<User | null> {
    return UUID_PATTERN.test(ref) ? this.findByUuid(ref) : this.findByName(ref);
  }

  async requireByName(name: string): Promise<User> {
    const user = await this.findByName(name);
    if (!user)
      throw new NotFoundError(`user does not exist [uid: 0, name: ${name}]`, { code: 'USER_NOT_FOUND' });
    return user;
  }

  countIndividuals(): Promise<number> {
    return this.users.countIndividuals();
  }

  /** Every individual account in id order (the admin CLI's list-users). */
  listIndividuals(): Promise<User[]> {
    return this.users.listIndividuals();
  }

  /** The administrator holding the bootstrap grant (the site's root; the admin CLI acts as it). */
  findBootstrapAdmin(): Promise<User | null> {
    return this.users.findBootstrapAdmin();
  }

  /** Sets a new password chosen by an operator and whether it must be changed at the next sign-in. */
  async resetPassword(user: User, password: string, mustChangePassword: boolean): Promise<void> {
    const passwordHash = await this.hasher.hash(password);
    await this.users.update(user.id, { passwordHash, mustChangePassword });
  }

  /** Whether a name is taken by a user or an organization (one namespace). */
  async nameIsTaken(name: string, manager?: EntityManager): Promise<boolean> {
    return this.users.exists({ lowerName: name.toLowerCase() }, manager);
  }

  async emailIsTaken(email: string, manager?: EntityManager): Promise<boolean> {
    return this.users.exists({ lowerEmail: email.toLowerCase() }, manager);
  }

  /** Creates an individual user and adds it to the default organization, in one transaction. */
  async create(input: CreateUserInput, outer?: Transaction): Promise<User> {
    const passwordHash = input.password ? await this.hasher.hash(input.password) : null;
    const work = async (tx: Transaction): Promise<User> => {
      if (await this.nameIsTaken(input.username, tx.manager)) {
        throw new ConflictError(`user already exists [name: ${input.username}]`, { code: 'USER_NAME_TAKEN' });
      }
      if (input.email !== '' && (await this.emailIsTaken(input.email, tx.manager))) {
        throw new ConflictError(`e-mail already in use [email: ${input.email}]`, {
          code: 'USER_EMAIL_TAKEN',
        });
      }
      const saved = await this.users.insert(
        {
          type: 'individual',
          name: input.username,
          lowerName: input.username.toLowerCase(),
          email: input.email,
          lowerEmail: input.email.toLowerCase(),
          fullName: input.fullName ?? '',
          passwordHash,
          loginType: input.loginType ?? (input.isServiceAccount ? 'none' : 'password'),
          loginName: input.loginName ?? '',
          loginSource: input.loginSource ?? '0',
          isAdmin: input.isAdmin ?? false,
          isSuperAdmin: input.isSuperAdmin ?? false,
          adminGrantedBy: input.adminGrantedBy ?? null,
          hasBootstrapGrant: input.hasBootstrapGrant ?? false,
          siteRoles: input.siteRoles ?? [],
          mustChangePassword: input.mustChangePassword ?? false,
          restricted: input.restricted ?? false,
          visibility: input.visibility ?? 'public',
          isServiceAccount: input.isServiceAccount ?? false,
          status: input.status ?? 'active',
          ...(input.createdAt ? { createdAt: input.createdAt } : {}),
        },
        tx.manager,
      );
      const defaultOrg = await this.users.findDefaultOrganization(tx.manager);
      if (defaultOrg) await this.users.addMember(defaultOrg.accountId, saved.id, tx.manager);
      tx.emit('user.created', {
        userId: saved.id,
        uuid: saved.uuid,
        username: saved.name,
        email: saved.email,
        createdBy: input.createdBy ?? null,
        sendNotify: input.sendNotify ?? false,
      });
      return saved;
    };
    return outer ? work(outer) : this.transactions.run(work);
  }

  async setPassword(user: User, password: string, manager?: EntityManager): Promise<void> {
    const passwordHash = await this.hasher.hash(password);
    await this.users.update(user.id, { passwordHash }, manager);
    user.passwordHash = passwordHash;
  }

  /** Stores an already hashed password (updated_at moves). */
  async storePasswordHash(userId: string, passwordHash: string, manager?: EntityManager): Promise<void> {
    await this.accountRows.setPasswordHash(userId, passwordHash, manager);
  }

  /** Records a sign-in (`last_login_at`, at `at` or the database's now()); updated_at does not move. */
  async recordLogin(userId: string, manager?: EntityManager, at?: Date): Promise<void> {
    await this.accountRows.recordLogin(userId, manager, at);
  }

  verifyPassword(user: User, password: string): Promise<boolean> {
    return this.hasher.verify(user.passwordHash, password);
  }

  async reactivate(user: User): Promise<void> {
    await this.users.update(user.id, { status: 'active' });
    user.status = 'active';
  }

  /**
   * Records activity at most once a minute per user, so reads stay cheap. Returns whether it wrote.
   * An activity write (ACTIVITY_WRITE, batched by ActivityRecorder): it bumps no table version, so the identity caches of every
   * other user stay warm; the caller patches the cached row of the token used (ApiTokensService.rememberLastSeen).
   */
  async touchLastSeen(user: User): Promise<boolean> {
    const now = Date.now();
    if (user.lastSeenAt && now - user.lastSeenAt.getTime() < 60_000) return false;
    user.lastSeenAt = new Date(now);
    // Batched raw update (ActivityRecorder): activity must not move updated_at.
    this.activity.userSeen(user.id, user.lastSeenAt);
    return true;
  }
}
