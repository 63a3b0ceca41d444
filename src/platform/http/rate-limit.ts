import { Inject, Injectable, type OnApplicationShutdown, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { ExecutionContext } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.token';
import { RedisThrottlerStorage } from './redis-throttler.storage';

const LOGIN_LIMITED = 'devplane:login-rate-limited';
const reflector = new Reflector();

/** Marks a route as part of the login group (login, OTP, password validation): 60/min per address. */
export const LoginRateLimit = (): MethodDecorator => SetMetadata(LOGIN_LIMITED, true);

/** Liveness and readiness probes are never rate-limited (orchestrators poll them). */
function isHealthCheck(context: ExecutionContext): boolean {
  const path = context.switchToHttp().getRequest<{ path?: string }>().path;
  return path === '/healthz' || path === '/readyz';
}

function isLoginLimited(context: ExecutionContext): boolean {
  return (
    reflector.getAllAndOverride<boolean>(LOGIN_LIMITED, [context.getHandler(), context.getClass()]) === true
  );
}

/**
 * Two named throttlers: `default` for every HTTP route (512/min, as Coder) and `login` for the
 * login group only. Counters live in memory, or in Redis when REDIS_URL is set.
 */
export function throttlerOptions(config: AppConfig): ThrottlerModuleOptions {
  const storage = config.redisUrl ? new RedisThrottlerStorage(config.redisUrl) : undefined;
  if (storage) openStorages.add(storage);
  return {
    throttlers: [
      { name: 'default', ttl: 60_000, limit: config.rateLimit.apiPerMinute },
      {
        name: 'login',
        ttl: 60_000,
        limit: config.rateLimit.loginPerMinute,
        // A throttler's own skipIf replaces the shared one, so it repeats the global switch.
        skipIf: (context) => !config.rateLimit.enabled || !isLoginLimited(context),
      },
    ],
    skipIf: (context) => !config.rateLimit.enabled || context.getType() !== 'http' || isHealthCheck(context),
    errorMessage: (_context, detail) =>
      `You've been rate limited for sending more than ${detail.limit} requests in 1m0s.`,
    storage,
  };
}

const openStorages = new Set<RedisThrottlerStorage>();

/** The rate-limit store for readiness: `absent` without REDIS_URL, else whether Redis answers. */
export function rateLimitStoreStatus(): 'absent' | 'up' | 'down' {
  const [storage] = openStorages;
  return storage ? storage.status : 'absent';
}

/**
 * The throttler guard, skipped whole when rate limiting is off (RATE_LIMIT_ENABLED=false): the
 * library would otherwise read five route metadata keys per throttler on every request only to
 * find each throttler's skipIf true.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super(options, storage, reflector);
  }

  protected override shouldSkip(): Promise<boolean> {
    return Promise.resolve(!this.config.rateLimit.enabled);
  }
}

/** Closes the Redis connections of the rate-limit storages (the throttler module does not own them). */
@Injectable()
export class RateLimitStorageCloser implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    for (const storage of openStorages) {
      openStorages.delete(storage);
      await storage.onApplicationShutdown();
    }
  }
}
