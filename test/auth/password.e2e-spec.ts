import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

const NEW_PASSWORD = 'Fresh-Strong-Password-8!';

/** PUT /api/v2/users/{user}/password (reference B.6): the password rule guards it. */
describe('auth: PUT /api/v2/users/{user}/password', () => {
  let t: TestApp;
  let owner: CreatedUser;
  const put = (as: string, ref: string, body: object) =>
    t.http().put(`/api/v2/users/${ref}/password`).set('Service-Session-Token', as).send(body);
  const canLogin = async (user: CreatedUser, password: string) =>
    (await t.http().post('/api/v2/users/login').send({ email: user.user.email, password })).status === 201;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.factories.admin();
  });
  afterAll(() => t.close());

  it('401 without a credential', async () => {
    expect((await t.http().put('/api/v2/users/me/password').send({ password: NEW_PASSWORD })).status).toBe(
      401,
    );
  });

  it('self: old password required and checked, rule applied, not the same; success deletes every key', async () => {
    const u = await t.factories.user({ password: 'Current-Password-5!' });
    const missing = await put(u.token, 'me', {});
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('Validation failed.');
    const noOld = await put(u.token, 'me', { password: NEW_PASSWORD });
    expect(noOld.status).toBe(400);
    expect(noOld.body.message).toBe('Old password is required.');
    const weak = await put(u.token, 'me', { old_password: u.password, password: 'notstrong' });
    expect(weak.status).toBe(400);
    expect(weak.body).toEqual({
      message: 'Invalid password.',
      validations: [
        {
          field: 'password',
          detail:
            'insecure password, try including more special characters, using uppercase letters, using numbers or using a longer password',
        },
      ],
    });
    const wrongOld = await put(u.token, 'me', { old_password: 'Not-The-Password-1', password: NEW_PASSWORD });
    expect(wrongOld.status).toBe(400);
    expect(wrongOld.body.message).toBe('Old password is incorrect.');
    const same = await put(u.token, 'me', { old_password: u.password, password: u.password });
    expect(same.status).toBe(400);
    expect(same.body).toEqual({ message: 'New password cannot match old password.' });
    const ok = await put(u.token, 'me', { old_password: u.password, password: NEW_PASSWORD });
    expect(ok.status).toBe(204);
    expect((await t.http().get('/api/v2/users/me').set('Service-Session-Token', u.token)).status).toBe(401);
    expect(await canLogin(u, u.password)).toBe(false);
    expect(await canLogin(u, NEW_PASSWORD)).toBe(true);
  });

  it("others: a member gets 404; an owner changes a member's password without the old one", async () => {
    const a = await t.factories.user();
    const b = await t.factories.user();
    expect((await put(a.token, b.user.name, { password: NEW_PASSWORD })).status).toBe(404);
    expect((await put(owner.token, b.user.uuid, { password: NEW_PASSWORD })).status).toBe(204);
    expect(await canLogin(b, NEW_PASSWORD)).toBe(true);
  });

  it("only owners change an owner's password; non-password accounts get 400", async () => {
    const userAdmin = await t.factories.user();
    await t.dataSource.query(`UPDATE users SET site_roles = '{user-admin}' WHERE id = $1`, [
      userAdmin.user.id,
    ]);
    const res = await put(userAdmin.token, owner.user.name, { password: NEW_PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Forbidden.');
    const sso = await t.factories.user({ loginType: 'oidc' });
    const bad = await put(owner.token, sso.user.name, { password: NEW_PASSWORD });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Users without password login type cannot change their password.');
  });
});
