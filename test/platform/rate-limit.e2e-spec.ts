import Redis from 'ioredis';
import { createTestApp } from '../helpers/test-app';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 500,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    await client.flushdb();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** The login group is limited per client address; with REDIS_URL the limit holds across instances. */
describe('rate limits', () => {
  const body = { email: 'nobody@example.com', password: 'wrong-password' };

  it("memory storage: the 4th login attempt in a minute answers 429 with Coder's text", async () => {
    const t = await createTestApp({ env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_LOGIN_PER_MINUTE: '3' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await t.http().post('/api/v2/users/login').send(body)).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      const limited = await t.http().post('/api/v2/users/login').send(body);
      expect(limited.body).toEqual({
        message: "You've been rate limited for sending more than 3 requests in 1m0s.",
      });
      // Routes outside the login group are not affected by the login limit.
      expect((await t.http().get('/api/v2/buildinfo')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('Redis storage: two instances share the counter', async () => {
    if (!(await redisReachable())) {
      // CI and the development machines run Redis on 6379; elsewhere there is nothing to share.
      console.warn(`Redis not reachable at ${REDIS_URL}: cross-instance rate limit not exercised`);
      return;
    }
    const env = { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_LOGIN_PER_MINUTE: '3', REDIS_URL };
    const first = await createTestApp({ env });
    const second = await createTestApp({ env, schema: first.schema });
    try {
      const statuses: number[] = [];
      for (const t of [first, second, first, second])
        statuses.push((await t.http().post('/api/v2/users/login').send(body)).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('Redis configured but unreachable: requests still answer (limits fall back to memory), health is not limited, readiness reports it', async () => {
    const t = await createTestApp({
      env: {
        RATE_LIMIT_ENABLED: 'true',
        RATE_LIMIT_LOGIN_PER_MINUTE: '3',
        RATE_LIMIT_API_PER_MINUTE: '10',
        REDIS_URL: 'redis://127.0.0.1:1/0',
      },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await t.http().post('/api/v2/users/login').send(body)).status);
      // Counted in this instance's memory: the 4th attempt is still refused.
      expect(statuses).toEqual([401, 401, 401, 429]);
      // Past the 10/min API limit: probes are never limited.
      for (let i = 0; i < 12; i++) expect((await t.http().get('/healthz')).status).toBe(200);
      const ready = await t.http().get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ok', database: 'ok', redis: 'down' });
    } finally {
      await t.close();
    }
  });
});
