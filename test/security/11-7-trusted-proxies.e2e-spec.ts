import { loadConfig } from '../../src/platform/config/app-config';
import { trustProxySetting } from '../../src/platform/http/trusted-proxies';
import { createTestApp } from '../helpers/test-app';

/**
 * Issue 11 item 7: X-Forwarded-For from any loopback peer was trusted, so a client chose the address
 * the rate limits saw. Now only TRUSTED_PROXIES are believed (none by default).
 */
describe('security 11.7: X-Forwarded-For only from TRUSTED_PROXIES', () => {
  async function statusesWithRotatingForwardedFor(env: Record<string, string>): Promise<number[]> {
    const t = await createTestApp({
      env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_LOGIN_PER_MINUTE: '3', ...env },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        // A different account each time: only the address can make the limit bite.
        const body = { email: `nobody${i}@example.com`, password: 'wrong-password' };
        statuses.push(
          (
            await t
              .http()
              .post('/api/v2/users/login')
              .set('X-Forwarded-For', `203.0.113.${i + 1}`)
              .send(body)
          ).status,
        );
      }
      return statuses;
    } finally {
      await t.close();
    }
  }

  it('by default a client cannot pick its rate-limit key with X-Forwarded-For (the 4th attempt is 429)', async () => {
    expect(await statusesWithRotatingForwardedFor({})).toEqual([401, 401, 401, 429, 429]);
  });

  it('behind a configured proxy the forwarded address is the client (each address has its own budget)', async () => {
    expect(await statusesWithRotatingForwardedFor({ TRUSTED_PROXIES: '127.0.0.0/8, ::1' })).toEqual([
      401, 401, 401, 401, 401,
    ]);
  });

  it.each([
    ['10.0.0.0/8', '10.1.2.3', true],
    ['10.0.0.0/8', '::ffff:10.1.2.3', true],
    ['10.0.0.0/8', '11.0.0.1', false],
    ['192.0.2.7', '192.0.2.7', true],
    ['192.0.2.7', '192.0.2.8', false],
    ['2001:db8::/32', '2001:db8::1', true],
    ['2001:db8::/32', '10.1.2.3', false],
    ['127.0.0.1', 'not an address', false],
  ])('TRUSTED_PROXIES=%s trusts peer %s: %s', (entry, peer, trusted) => {
    const setting = trustProxySetting([entry]);
    expect(setting !== false && setting(peer)).toBe(trusted);
  });

  it('an entry that is neither an address nor a range stops the start naming the variable', () => {
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8,proxy.example' })).toThrow(
      'Invalid configuration: TRUSTED_PROXIES has "proxy.example", which is neither an IP address nor a CIDR range',
    );
    expect(trustProxySetting([])).toBe(false);
  });
});
