import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ActivityRepository } from './repositories/activity.repository';

/** How long activity is gathered before one statement per table writes it. */
const FLUSH_MS = 100;

interface TokenUse {
  lastUsedAt: Date | null;
  ipAddress: string;
  expiresAt: Date;
  updatedAt: Date;
}

/**
 * Token use (`api_tokens.last_used_at`, `ip_address`, the sliding expiry of sessions) and
 * `users.last_seen_at`, written in batches: what arrives within FLUSH_MS goes out as one
 * `UPDATE … FROM unnest(…)` per table (activity writes: no cache version moves). Before, each
 * user's first request of the minute waited for two statements of its own, which under many
 * distinct users was 40 % of all queries (issue 10 item 14). The cached credential rows are
 * patched at once by the callers, so the request path sees the new values immediately; readers
 * of the tables call `flush()` first. A crash loses at most FLUSH_MS of activity.
 */
@Injectable()
export class ActivityRecorder implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ActivityRecorder.name);
  private tokens = new Map<string, TokenUse>();
  private users = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly rows: ActivityRepository) {}

  tokenUsed(tokenId: string, use: TokenUse): void {
    this.tokens.set(tokenId, use);
    this.schedule();
  }

  userSeen(userId: string, at: Date): void {
    this.users.set(userId, at);
    this.schedule();
  }

  /** Writes what is pending now; resolves once every earlier write has ended. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const tokens = this.tokens;
    const users = this.users;
    if (tokens.size === 0 && users.size === 0) return this.flushing;
    this.tokens = new Map();
    this.users = new Map();
    this.flushing = this.flushing.then(() =>
      Promise.all([this.writeTokens(tokens), this.writeUsers(users)]).then(() => undefined),
    );
    return this.flushing;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  private async writeTokens(batch: Map<string, TokenUse>): Promise<void> {
    if (batch.size === 0) return;
    await this.rows
      .writeTokenUses([...batch].map(([id, use]) => ({ id, ...use })))
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, `the use of ${batch.size} tokens was not recorded`),
      );
  }

  private async writeUsers(batch: Map<string, Date>): Promise<void> {
    if (batch.size === 0) return;
    await this.rows
      .writeLastSeen([...batch.keys()], [...batch.values()])
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, `the activity of ${batch.size} users was not recorded`),
      );
  }
}
