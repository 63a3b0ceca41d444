import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';

const WINDOW_MS = 60_000;
const THROTTLER = 'password-guess';
const MAX_REMEMBERED = 50_000;

/**
 * Failed password verifications, wherever they happen (Basic on any route, the login route), count
 * against the login group's limit (RATE_LIMIT_LOGIN_PER_MINUTE) per client address and per account,
 * in the throttler's storage (memory, or Redis shared by the instances). Once a key has used up its
 * failures, password attempts on it are refused with 429 before the password hash runs, until the
 * window ends. Successful verifications cost nothing.
 *
 * The storage only counts (it has no read-without-increment), so each instance remembers the
 * windows it saw exhausted; with several instances a guesser gets at most one extra attempt per
 * instance before that instance learns the shared count.
 */
@Injectable()
export class PasswordGuessLimiter {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage,
  ) {}

  get limit(): number {
    return this.config.rateLimit.loginPerMinute;
  }

  /** Refusal text of the dialects' 429 (the throttler's own wording). */
  get message(): string {
    return `You've been rate limited for sending more than ${this.limit} requests in 1m0s.`;
  }

  /** The account key: the user's id when the account exists, else the name tried (lower case). */
  static accountKey(userId: string | undefined, login: string): string {
    return userId !== undefined ? `user:${userId}` : `login:${login.toLowerCase()}`;
  }

  private keys(address: string, account: string): string[] {
    return [`address:${address}`, `account:${account}`];
  }

  /**
   * Seconds until a password may be tried again for this address or account (see accountKey), or 0
   * when it may now.
   */
  retryAfter(address: string, account: string): number {
    if (!this.config.rateLimit.enabled) return 0;
    const now = Date.now();
    let wait = 0;
    for (const key of this.keys(address, account)) {
      const until = this.blockedUntil.get(key);
      if (until === undefined) continue;
      if (until <= now) this.blockedUntil.delete(key);
      else wait = Math.max(wait, Math.ceil((until - now) / 1000));
    }
    return wait;
  }

  /** Counts one failed verification against the address and the account. */
  async recordFailure(address: string, account: string): Promise<void> {
    if (!this.config.rateLimit.enabled) return;
    const now = Date.now();
    for (const key of this.keys(address, account)) {
      const record = await this.storage.increment(key, WINDOW_MS, this.limit, WINDOW_MS, THROTTLER);
      if (record.totalHits < this.limit) continue;
      const seconds = Math.max(record.timeToExpire, record.isBlocked ? record.timeToBlockExpire : 0, 1);
      if (this.blockedUntil.size >= MAX_REMEMBERED) {
        const oldest = this.blockedUntil.keys().next();
        if (!oldest.done) this.blockedUntil.delete(oldest.value);
      }
      this.blockedUntil.set(key, now + seconds * 1000);
    }
  }
}
