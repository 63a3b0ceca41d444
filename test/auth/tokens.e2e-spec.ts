import { ApiToken } from '../../src/modules/identity/entities/api-token.entity';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const NOT_FOUND = { message: 'Resource not found or you do not have access to this resource' };
const FORBIDDEN = {
  message: 'Forbidden.',
  detail:
    "You don't have permission to view this content. If you believe this is a mistake, please contact your administrator or try signing in with different credentials.",
};
const HOUR_NS = 3_600 * 1e9;

/** Coder's token routes: POST/GET /users/{user}/keys/tokens, GET .../tokens/{name}, DELETE /users/{user}/keys/{id}. */
describe('auth: API tokens (Coder routes)', () => {
  let t: TestApp;
  let member: CreatedUser;
  let other: CreatedUser;
  let owner: CreatedUser;
  const create = (as: string, ref: string, body: object) =>
    t.http().post(`/api/v2/users/${ref}/keys/tokens`).set('Service-Session-Token', as).send(body);
  const get = (as: string, path: string) =>
    t.http().get(`/api/v2/users/${path}`).set('Service-Session-Token', as);

  beforeAll(async () => {
    t = await createTestApp();
    member = await t.factories.user();
    other = await t.factories.user();
    owner = await t.factories.admin();
  });
  afterAll(() => t.close());

  it('401 without a credential on every route', async () => {
    expect((await t.http().post('/api/v2/users/me/keys/tokens').send({})).status).toBe(401);
    expect((await t.http().get('/api/v2/users/me/keys/tokens')).status).toBe(401);
    expect((await t.http().get('/api/v2/users/me/keys/tokens/x')).status).toBe(401);
    expect((await t.http().delete('/api/v2/users/me/keys/abcdefghij')).status).toBe(401);
  });

  it('201 with defaults: coder:all, scope all, 7 days, login_type token, allow-all', async () => {
    const res = await create(member.token, 'me', { token_name: 'ci' });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^[0-9A-Za-z]{10}-[0-9A-Za-z]{22}$/);
    const shown = await get(member.token, 'me/keys/tokens/ci');
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      id: res.body.key.split('-')[0],
      user_id: member.user.uuid,
      last_used: '1970-01-01T00:00:00.000Z',
      login_type: 'token',
      scope: 'all',
      scopes: ['coder:all'],
      token_name: 'ci',
      lifetime_seconds: 604_800,
      allow_list: [{ type: '*', id: '*' }],
    });
    expect((await t.http().get('/api/v2/users/me').set('Service-Session-Token', res.body.key)).status).toBe(
      200,
    );
  });

  it('a generated name when none is given; scopes canonical, deduplicated, in order', async () => {
    const res = await create(member.token, member.user.name, {
      scopes: ['workspace:read', 'coder:workspaces.access', 'workspace:read'],
    });
    expect(res.status).toBe(201);
    const row = await t.dataSource
      .getRepository(ApiToken)
      .findOneByOrFail({ id: res.body.key.split('-')[0] });
    expect(row.name).not.toBe('');
    expect(row.scopes).toEqual(['workspace:read', 'coder:workspaces.access']);
    const legacy = await create(member.token, 'me', { token_name: 'legacy', scopes: ['all'] });
    expect(legacy.status).toBe(201);
    expect((await get(member.token, 'me/keys/tokens/legacy')).body.scopes).toEqual(['coder:all']);
    const connect = await create(member.token, 'me', { token_name: 'connect', scope: 'application_connect' });
    expect(connect.status).toBe(201);
    const shown = await get(member.token, 'me/keys/tokens/connect');
    expect(shown.body).toMatchObject({ scopes: ['coder:application_connect'], scope: 'application_connect' });
  });

  it.each(['debug_info:read', 'bogus', 'workspace:frobnicate'])('400 for the scope %j', async (scope) => {
    const res = await create(member.token, 'me', { scopes: [scope] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: 'Failed to create API key.',
      detail: `invalid or unsupported API key scope: "${scope}"`,
    });
  });

  it('lifetime rules: negative, above the maximum, owner maximum 168h', async () => {
    const negative = await create(member.token, 'me', { lifetime: -1 });
    expect(negative.status).toBe(400);
    expect(negative.body).toEqual({
      message: 'Failed to validate create API key request.',
      detail: 'lifetime must be positive number greater than 0',
    });
    const tooLong = await create(member.token, 'me', { lifetime: 876_601 * HOUR_NS });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.detail).toBe('lifetime must be less than 876600h0m0s');
    const eightDays = await create(owner.token, 'me', { lifetime: 192 * HOUR_NS });
    expect(eightDays.status).toBe(400);
    expect(eightDays.body.detail).toBe('lifetime must be less than 168h0m0s');
    const sevenDays = await create(owner.token, 'me', { token_name: 'week', lifetime: 168 * HOUR_NS });
    expect(sevenDays.status).toBe(201);
    expect((await get(owner.token, 'me/keys/tokens/week')).body.lifetime_seconds).toBe(604_800);
    const wrongType = await create(member.token, 'me', { lifetime: '7d' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toBe('Request body must be valid JSON.');
  });

  it('client mistakes are 400, never 500: long names, fractional lifetimes, prototype names', async () => {
    const long = await create(member.token, 'me', { token_name: 'x'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      message: 'Failed to create API key.',
      detail: 'token name must be at most 255 characters',
    });
    expect((await create(member.token, 'me', { token_name: 'y'.repeat(255) })).status).toBe(201);
    const fraction = await create(member.token, 'me', { lifetime: 1.5 });
    expect(fraction.status).toBe(400);
    expect(fraction.body).toEqual({
      message: 'Request body must be valid JSON.',
      detail:
        'json: cannot unmarshal number into Go struct field CreateTokenRequest.lifetime of type time.Duration',
    });
    for (const type of ['constructor', 'toString', '__proto__']) {
      const res = await create(member.token, 'me', { allow_list: [{ type, id: '*' }] });
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe(`invalid allow_list entry: unknown resource type "${type}"`);
    }
    for (const scope of ['constructor', 'toString:read', '__proto__', 'hasOwnProperty']) {
      const res = await create(member.token, 'me', { scopes: [scope] });
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe(`invalid or unsupported API key scope: "${scope}"`);
    }
  });

  it('two concurrent creates with one name: one 201, one 409', async () => {
    const results = await Promise.all(
      [1, 2, 3].map(() => create(member.token, 'me', { token_name: 'racy' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it('409 for a duplicate name, with the validation entry', async () => {
    expect((await create(member.token, 'me', { token_name: 'dup' })).status).toBe(201);
    const res = await create(member.token, 'me', { token_name: 'dup' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message: 'A token with name "dup" already exists.',
      validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
    });
  });

  it('allow_list: unknown type 400; a specific list is stored and shown', async () => {
    const bad = await create(member.token, 'me', { allow_list: [{ type: 'nope', id: '*' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Failed to create API key.');
    const id = '6b2f3e2c-1d4e-4a8b-9c7d-0e1f2a3b4c5d';
    const ok = await create(member.token, 'me', {
      token_name: 'narrow',
      allow_list: [{ type: 'workspace', id }],
    });
    expect(ok.status).toBe(201);
    expect((await get(member.token, 'me/keys/tokens/narrow')).body.allow_list).toEqual([
      { type: 'workspace', id },
    ]);
  });

  it('other users: a member cannot see or mint for them (404); an owner can (201)', async () => {
    const res = await create(member.token, other.user.name, {});
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect((await create(member.token, 'nosuchuser', {})).status).toBe(404);
    expect((await create(owner.token, other.user.uuid, { token_name: 'by-owner' })).status).toBe(201);
    expect((await get(other.token, 'me/keys/tokens/by-owner')).status).toBe(200);
  });

  it('a token without api_key:create cannot mint tokens (403); a scoped token cannot widen its scopes', async () => {
    const scoped = await t.factories.token(member.user, { scopes: ['workspace:read'] });
    const res = await create(scoped, 'me', {});
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
    const manager = await t.factories.token(member.user, {
      scopes: ['coder:apikeys.manage_self', 'workspace:read'],
    });
    expect((await create(manager, 'me', { token_name: 'narrower', scopes: ['workspace:read'] })).status).toBe(
      201,
    );
    const wider = await create(manager, 'me', { scopes: ['coder:all'] });
    expect(wider.status).toBe(400);
    expect(wider.body.detail).toBe('invalid or unsupported API key scope: "coder:all"');
  });

  it('list: only tokens (no sessions), expired hidden unless include_expired, with username', async () => {
    const lister = await t.factories.user();
    await create(lister.token, 'me', { token_name: 'a' });
    await create(lister.token, 'me', { token_name: 'b' });
    await t.factories.token(lister.user, { name: 'expired', lifetimeSeconds: -60 });
    await t
      .http()
      .post('/api/v2/users/login')
      .send({ email: lister.user.email, password: lister.password })
      .expect(201);
    const res = await get(lister.token, 'me/keys/tokens');
    expect(res.status).toBe(200);
    const names = (res.body as { token_name: string; username: string }[]).map((k) => k.token_name);
    expect(names).toEqual(expect.arrayContaining(['a', 'b']));
    expect(names).not.toContain('expired');
    expect(
      res.body.every(
        (k: { username: string; login_type: string }) =>
          k.username === lister.user.name && k.login_type === 'token',
      ),
    ).toBe(true);
    const all = await get(lister.token, 'me/keys/tokens?include_expired=true');
    expect(all.body.map((k: { token_name: string }) => k.token_name)).toContain('expired');
    expect(all.body).toHaveLength(res.body.length + 1);
    const ownerView = await get(owner.token, `${lister.user.name}/keys/tokens`);
    expect(ownerView.status).toBe(200);
    expect(ownerView.body).toHaveLength(res.body.length);
    const everyone = await get(member.token, 'me/keys/tokens?include_all=true');
    expect(everyone.body.every((k: { user_id: string }) => k.user_id === member.user.uuid)).toBe(true);
    const ownerAll = await get(owner.token, 'me/keys/tokens?include_all=true');
    expect(new Set(ownerAll.body.map((k: { user_id: string }) => k.user_id)).size).toBeGreaterThan(2);
  });

  it('get by name: 404 for an unknown name', async () => {
    const res = await get(member.token, 'me/keys/tokens/no-such-token');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('delete: 204, then the key is invalid, deleting again 404; foreign keys 404; owners may delete others', async () => {
    const key = (await create(member.token, 'me', { token_name: 'doomed' })).body.key as string;
    const id = key.split('-')[0]!;
    const res = await t
      .http()
      .delete(`/api/v2/users/me/keys/${id}`)
      .set('Service-Session-Token', member.token);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const after = await t.http().get('/api/v2/users/me').set('Service-Session-Token', key);
    expect(after.status).toBe(401);
    expect(after.body.detail).toBe('API key is invalid.');
    expect(
      (await t.http().delete(`/api/v2/users/me/keys/${id}`).set('Service-Session-Token', member.token))
        .status,
    ).toBe(404);

    const ownerKeyId = owner.token.split('-')[0]!;
    const foreign = await t
      .http()
      .delete(`/api/v2/users/me/keys/${ownerKeyId}`)
      .set('Service-Session-Token', member.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(NOT_FOUND);

    const victim = (await create(other.token, 'me', { token_name: 'victim' })).body.key as string;
    const byOwner = await t
      .http()
      .delete(`/api/v2/users/${other.user.name}/keys/${victim.split('-')[0]}`)
      .set('Service-Session-Token', owner.token);
    expect(byOwner.status).toBe(204);
  });

  it('an expired token gets 401 with the expiry time', async () => {
    const expired = await t.factories.token(member.user, { name: 'old', lifetimeSeconds: -60 });
    const res = await t.http().get('/api/v2/users/me').set('Service-Session-Token', expired);
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/^API key expired at ".+"\.$/);
  });

  it('GET tokenconfig and GET keys/{id}', async () => {
    const config = await get(member.token, 'me/keys/tokens/tokenconfig');
    expect(config.status).toBe(200);
    expect(config.body.max_token_lifetime).toBe(876_600 * HOUR_NS);
    const id = member.token.split('-')[0]!;
    const key = await get(member.token, `me/keys/${id}`);
    expect(key.status).toBe(200);
    expect(key.body.id).toBe(id);
  });
});
