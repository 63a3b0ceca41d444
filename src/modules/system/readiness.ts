/** The body of a ready answer: the rate-limit store (Redis) is reported when configured, never required. */
export interface ReadyReport {
  status: string;
  database: string;
  redis?: string;
}

export type RateLimitStoreStatus = 'absent' | 'up' | 'down';

/** What `/readyz` answers once every required dependency answered: Redis is left out when not configured. */
export function readyReport(redis: RateLimitStoreStatus): ReadyReport {
  return { status: 'ok', database: 'ok', ...(redis === 'absent' ? {} : { redis }) };
}
