import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { BadRequestError } from '../../platform/errors/domain-error';
import { ApiTokensService } from '../identity/api-tokens.service';
import { PasswordHasher } from '../identity/password-hasher.service';
import { UsersService } from '../identity/users.service';
import { PasswordStrengthService } from './password-strength.service';
import { AuthRepository } from './auth.repository';

/** Coder's `OneTimePasscodeValidityPeriod`. */
export const PASSCODE_VALIDITY_SECONDS = 20 * 60;
export const INCORRECT_PASSCODE = 'Incorrect email or one-time passcode.';
export const SAME_PASSWORD = 'New password cannot match old password.';

function hashPasscode(code: string): Buffer {
  return createHash('sha256').update(code).digest();
}

/**
 * Password reset by one-time passcode (reference B.2, B.3): a UUIDv4 code, stored as SHA-256
 * (122 random bits need no slow hash), valid 20 minutes, single use, one per user (a new request
 * replaces the old code). Delivery is NotificationsModule's job (event after commit).
 */
@Injectable()
export class OneTimePasscodesService implements OnModuleDestroy {
  private readonly logger = new Logger(OneTimePasscodesService.name);
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly users: UsersService,
    private readonly tokens: ApiTokensService,
    private readonly hasher: PasswordHasher,
    private readonly strength: PasswordStrengthService,
    private readonly transactions: TransactionRunner,
    private readonly authRows: AuthRepository,
  ) {}

  /**
   * Starts `request` without waiting for it: the answer must not depend on whether the account
   * exists, not even in time (a known account costs a write and the mail's enqueue, an unknown one
   * nothing). Shutdown waits for requests still under way.
   */
  requestDetached(email: string): void {
    const work = this.request(email).finally(() => this.pending.delete(work));
    this.pending.add(work);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  /** Never fails towards the caller (no account enumeration); problems are logged. */
  async request(email: string): Promise<void> {
    try {
      const code = randomUUID();
      const hashed = hashPasscode(code);
      const user = await this.users.findByEmail(email);
      if (!user || user.loginType !== 'password') {
        this.logger.warn('one-time passcode requested for an unknown email or a non-password account');
        return;
      }
      const expiresAt = new Date(Date.now() + PASSCODE_VALIDITY_SECONDS * 1000);
      await this.transactions.run(async (tx) => {
        await this.authRows.savePasscode({ userId: user.id, hashedPasscode: hashed, expiresAt }, tx.manager);
        tx.emit('auth.one_time_passcode_requested', {
          userId: user.id,
          email: user.email,
          username: user.name,
          passcode: code,
          expiresAt: expiresAt.toISOString(),
        });
      });
    } catch (error) {
      this.logger.error(`one-time passcode request failed: ${(error as Error).message}`);
    }
  }

  /** Checks the code and the new password, stores it, and deletes every key of the user. */
  async changePassword(email: string, code: string, password: string): Promise<void> {
    this.strength.assertStrong(password);
    const user = await this.users.findByEmail(email);
    const stored = user ? await this.authRows.findPasscode(user.id) : null;
    const candidate = hashPasscode(code);
    const matches =
      !!stored &&
      stored.hashedPasscode.length === candidate.length &&
      timingSafeEqual(stored.hashedPasscode, candidate);
    if (!user || !stored || !matches || Date.now() > stored.expiresAt.getTime()) {
      throw new BadRequestError(INCORRECT_PASSCODE, { code: 'INCORRECT_PASSCODE' });
    }
    if (await this.hasher.verify(user.passwordHash, password)) {
      throw new BadRequestError(SAME_PASSWORD, { code: 'SAME_PASSWORD' });
    }
    const passwordHash = await this.hasher.hash(password);
    await this.transactions.run(async (tx) => {
      // Single use: the delete must hit the row we checked (a concurrent use loses).
      const consumed = await this.authRows.consumePasscode(user.id, candidate, tx.manager);
      if (!consumed) throw new BadRequestError(INCORRECT_PASSCODE, { code: 'INCORRECT_PASSCODE' });
      await this.users.storePasswordHash(user.id, passwordHash, tx.manager);
      await this.tokens.deleteAllForUser(user.id, tx.manager);
      tx.emit('auth.password_changed', { userId: user.id, via: 'one_time_passcode' });
    });
  }
}
