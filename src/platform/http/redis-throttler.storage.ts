import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type ThrottlerStorage, ThrottlerStorageService } from '@nestjs/throttler';
import Redis from 'ioredis';

interface ThrottlerStorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

/**
 * Fixed-window counters in Redis, so rate limits hold across instances. One atomic script per
 * hit. (The published Redis storages for @nestjs/throttler do not yet accept Nest 12 as a peer.)
 */
const SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
local blockTtl = redis.call('PTTL', KEYS[2])
if blockTtl < 0 and hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  blockTtl = tonumber(ARGV[3])
end
return {hits, ttl, blockTtl}
`;

/** How often a Redis outage is logged again while it lasts. */
const WARN_EVERY_MS = 30_000;

/**
 * Fails open: while Redis is unreachable the counters fall back to this instance's memory (limits
 * hold per instance instead of across them) with a logged warning, so an outage of the rate-limit
 * store never turns requests into errors. Commands are not queued while disconnected.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis;
  private readonly memory = new ThrottlerStorageService();
  private lastWarning = 0;

  constructor(url: string) {
    this.redis = new Redis(url, {
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2_000,
    });
    // ioredis reports connection failures as 'error' events: logged (at most every 30 s), never thrown.
    this.redis.on('error', (error: Error) => this.warn(error));
  }

  private warn(error: unknown): void {
    if (Date.now() - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = Date.now();
    this.logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'Redis unreachable: rate limits count in this instance only until it is back',
    );
  }

  /** `up` when commands go through, `down` otherwise (readiness reports it). */
  get status(): 'up' | 'down' {
    return this.redis.status === 'ready' ? 'up' : 'down';
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const base = `devplane:throttle:${throttlerName}:${key}`;
    if (this.redis.status !== 'ready')
      return this.memory.increment(key, ttl, limit, blockDuration, throttlerName);
    let reply: [number, number, number];
    try {
      reply = (await this.redis.eval(
        SCRIPT,
        2,
        `${base}:hits`,
        `${base}:blocked`,
        ttl,
        limit,
        blockDuration || ttl,
      )) as [number, number, number];
    } catch (error) {
      this.warn(error);
      return this.memory.increment(key, ttl, limit, blockDuration, throttlerName);
    }
    const [hits, ttlMs, blockMs] = reply;
    return {
      totalHits: hits,
      timeToExpire: Math.max(0, Math.ceil(ttlMs / 1000)),
      isBlocked: blockMs > 0 && hits > limit,
      timeToBlockExpire: Math.max(0, Math.ceil(blockMs / 1000)),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.memory.onApplicationShutdown();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
