import { ActivityRecorder } from '../../src/modules/identity/activity-recorder.service';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { DataSource } from 'typeorm';
import { ApiToken } from '../../src/modules/identity/entities/api-token.entity';
import { User } from '../../src/modules/identity/entities/user.entity';
import { OAuthConvertState } from '../../src/modules/auth/entities/oauth-convert-state.entity';
import { EXTERNAL_SCOPES } from '../../src/modules/auth/rbac/rbac-catalogue';
import type { CreatedUser } from '../helpers/factories';
import { BOOTSTRAP_ADMIN, createTestApp, type TestApp } from '../helpers/test-app';

const SIGNED_OUT = 'You are signed out or your session has expired. Please sign in again to continue.';
const KEY = /^[0-9A-Za-z]{10}-[0-9A-Za-z]{22}$/;

/** Spec 2 table A: scopes, login, logout, sessions, validate-password, convert-login (reference A.1, A.4, B). */
describe('auth: login, sessions, password rule, login conversion', () => {
  let t: TestApp;
  let alice: CreatedUser;
  let bob: CreatedUser;
  const tokenRow = (key: string) =>
    t.dataSource.getRepository(ApiToken).findOneByOrFail({ id: key.split('-')[0]! });
  const login = (email: string, password: string) =>
    t.http().post('/api/v2/users/login').send({ email, password });

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user({ password: 'Alice-Strong-Password-1' });
    bob = await t.factories.user();
  });
  afterAll(() => t.close());

  describe('GET /api/v2/auth/scopes', () => {
    it('is public and answers the pinned 55 external scopes in byte order', async () => {
      const res = await t.http().get('/api/v2/auth/scopes');
      expect(res.status).toBe(200);
      expect(res.body.external).toHaveLength(55);
      expect(res.body.external).toEqual([...EXTERNAL_SCOPES]);
      expect(res.body.external).toEqual([...res.body.external].sort());
      expect(res.body.external).toContain('coder:all');
      expect(res.body.external).not.toContain('all');
      expect(res.body.external).not.toContain('application_connect');
      expect(res.body.external.slice(0, 3)).toEqual(['api_key:*', 'api_key:create', 'api_key:delete']);
      expect(res.body.external.at(-1)).toBe('workspace:update');
    });
  });

  describe('POST /api/v2/users/login', () => {
    it('201 with a session token and cookie; email is case-insensitive; 24 h password session', async () => {
      const res = await login(alice.user.email.toUpperCase(), alice.password);
      expect(res.status).toBe(201);
      expect(res.body.session_token).toMatch(KEY);
      const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
        c.startsWith('service_session_token='),
      )!;
      expect(cookie).toContain(`service_session_token=${res.body.session_token}`);
      expect(cookie).toMatch(/Path=\//);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      const row = await tokenRow(res.body.session_token);
      expect(row.loginType).toBe('password');
      expect(Number(row.lifetimeSeconds)).toBe(86_400);
      expect(row.scopes).toEqual(['coder:all']);
      expect(row.passwordConfirmedAt).not.toBeNull();
      expect(Math.abs(row.expiresAt.getTime() - Date.now() - 86_400_000)).toBeLessThan(60_000);
      const user = await t.dataSource.getRepository(User).findOneByOrFail({ id: alice.user.id });
      expect(user.lastLoginAt).not.toBeNull();
      const me = await t.http().get('/api/v2/users/me').set('Service-Session-Token', res.body.session_token);
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(alice.user.uuid);
      const viaCookie = await t
        .http()
        .get('/api/v2/users/me')
        .set('Cookie', `service_session_token=${res.body.session_token}`);
      expect(viaCookie.status).toBe(200);
    });

    it('401 "Incorrect email or password." for a wrong password, an unknown email, a user without a password', async () => {
      const sso = await t.factories.user({ loginType: 'oidc' });
      await t.dataSource.query('UPDATE users SET password_hash = NULL WHERE id = $1', [sso.user.id]);
      const service = await t.factories.user({ isServiceAccount: true });
      await t.dataSource.query('UPDATE users SET password_hash = NULL WHERE id = $1', [service.user.id]);
      for (const [email, password] of [
        [alice.user.email, 'Wrong-Password-123'],
        ['nobody@example.com', 'Whatever-Password-1'],
        [sso.user.email, sso.password],
        [service.user.email, service.password],
      ] as const) {
        const res = await login(email, password);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ message: 'Incorrect email or password.' });
      }
    });

    it('400 Validation failed for missing fields and a bad email', async () => {
      const empty = await t.http().post('/api/v2/users/login').send({});
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual({
        message: 'Validation failed.',
        validations: [
          { field: 'email', detail: 'Validation failed for tag "required" with value: ""' },
          { field: 'password', detail: 'Validation failed for tag "required" with value: ""' },
        ],
      });
      const bad = await login('x', 'p');
      expect(bad.status).toBe(400);
      expect(bad.body.validations).toEqual([
        { field: 'email', detail: 'Validation failed for tag "email" with value: "x"' },
      ]);
    });

    it('400 Request body must be valid JSON. for malformed JSON and wrong types', async () => {
      const malformed = await t
        .http()
        .post('/api/v2/users/login')
        .set('Content-Type', 'application/json')
        .send('{');
      expect(malformed.status).toBe(400);
      expect(malformed.body.message).toBe('Request body must be valid JSON.');
      const wrongType = await t.http().post('/api/v2/users/login').send({ email: 5, password: 'x' });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.message).toBe('Request body must be valid JSON.');
    });

    it('403 for a user of another login type who has a password', async () => {
      const github = await t.factories.user({ loginType: 'github' });
      const res = await login(github.user.email, github.password);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: 'Incorrect login type, attempting to use "password" but user is of login type "github"',
      });
    });

    it('reactivates a dormant user', async () => {
      const dormant = await t.factories.user({ status: 'dormant' });
      const changes: unknown[] = [];
      t.app.get(EventEmitter2).on('user.status_changed', (payload: unknown) => changes.push(payload));
      const res = await login(dormant.user.email, dormant.password);
      expect(res.status).toBe(201);
      const user = await t.dataSource.getRepository(User).findOneByOrFail({ id: dormant.user.id });
      expect(user.status).toBe('active');
      expect(changes).toContainEqual({
        userId: dormant.user.id,
        from: 'dormant',
        to: 'active',
        actorId: null,
      });
    });

    it('a dormant user is reactivated on any authenticated use too', async () => {
      const sleeper = await t.factories.user();
      await t.dataSource.query(`UPDATE users SET status = 'dormant' WHERE id = $1`, [sleeper.user.id]);
      const changes: unknown[] = [];
      t.app.get(EventEmitter2).on('user.status_changed', (payload: unknown) => changes.push(payload));
      const me = await t.http().get('/api/v2/users/me').set('Service-Session-Token', sleeper.token);
      expect(me.status).toBe(200);
      expect(me.body.status).toBe('active');
      expect(changes).toContainEqual({
        userId: sleeper.user.id,
        from: 'dormant',
        to: 'active',
        actorId: null,
      });
    });

    it('401 for a suspended user (after the password check), and existing sessions stop working', async () => {
      const carol = await t.factories.user();
      const session = (await login(carol.user.email, carol.password)).body.session_token as string;
      await t.dataSource.query(`UPDATE users SET status = 'suspended' WHERE id = $1`, [carol.user.id]);
      const right = await login(carol.user.email, carol.password);
      expect(right.status).toBe(401);
      expect(right.body).toEqual({
        message: 'Your account is suspended. Contact an admin to reactivate your account.',
      });
      const wrong = await login(carol.user.email, 'Wrong-Password-123');
      expect(wrong.status).toBe(401);
      expect(wrong.body.message).toBe('Incorrect email or password.');
      const me = await t.http().get('/api/v2/users/me').set('Service-Session-Token', session);
      expect(me.status).toBe(401);
      expect(me.body.message).toBe(
        'User is not active (status = "suspended"). Contact an admin to reactivate your account.',
      );
    });

    it('sessions slide on use; tokens do not', async () => {
      const session = (await login(bob.user.email, bob.password)).body.session_token as string;
      const id = session.split('-')[0]!;
      const in22h = new Date(Date.now() + 22 * 3_600_000);
      await t.dataSource.getRepository(ApiToken).update({ id }, { expiresAt: in22h });
      const tokenId = bob.token.split('-')[0]!;
      const tokenBefore = await tokenRow(bob.token);
      await t.http().get('/api/v2/users/me').set('Service-Session-Token', session).expect(200);
      await t.http().get('/api/v2/users/me').set('Service-Session-Token', bob.token).expect(200);
      await t.app.get(ActivityRecorder).flush(); // token use is written in batches
      const slid = await tokenRow(session);
      expect(Math.abs(slid.expiresAt.getTime() - Date.now() - 86_400_000)).toBeLessThan(60_000);
      const tokenAfter = await t.dataSource.getRepository(ApiToken).findOneByOrFail({ id: tokenId });
      expect(tokenAfter.expiresAt.getTime()).toBe(tokenBefore.expiresAt.getTime());
    });
  });

  describe('POST /api/v2/users/logout', () => {
    it('401 without a credential', async () => {
      const res = await t.http().post('/api/v2/users/logout');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        message: SIGNED_OUT,
        detail: 'Cookie "service_session_token" or query parameter must be provided.',
      });
    });

    it('deletes the session and app-connect keys, clears the cookie; the key then gets 401 "API key is invalid."', async () => {
      const session = (await login(alice.user.email, alice.password)).body.session_token as string;
      const appConnect = await t.factories.token(alice.user, { scopes: ['coder:application_connect'] });
      const res = await t.http().post('/api/v2/users/logout').set('Service-Session-Token', session);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Logged out!' });
      const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
        c.startsWith('service_session_token='),
      )!;
      expect(cookie).toMatch(/^service_session_token=;/);
      expect(cookie).toMatch(/Max-Age=0/);
      const after = await t.http().get('/api/v2/users/me').set('Service-Session-Token', session);
      expect(after.status).toBe(401);
      expect(after.body.detail).toBe('API key is invalid.');
      expect((await t.http().get('/api/v2/users/me').set('Service-Session-Token', appConnect)).status).toBe(
        401,
      );
      // Other tokens of the user survive.
      expect((await t.http().get('/api/v2/users/me').set('Service-Session-Token', alice.token)).status).toBe(
        200,
      );
    });
  });

  describe('POST /api/v2/users/validate-password', () => {
    const validate = (password: unknown) =>
      t
        .http()
        .post('/api/v2/users/validate-password')
        .set('Service-Session-Token', alice.token)
        .send({ password });

    it('401 without a credential (spec: session token)', async () => {
      const res = await t.http().post('/api/v2/users/validate-password').send({ password: 'x' });
      expect(res.status).toBe(401);
    });

    it.each([
      [
        'notstrong',
        false,
        'insecure password, try including more special characters, using uppercase letters, using numbers or using a longer password',
      ],
      ['SomeSecurePassword!', true, ''],
      ['MySecurePassword!', true, ''],
      [
        '12345678',
        false,
        'insecure password, try including more special characters, using lowercase letters, using uppercase letters or using a longer password',
      ],
      [
        'Qwerty123!',
        false,
        'insecure password, try including more special characters or using a longer password',
      ],
      [
        'password1234',
        false,
        'insecure password, try including more special characters, using uppercase letters or using a longer password',
      ],
      ['&1&1&1&1&1&é', true, ''],
      ['Aa1!'.repeat(16) + 'x', false, 'password must be no more than 64 characters'],
    ])('%j → valid %s', async (password, valid, details) => {
      const res = await validate(password);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ valid, details });
    });

    it('400 Validation failed for an empty password', async () => {
      const res = await validate('');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: 'Validation failed.',
        validations: [{ field: 'password', detail: 'Validation failed for tag "required" with value: ""' }],
      });
    });
  });

  describe('POST /api/v2/users/{user}/convert-login', () => {
    const convert = (as: string, ref: string, body: object) =>
      t.http().post(`/api/v2/users/${ref}/convert-login`).set('Service-Session-Token', as).send(body);

    it('201 with the stored state, 5 minutes, and a cookie', async () => {
      const res = await convert(alice.token, 'me', { to_type: 'oidc', password: alice.password });
      expect(res.status).toBe(201);
      expect(res.body.state_string).toMatch(/^convert-[0-9A-Za-z]{32}$/);
      expect(res.body.to_type).toBe('oidc');
      expect(res.body.user_id).toBe(alice.user.uuid);
      expect(Math.abs(new Date(res.body.expires_at).getTime() - Date.now() - 300_000)).toBeLessThan(30_000);
      const row = await t.dataSource
        .getRepository(OAuthConvertState)
        .findOneByOrFail({ state: res.body.state_string });
      expect(row).toMatchObject({ userId: alice.user.id, fromLoginType: 'password', toLoginType: 'oidc' });
      const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) =>
        c.startsWith('service_oauth_convert='),
      )!;
      expect(cookie).toMatch(/HttpOnly/);
      // The login type itself only changes when the OAuth callback completes.
      const user = await t.dataSource.getRepository(User).findOneByOrFail({ id: alice.user.id });
      expect(user.loginType).toBe('password');
    });

    it.each(['password', 'token', 'none'])('400 Cannot convert to login type "%s".', async (type) => {
      const res = await convert(alice.token, 'me', { to_type: type, password: alice.password });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: `Cannot convert to login type "${type}".` });
    });

    it('400 Unknown login type / Validation failed / 401 wrong password', async () => {
      const unknown = await convert(alice.token, 'me', { to_type: 'saml', password: alice.password });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toEqual({ message: 'Unknown login type "saml".' });
      const missing = await convert(alice.token, 'me', { password: alice.password });
      expect(missing.status).toBe(400);
      expect(missing.body.validations).toEqual([
        { field: 'to_type', detail: 'Validation failed for tag "required" with value: ""' },
      ]);
      const wrong = await convert(alice.token, 'me', { to_type: 'github', password: 'Wrong-Password-1' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.message).toBe('Incorrect email or password.');
    });

    it('401 without a credential; 404 for an unknown or unreadable user; owners may convert others', async () => {
      expect(
        (await t.http().post('/api/v2/users/me/convert-login').send({ to_type: 'oidc', password: 'x' }))
          .status,
      ).toBe(401);
      const unknown = await convert(alice.token, 'nosuchuser', { to_type: 'oidc', password: 'x' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({
        message: 'Resource not found or you do not have access to this resource',
      });
      const other = await convert(alice.token, bob.user.name, { to_type: 'oidc', password: bob.password });
      expect(other.status).toBe(404);
      const adminToken = (await login(BOOTSTRAP_ADMIN.email, BOOTSTRAP_ADMIN.password)).body
        .session_token as string;
      expect(
        (await convert(adminToken, bob.user.uuid, { to_type: 'oidc', password: bob.password })).status,
      ).toBe(201);
      expect(
        (await convert(adminToken, bob.user.uuid, { to_type: 'oidc', password: BOOTSTRAP_ADMIN.password }))
          .status,
      ).toBe(401);
    });
  });

  describe('password login disabled', () => {
    let d: TestApp;
    beforeAll(async () => {
      // A second instance on the same data (the embedded test database serves one schema at a time).
      d = await createTestApp({ schema: t.schema, env: { PASSWORD_LOGIN_ENABLED: 'false' } });
    });
    afterAll(() => d.close());

    it('login: 403 with the right password, 401 with a wrong one', async () => {
      const u = await d.factories.user();
      const right = await d
        .http()
        .post('/api/v2/users/login')
        .send({ email: u.user.email, password: u.password });
      expect(right.status).toBe(403);
      expect(right.body).toEqual({ message: 'Password authentication is disabled.' });
      const wrong = await d
        .http()
        .post('/api/v2/users/login')
        .send({ email: u.user.email, password: 'Nope-Nope-123' });
      expect(wrong.status).toBe(401);
      const convert = await d
        .http()
        .post('/api/v2/users/me/convert-login')
        .set('Service-Session-Token', u.token)
        .send({ to_type: 'oidc', password: u.password });
      expect(convert.status).toBe(403);
      expect(convert.body.message).toBe('Password authentication is disabled.');
    });

    it('OTP request and change-password: 403 even with an invalid body', async () => {
      for (const path of ['/api/v2/users/otp/request', '/api/v2/users/otp/change-password']) {
        const res = await d.http().post(path).send({});
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ message: 'Password authentication is disabled.' });
      }
    });
  });

  it('DataSource is the real one', () => {
    expect(t.dataSource).toBeInstanceOf(DataSource);
  });
});
