import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { AuditLog } from '../../platform/audit/audit-log';
import { randomInt } from 'node:crypto';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { EventBus } from '../../platform/events/event-bus.service';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  UnauthenticatedError,
} from '../../platform/errors/domain-error';
import { PasswordGuessLimiter } from '../../platform/http/password-guess-limiter';
import { ApiTokensService } from '../identity/api-tokens.service';
import { ApiToken } from '../identity/entities/api-token.entity';
import { type LoginType, User } from '../identity/entities/user.entity';
import { PasswordHasher } from '../identity/password-hasher.service';
import { UsersService } from '../identity/users.service';
import { AuthorizationService } from './authorization.service';
import { AuthRepository } from './auth.repository';
import { PasswordStrengthService } from './password-strength.service';
import type { Principal } from '../../api/access/principal';

export const INCORRECT_LOGIN = 'Incorrect email or password.';
export const PASSWORD_AUTH_DISABLED = 'Password authentication is disabled.';
export const CONVERT_STATE_SECONDS = 5 * 60;
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export interface LoginResult {
  key: string;
  token: ApiToken;
  user: User;
}

export interface ConversionResult {
  state: string;
  expiresAt: Date;
  toType: LoginType;
  user: User;
}

/** Password login, logout and login conversion (reference B.1, B.5, B.6). */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);
  private dummyHash: Promise<string> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UsersService,
    private readonly tokens: ApiTokensService,
    private readonly hasher: PasswordHasher,
    private readonly transactions: TransactionRunner,
    private readonly authz: AuthorizationService,
    private readonly strength: PasswordStrengthService,
    private readonly events: EventBus,
    private readonly authRows: AuthRepository,
    private readonly guesses: PasswordGuessLimiter,
    private readonly metrics: MetricsService,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  /** A hash to verify against when there is no user, so both paths cost one argon2 verify. */
  private dummy(): Promise<string> {
    this.dummyHash ??= this.hasher.hash(`dummy-${randomInt(1e9)}`);
    return this.dummyHash;
  }

  get passwordLoginEnabled(): boolean {
    return this.config.passwordLoginEnabled;
  }

  assertPasswordLoginEnabled(): void {
    if (!this.config.passwordLoginEnabled) throw new ForbiddenError(PASSWORD_AUTH_DISABLED, 'permission');
  }

  /**
   * Coder's `loginRequest` checks, in order: password (401, same text for every miss), password
   * login disabled (403), login type (403), dormant → active, not active (401).
   */
  async checkPasswordLogin(user: User | null, password: string): Promise<User> {
    const matches = user?.passwordHash
      ? await this.hasher.verify(user.passwordHash, password)
      : (await this.hasher.verify(await this.dummy(), password), false);
    if (!user || !matches) throw new UnauthenticatedError('bad_password', INCORRECT_LOGIN);
    this.assertPasswordLoginEnabled();
    if (user.loginType !== 'password') {
      throw new ForbiddenError(
        `Incorrect login type, attempting to use "password" but user is of login type "${user.loginType}"`,
        'permission',
      );
    }
    if (user.status === 'dormant') {
      await this.users.reactivate(user);
      this.events.emit('user.status_changed', {
        userId: user.id,
        from: 'dormant',
        to: 'active',
        actorId: null,
      });
    }
    const status = user.status === 'active' && user.prohibitLogin ? 'suspended' : user.status;
    if (status !== 'active') {
      throw new UnauthenticatedError(
        'inactive',
        `Your account is ${status}. Contact an admin to reactivate your account.`,
      );
    }
    return user;
  }

  async login(email: string, password: string, ipAddress: string): Promise<LoginResult> {
    // Failed passwords count per address and account with Basic's (PasswordGuessLimiter), before argon2 runs.
    const found = await this.users.findByEmail(email);
    const account = PasswordGuessLimiter.accountKey(found?.id, email);
    if (this.guesses.retryAfter(ipAddress, account) > 0) {
      throw new RateLimitedError(this.guesses.message, { code: 'PASSWORD_GUESSES' });
    }
    const user = await this.checkPasswordLogin(found, password).catch(async (error: unknown) => {
      this.metrics.login('password', 'failure');
      if (error instanceof UnauthenticatedError && error.reason === 'bad_password') {
        await this.guesses.recordFailure(ipAddress, account);
      }
      throw error;
    });
    // The session and the last-login time are written together.
    const now = new Date();
    const created = await this.transactions.run(async (tx) => {
      const session = await this.tokens.create(
        {
          userId: user.id,
          scopes: ['coder:all'],
          lifetimeSeconds: this.config.sessionDurationSeconds,
          loginType: 'password',
          ipAddress,
          passwordConfirmedAt: now,
        },
        tx.manager,
      );
      // Raw update: a login must not move updated_at.
      await this.users.recordLogin(user.id, tx.manager, now);
      await this.audit?.record(tx.manager, {
        actorUserId: user.id,
        action: 'login',
        resourceType: 'api_key',
        resourceId: session.token.id,
        resourceTarget: user.name,
        statusCode: 201,
        ip: ipAddress,
      });
      return session;
    });
    user.lastLoginAt = now;
    this.metrics.login('password', 'success');
    return { key: created.key, token: created.token, user };
  }

  /** Deletes the key of this request and the user's application-connect keys. */
  async logout(principal: Principal): Promise<void> {
    await this.transactions.run(async (tx) => {
      if (principal.token) await this.tokens.delete(principal.token.id, tx.manager);
      await this.audit?.record(tx.manager, {
        actorUserId: principal.user.id,
        action: 'logout',
        resourceType: 'api_key',
        resourceId: principal.token?.id ?? '',
        resourceTarget: principal.user.name,
      });
      await this.tokens.revokeApplicationConnect(principal.user.id, tx.manager);
      tx.emit('auth.token_revoked', {
        userId: principal.user.id,
        tokenId: principal.token?.id ?? null,
        reason: 'logout',
      });
    });
  }

  /** `POST /users/{user}/convert-login` after the body checks: the login checks, then the stored state. */
  async startConversion(target: User, toType: LoginType, password: string): Promise<ConversionResult> {
    const user = await this.checkPasswordLogin(target, password);
    if (user.loginType !== 'password') {
      throw new BadRequestError('User account must have password based authentication.');
    }
    let state = 'convert-';
    for (let i = 0; i < 32; i++) state += ALNUM[randomInt(ALNUM.length)];
    const expiresAt = new Date(Date.now() + CONVERT_STATE_SECONDS * 1000);
    await this.transactions.run(async (tx) => {
      await this.authRows.replaceConversion(
        { state, userId: user.id, fromLoginType: 'password', toLoginType: toType, expiresAt },
        tx.manager,
      );
    });
    this.logger.debug(`login conversion of user ${user.id} to ${toType} started`);
    return { state, expiresAt, toType, user };
  }

  /**
   * Coder's `PUT /users/{user}/password`: `update_personal` on the user (else 404), password
   * accounts only, the caller's own password needs the old one, the entropy rule, not the same
   * password; only owners change an owner's password. Every key of the user is deleted.
   */
  async changePassword(
    principal: Principal,
    target: User,
    oldPassword: string,
    password: string,
  ): Promise<void> {
    if (
      !(await this.authz.authorize(principal, 'update_personal', AuthorizationService.userObject(target)))
    ) {
      throw new NotFoundError('Resource not found or you do not have access to this resource');
    }
    const self = target.id === principal.user.id;
    if (!self && target.isAdmin && !principal.user.isAdmin) throw new ForbiddenError();
    if (target.loginType !== 'password') {
      throw new BadRequestError('Users without password login type cannot change their password.');
    }
    if (self && oldPassword === '') {
      throw new BadRequestError('Old password is required.', {
        fields: [{ field: 'old_password', detail: 'Old password is required.' }],
      });
    }
    this.strength.assertStrong(password);
    if ((self || oldPassword !== '') && !(await this.hasher.verify(target.passwordHash, oldPassword))) {
      throw new BadRequestError('Old password is incorrect.', {
        fields: [{ field: 'old_password', detail: 'Old password is incorrect.' }],
      });
    }
    if (await this.hasher.verify(target.passwordHash, password)) {
      throw new BadRequestError('New password cannot match old password.');
    }
    const passwordHash = await this.hasher.hash(password);
    await this.transactions.run(async (tx) => {
      await this.users.storePasswordHash(target.id, passwordHash, tx.manager);
      await this.tokens.deleteAllForUser(target.id, tx.manager);
      tx.emit('auth.password_changed', { userId: target.id, via: self ? 'self' : 'admin' });
    });
  }
}
