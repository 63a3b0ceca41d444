import { PasswordHasher } from '../../src/modules/identity/password-hasher.service';
import { PasswordGuessLimiter } from '../../src/platform/http/password-guess-limiter';
import type { CreatedUser } from '../helpers/factories';
import { basic, createTestApp, type TestApp } from '../helpers/test-app';

/**
 * Issue 11 item 3: password guessing through Basic. Failed password verifications, on any route
 * and through any credential form, count against the login group's limit per client address and
 * per account; over the limit the answer is 429 in the dialect's shape before argon2 runs, and an
 * unknown account costs one argon2 verify like a known one.
 */
describe('security 11.3: Basic password guessing is throttled', () => {
  let t: TestApp;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let verifies: number;
  const LIMIT = 3;
  const limited = `You've been rate limited for sending more than ${LIMIT} requests in 1m0s.`;
  let address = 0;
  /** A fresh client address per test (the app trusts X-Forwarded-For from loopback here: TRUSTED_PROXIES). */
  const nextAddress = () => `198.51.100.${++address}`;

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        RATE_LIMIT_ENABLED: 'true',
        RATE_LIMIT_LOGIN_PER_MINUTE: String(LIMIT),
        RATE_LIMIT_API_PER_MINUTE: '10000',
        TRUSTED_PROXIES: '127.0.0.1,::1',
      },
    });
    const hasher = t.app.get(PasswordHasher);
    const verify = hasher.verify.bind(hasher);
    hasher.verify = (hash, password) => {
      verifies += 1;
      return verify(hash, password);
    };
  });
  beforeEach(async () => {
    verifies = 0;
    alice = await t.factories.user();
    bob = await t.factories.user();
  });
  afterAll(() => t.close());

  const giteaUser = (from: string, authorization: string) =>
    t.http().get('/api/v1/user').set('X-Forwarded-For', from).set('Authorization', authorization);
  const coderMe = (from: string, authorization: string) =>
    t.http().get('/api/v2/users/me').set('X-Forwarded-For', from).set('Authorization', authorization);
  const ocsUser = (from: string, authorization: string) =>
    t
      .http()
      .get('/ocs/v2.php/cloud/user')
      .query({ format: 'json' })
      .set('OCS-APIRequest', 'true')
      .set('X-Forwarded-For', from)
      .set('Authorization', authorization);

  it('failures on different routes and dialects add up per address; then 429 in each dialect before argon2', async () => {
    const from = nextAddress();
    expect((await giteaUser(from, basic(alice.user.name, 'wrong-1'))).status).toBe(401);
    expect((await coderMe(from, basic(alice.user.name, 'wrong-2'))).status).toBe(401);
    expect((await ocsUser(from, basic(bob.user.name, 'wrong-3'))).status).toBe(401);
    verifies = 0;

    const gitea = await giteaUser(from, basic(alice.user.name, alice.password));
    expect(gitea.status).toBe(429);
    expect(gitea.body).toMatchObject({ message: limited });
    expect(gitea.headers['retry-after']).toMatch(/^\d+$/);
    const coder = await coderMe(from, basic(bob.user.name, bob.password));
    expect(coder.status).toBe(429);
    expect(coder.body).toMatchObject({ message: limited });
    const ocs = await ocsUser(from, basic(bob.user.name, bob.password));
    expect(ocs.status).toBe(429);
    expect(ocs.body.ocs.meta.statuscode).toBe(429);
    expect(verifies).toBe(0);

    // Tokens are not passwords: the same address still works with a token.
    expect((await giteaUser(from, `token ${alice.token}`)).status).toBe(200);
  });

  it('failures count per account across addresses (user name and e-mail are one account)', async () => {
    expect((await giteaUser(nextAddress(), basic(alice.user.name, 'wrong-1'))).status).toBe(401);
    expect((await giteaUser(nextAddress(), basic(alice.user.email, 'wrong-2'))).status).toBe(401);
    expect((await coderMe(nextAddress(), basic(alice.user.name.toUpperCase(), 'wrong-3'))).status).toBe(401);
    const res = await giteaUser(nextAddress(), basic(alice.user.name, alice.password));
    expect(res.status).toBe(429);
    // Another account from a fresh address is unaffected.
    expect((await giteaUser(nextAddress(), basic(bob.user.name, bob.password))).status).toBe(200);
  });

  it('successful verifications do not count', async () => {
    const from = nextAddress();
    for (let i = 0; i < LIMIT + 2; i++)
      expect((await giteaUser(from, basic(alice.user.name, alice.password))).status).toBe(200);
  });

  it('login route failures count against the same account', async () => {
    const from = nextAddress();
    for (let i = 0; i < LIMIT; i++) {
      const res = await t
        .http()
        .post('/api/v2/users/login')
        .set('X-Forwarded-For', nextAddress())
        .send({ email: bob.user.email, password: `wrong-${i}` });
      expect(res.status).toBe(401);
    }
    const res = await giteaUser(from, basic(bob.user.name, bob.password));
    expect(res.status).toBe(429);
  });

  it('counters are shared through the throttler storage (PasswordGuessLimiter)', async () => {
    const limiter = t.app.get(PasswordGuessLimiter);
    const account = PasswordGuessLimiter.accountKey(alice.user.id, alice.user.name);
    for (let i = 0; i < LIMIT; i++) await limiter.recordFailure('203.0.113.7', account);
    expect(limiter.retryAfter('203.0.113.8', account)).toBeGreaterThan(0);
    expect(
      limiter.retryAfter('203.0.113.8', PasswordGuessLimiter.accountKey(bob.user.id, bob.user.name)),
    ).toBe(0);
  });

  it('an unknown account costs one argon2 verify, like a known one', async () => {
    expect((await giteaUser(nextAddress(), basic('nobody-at-all', 'some-password'))).status).toBe(401);
    expect(verifies).toBe(1);
    expect((await giteaUser(nextAddress(), basic(alice.user.name, 'some-password'))).status).toBe(401);
    expect(verifies).toBe(2);
  });
});
