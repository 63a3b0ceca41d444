import { createServer, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { User } from '../../src/modules/identity/entities/user.entity';
import { OrganizationsService } from '../../src/modules/identity/organizations.service';
import { UsersService } from '../../src/modules/identity/users.service';
import { AdminPolicy } from '../../src/modules/admin-users/admin-policy';
import { NOTIFICATION_TEMPLATE_IDS } from '../../src/modules/notifications/template-ids';
import { AdminPolicyService, DatabaseGrantGraph } from '../../src/modules/admin-users/admin-policy.service';
import { AdminUsersRepository } from '../../src/modules/admin-users/admin-users.repository';
import { AccountAdministration } from '../../src/modules/identity/account-administration.service';
import { AdminUsersService } from '../../src/modules/admin-users/admin-users.service';
import { basic, BOOTSTRAP_ADMIN, type TestApp } from '../helpers/test-app';
import { TestSmtpServer } from '../notifications/helpers';
import { createAdminUsersTestApp } from './app';

const auth = (token: string) => ({ Authorization: `token ${token}` });
const strongPassword = () => `Pw-${Math.random().toString(16).slice(2)}-x`;

/** Search, create and edit of /api/v1/admin/users (issue 6, items 1-3 and 8). */
describe('admin users: search, create, edit', () => {
  let t: TestApp;
  let root: User;
  let rootToken: string;
  let a: { user: User; token: string };
  const events: { name: string; payload: unknown }[] = [];

  beforeAll(async () => {
    t = await createAdminUsersTestApp();
    root = (await t.app.get(UsersService).findByName(BOOTSTRAP_ADMIN.username))!;
    rootToken = await t.factories.token(root);
    a = await t.factories.admin({ username: 'adm-a', adminGrantedBy: root.id });
    const emitter = t.app.get(EventEmitter2);
    for (const name of ['user.created', 'user.updated', 'user.status_changed']) {
      emitter.on(name, (payload: unknown) => events.push({ name, payload }));
    }
  });
  afterAll(() => t.close());

  describe('GET /api/v1/admin/users', () => {
    beforeAll(async () => {
      await t.factories.user({ username: 'alice', fullName: 'Alice A' });
      await t.factories.user({ username: 'malice' });
      await t.factories.user({ username: 'bob', fullName: 'Alicia B' });
      await t.factories.user({ username: 'carl', email: 'ali@x.io' });
      await t.factories.user({
        username: 'dora',
        restricted: true,
        visibility: 'private',
        loginName: 'ext1',
      });
      await t.factories.user({ username: 'sus', status: 'suspended' });
      await t.factories.user({ username: 'prohi' });
      await t.dataSource.query(`UPDATE users SET prohibit_login = true WHERE lower_name = 'prohi'`);
      // Distinct times, so that sorting by them is observable: carl is the oldest, alice the least recently updated.
      await t.dataSource.query(
        `UPDATE users SET created_at = '1999-01-01T00:00:00Z' WHERE lower_name = 'carl'`,
      );
      await t.dataSource.query(
        `UPDATE users SET updated_at = '2001-01-01T00:00:00Z' WHERE lower_name = 'alice'`,
      );
      await t.dataSource.query(
        `UPDATE users SET updated_at = '2099-01-01T00:00:00Z' WHERE lower_name = 'bob'`,
      );
      await t.factories.organization('ali-org');
    });

    const logins = (res: { body: unknown }) => (res.body as { login: string }[]).map((u) => u.login);

    it('401 without credentials', async () => {
      const res = await t.http().get('/api/v1/admin/users');
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('token is required');
    });

    it('403 for a non-admin', async () => {
      const plain = await t.factories.user();
      const res = await t.http().get('/api/v1/admin/users').set(auth(plain.token));
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('user should be the site admin');
    });

    it('403 for an admin token without the admin scope', async () => {
      const token = await t.factories.token(a.user, { scopes: ['read:user'], name: 'readuser' });
      const res = await t.http().get('/api/v1/admin/users').set(auth(token));
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(
        /^token does not have at least one of required scope\(s\), required=\[read:admin\]/,
      );
    });

    it('200 with read:admin; only individuals, sorted by name, with paging headers', async () => {
      const token = await t.factories.token(a.user, { scopes: ['read:admin'], name: 'readadmin' });
      const res = await t.http().get('/api/v1/admin/users').query({ limit: 3 }).set(auth(token));
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(3);
      const total = Number(res.headers['x-total-count']);
      expect(total).toBeGreaterThanOrEqual(7);
      expect(res.headers.link).toContain('rel="next"');
      const all = await t.http().get('/api/v1/admin/users').query({ limit: 50 }).set(auth(rootToken));
      const logins = (all.body as { login: string }[]).map((u) => u.login);
      expect(logins).not.toContain('ali-org');
      expect(logins).not.toContain('default');
      expect([...logins].sort()).toEqual(logins);
      expect(all.body[0]).toHaveProperty('is_admin');
      expect(all.body[0]).toHaveProperty('login_name');
    });

    it.each([
      [{ sort: 'bogus' }, 'Invalid sort mode: "bogus"'],
      [{ sort: 'name', order: 'up' }, 'Invalid sort order: "up"'],
      [{ sort: 'bogus', order: 'up' }, 'Invalid sort order: "up"'],
      [{ sort: 'name', order: 'DESC' }, 'Invalid sort order: "DESC"'],
      [{ visibility: 'secret' }, 'Invalid visibility: "secret"'],
    ])('422 for %j', async (query, message) => {
      const res = await t.http().get('/api/v1/admin/users').query(query).set(auth(rootToken));
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(message);
    });

    it('order without sort is ignored (even an invalid one): the default is name ascending', async () => {
      const res = await t.http().get('/api/v1/admin/users').query({ order: 'up' }).set(auth(rootToken));
      expect(res.status).toBe(200);
      const desc = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ order: 'desc', limit: 50 })
        .set(auth(rootToken));
      expect(logins(desc)).toEqual([...logins(desc)].sort());
      expect(logins(desc)[0]).toBe('adm-a');
    });

    it.each([
      ['name', 'asc', (l: string[]) => l[0] === 'adm-a'],
      ['name', 'desc', (l: string[]) => l.at(-1) === 'adm-a'],
      ['created', 'asc', (l: string[]) => l[0] === 'carl'],
      ['created', 'desc', (l: string[]) => l.at(-1) === 'carl'],
      ['updated', 'asc', (l: string[]) => l[0] === 'alice' && l.at(-1) === 'bob'],
      ['updated', 'desc', (l: string[]) => l[0] === 'bob' && l.at(-1) === 'alice'],
    ])('sort=%s&order=%s', async (sort, order, check) => {
      const res = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ sort, order, limit: 50 })
        .set(auth(rootToken));
      expect(res.status).toBe(200);
      expect({ order: logins(res), ok: check(logins(res)) }).toEqual({ order: logins(res), ok: true });
      if (sort === 'name') {
        const sorted = [...logins(res)].sort();
        expect(logins(res)).toEqual(order === 'asc' ? sorted : sorted.reverse());
      }
    });

    it('sort=id follows creation order both ways', async () => {
      const asc = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ sort: 'id', limit: 50 })
        .set(auth(rootToken));
      const ids = (asc.body as { id: number }[]).map((u) => u.id);
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      const desc = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ sort: 'id', order: 'desc', limit: 50 })
        .set(auth(rootToken));
      expect((desc.body as { id: number }[]).map((u) => u.id)).toEqual([...ids].reverse());
    });

    it('q matches username, full name and email, case-insensitively', async () => {
      const res = await t.http().get('/api/v1/admin/users').query({ q: ' ALI ' }).set(auth(rootToken));
      expect(res.status).toBe(200);
      expect((res.body as { login: string }[]).map((u) => u.login).sort()).toEqual([
        'alice',
        'bob',
        'carl',
        'malice',
      ]);
    });

    it.each(['%', '_', '\\', 'a%e'])('q treats %s literally', async (q) => {
      const res = await t.http().get('/api/v1/admin/users').query({ q }).set(auth(rootToken));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      expect(res.headers['x-total-count']).toBe('0');
    });

    it('q matches an email domain and a part of a full name', async () => {
      const byMail = await t.http().get('/api/v1/admin/users').query({ q: 'X.IO' }).set(auth(rootToken));
      expect(logins(byMail)).toEqual(['carl']);
      const byName = await t.http().get('/api/v1/admin/users').query({ q: 'cia b' }).set(auth(rootToken));
      expect(logins(byName)).toEqual(['bob']);
    });

    it('boolean filters apply only when present', async () => {
      const admins = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_admin: 'true' })
        .set(auth(rootToken));
      expect((admins.body as { is_admin: boolean }[]).every((u) => u.is_admin)).toBe(true);
      expect((admins.body as { login: string }[]).map((u) => u.login).sort()).toEqual(['adm-a', 'admin']);
      const nonAdmins = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_admin: 'false', limit: 50 })
        .set(auth(rootToken));
      expect((nonAdmins.body as { is_admin: boolean }[]).some((u) => u.is_admin)).toBe(false);
      const everyone = await t.http().get('/api/v1/admin/users').query({ is_admin: '' }).set(auth(rootToken));
      expect(Number(everyone.headers['x-total-count'])).toBe(
        Number(admins.headers['x-total-count']) + Number(nonAdmins.headers['x-total-count']),
      );
      const restricted = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_restricted: 'true' })
        .set(auth(rootToken));
      expect((restricted.body as { login: string }[]).map((u) => u.login)).toEqual(['dora']);
      const priv = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ visibility: 'private' })
        .set(auth(rootToken));
      expect((priv.body as { login: string }[]).map((u) => u.login)).toEqual(['dora']);
      const twoFa = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_2fa_enabled: 'true' })
        .set(auth(rootToken));
      expect(twoFa.body).toEqual([]);
      const noTwoFa = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_2fa_enabled: 'false' })
        .set(auth(rootToken));
      expect(noTwoFa.headers['x-total-count']).toBe(everyone.headers['x-total-count']);
      const inactive = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_active: 'false' })
        .set(auth(rootToken));
      expect(logins(inactive)).toEqual(['sus']);
      expect(inactive.body[0].active).toBe(false);
      const active = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_active: 'true', limit: 50 })
        .set(auth(rootToken));
      expect(logins(active)).not.toContain('sus');
      expect(Number(active.headers['x-total-count'])).toBe(Number(everyone.headers['x-total-count']) - 1);
      const prohibited = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_prohibit_login: 'true' })
        .set(auth(rootToken));
      expect(logins(prohibited)).toEqual(['prohi']);
      expect(prohibited.body[0].prohibit_login).toBe(true);
      const unrestricted = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_restricted: 'false', limit: 50 })
        .set(auth(rootToken));
      expect(logins(unrestricted)).not.toContain('dora');
      expect(logins(unrestricted)).toContain('alice');
      // Go's ParseBool: 1/t/T/TRUE/True are true; anything else present is false.
      const one = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_prohibit_login: '1' })
        .set(auth(rootToken));
      expect(logins(one)).toEqual(['prohi']);
      const junk = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_prohibit_login: 'yes', limit: 50 })
        .set(auth(rootToken));
      expect(logins(junk)).not.toContain('prohi');
      expect(Number(junk.headers['x-total-count'])).toBe(Number(everyone.headers['x-total-count']) - 1);
      const combined = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ is_restricted: 'true', visibility: 'public' })
        .set(auth(rootToken));
      expect(combined.body).toEqual([]);
    });

    it('source_id and login_name filters', async () => {
      const none = await t.http().get('/api/v1/admin/users').query({ source_id: 7 }).set(auth(rootToken));
      expect(none.body).toEqual([]);
      const ext = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ login_name: 'ext1' })
        .set(auth(rootToken));
      expect((ext.body as { login: string }[]).map((u) => u.login)).toEqual(['dora']);
    });

    it('sort=created&order=desc pages newest first; limit clamps to 50', async () => {
      const res = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ sort: 'created', order: 'desc', limit: 2, page: 2 })
        .set(auth(rootToken));
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(2);
      const first = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ sort: 'created', order: 'desc', limit: 4 })
        .set(auth(rootToken));
      expect((res.body as { id: number }[]).map((u) => u.id)).toEqual(
        (first.body as { id: number }[]).slice(2, 4).map((u) => u.id),
      );
      const rels = (res.headers.link as string).split(',').map((part) => /rel="(\w+)"/.exec(part)![1]);
      expect(rels).toEqual(['next', 'last', 'first', 'prev']);
    });

    it('limit defaults to 30 and is clamped to 50; X-Total-Count is exact on full, short and empty pages (seeds 60 users)', async () => {
      await t.dataSource.query(
        `INSERT INTO users (name, lower_name, email, lower_email)
         SELECT 'bulk' || g, 'bulk' || g, 'bulk' || g || '@example.com', 'bulk' || g || '@example.com' FROM generate_series(1, 60) g`,
      );
      const [{ n }] = (await t.dataSource.query(
        `SELECT count(*)::int AS n FROM users WHERE type = 'individual'`,
      )) as { n: number }[];
      const big = await t.http().get('/api/v1/admin/users').query({ limit: 500 }).set(auth(rootToken));
      expect(big.body).toHaveLength(50);
      expect(Number(big.headers['x-total-count'])).toBe(n);
      const byDefault = await t.http().get('/api/v1/admin/users').set(auth(rootToken));
      expect(byDefault.body).toHaveLength(30);
      const zero = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ limit: 0, page: 0 })
        .set(auth(rootToken));
      expect(logins(zero)).toEqual(logins(byDefault));
      const last = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ limit: 50, page: 2 })
        .set(auth(rootToken));
      expect(last.body).toHaveLength(n - 50);
      expect(Number(last.headers['x-total-count'])).toBe(n);
      expect(last.headers.link).not.toContain('rel="next"');
      const beyond = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ limit: 50, page: 9 })
        .set(auth(rootToken));
      expect(beyond.body).toEqual([]);
      expect(Number(beyond.headers['x-total-count'])).toBe(n);
      const filtered = await t
        .http()
        .get('/api/v1/admin/users')
        .query({ q: 'bulk', limit: 7, page: 3 })
        .set(auth(rootToken));
      expect(filtered.body).toHaveLength(7);
      expect(filtered.headers['x-total-count']).toBe('60');
    });
  });

  describe('POST /api/v1/admin/users', () => {
    const post = (body: unknown) =>
      t
        .http()
        .post('/api/v1/admin/users')
        .set(auth(rootToken))
        .send(body as object);
    let n = 0;
    const valid = (extra: Record<string, unknown> = {}) => {
      n++;
      return { username: `new${n}`, email: `new${n}@example.com`, password: strongPassword(), ...extra };
    };

    it('201: active, must_change_password by default, not admin, in the default organization, user.created emitted', async () => {
      events.length = 0;
      const body = valid({ full_name: 'New One', login_name: 'n1' });
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        login: body.username,
        username: body.username,
        email: body.email,
        full_name: 'New One',
        active: true,
        is_admin: false,
        login_name: 'n1',
        visibility: 'public',
        restricted: false,
      });
      expect(res.headers['x-service-warning']).toBeUndefined();
      const stored = (await t.app.get(UsersService).findByName(body.username))!;
      expect(stored.mustChangePassword).toBe(true);
      expect(stored.status).toBe('active');
      const memberships = await t.app.get(OrganizationsService).membershipsOf(stored.id);
      expect(memberships.map((m) => m.organizationName)).toEqual(['default']);
      expect(await t.app.get(UsersService).verifyPassword(stored, body.password)).toBe(true);
      const created = events.find((e) => e.name === 'user.created');
      expect(created?.payload).toMatchObject({ userId: stored.id, createdBy: root.id, sendNotify: false });
    });

    it("201 body is Gitea's User, every field and no other (admin view)", async () => {
      const body = valid({ full_name: 'Shape', login_name: 'shape-ln' });
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(
        [
          'id',
          'login',
          'login_name',
          'source_id',
          'full_name',
          'email',
          'avatar_url',
          'html_url',
          'language',
          'is_admin',
          'last_login',
          'created',
          'restricted',
          'active',
          'prohibit_login',
          'location',
          'website',
          'description',
          'visibility',
          'followers_count',
          'following_count',
          'starred_repos_count',
          'username',
        ].sort(),
      );
      const stored = (await t.app.get(UsersService).findByName(body.username))!;
      expect(res.body).toEqual({
        id: Number(stored.id),
        login: body.username,
        username: body.username,
        login_name: 'shape-ln',
        source_id: 0,
        full_name: 'Shape',
        email: body.email,
        avatar_url: expect.any(String),
        html_url: `${t.config.publicUrl}${body.username}`,
        language: '',
        is_admin: false,
        last_login: '0001-01-01T00:00:00Z',
        created: stored.createdAt.toISOString(),
        restricted: false,
        active: true,
        prohibit_login: false,
        location: '',
        website: '',
        description: '',
        visibility: 'public',
        followers_count: 0,
        following_count: 0,
        starred_repos_count: 0,
      });
    });

    it('the created user must change the password before using the API (403), until cleared', async () => {
      const body = valid();
      expect((await post(body)).status).toBe(201);
      const res = await t
        .http()
        .get('/api/v1/user')
        .set('Authorization', basic(body.username, body.password));
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/^You must change your password\. Change it at: /);
      expect(res.body.url).toBeUndefined();
      const created = (await t.app.get(UsersService).findByName(body.username))!;
      const token = await t.factories.token(created);
      const byToken = await t.http().get('/api/v1/user').set(auth(token));
      expect(byToken.status).toBe(403);
      expect(byToken.body.message).toMatch(/^You must change your password\. Change it at: /);
      // Public routes too, as Gitea refuses every API call of a signed-in user who must change it.
      for (const path of ['/api/v1/version', `/api/v1/users/${body.username}`]) {
        const publicRoute = await t.http().get(path).set(auth(token));
        expect({ path, status: publicRoute.status }).toEqual({ path, status: 403 });
      }
      expect((await t.http().get('/api/v1/version')).status).toBe(200);
      const cleared = await t
        .http()
        .patch(`/api/v1/admin/users/${body.username}`)
        .set(auth(rootToken))
        .send({ login_name: '', source_id: 0, must_change_password: false });
      expect(cleared.status).toBe(422); // login_name is required
      const ok = await t
        .http()
        .patch(`/api/v1/admin/users/${body.username}`)
        .set(auth(rootToken))
        .send({ login_name: body.username, source_id: 0, must_change_password: false });
      expect(ok.status).toBe(200);
      const after = await t
        .http()
        .get('/api/v1/user')
        .set('Authorization', basic(body.username, body.password));
      expect(after.status).toBe(200);
    });

    it('changing the password oneself (Coder PUT /users/me/password) lifts the 403; an administrator setting it does not', async () => {
      const body = valid();
      expect((await post(body)).status).toBe(201);
      const created = (await t.app.get(UsersService).findByName(body.username))!;
      // Another user sets the password (Coder administrator route): the flag stays.
      const byAdmin = await t
        .http()
        .put(`/api/v2/users/${body.username}/password`)
        .set(auth(rootToken))
        .send({ password: 'Admin-Chosen-Password-42' });
      expect(byAdmin.status).toBe(204);
      const stillLocked = await t
        .http()
        .get('/api/v1/user')
        .set('Authorization', basic(body.username, 'Admin-Chosen-Password-42'));
      expect(stillLocked.status).toBe(403);
      expect(stillLocked.body.message).toMatch(/^You must change your password\. /);
      // The user changes it: the Gitea API opens.
      const self = await t
        .http()
        .put('/api/v2/users/me/password')
        .set('Authorization', basic(body.username, 'Admin-Chosen-Password-42'))
        .send({ old_password: 'Admin-Chosen-Password-42', password: 'My-Own-New-Password-42' });
      expect(self.status).toBe(204);
      expect((await t.app.get(UsersService).findById(created.id))!.mustChangePassword).toBe(false);
      const open = await t
        .http()
        .get('/api/v1/user')
        .set('Authorization', basic(body.username, 'My-Own-New-Password-42'));
      expect(open.status).toBe(200);
      expect(open.body.login).toBe(body.username);
    });

    it('a one-time-passcode password reset also lifts the 403', async () => {
      const body = valid();
      expect((await post(body)).status).toBe(201);
      let passcode = '';
      const listener = (payload: { passcode: string }) => {
        passcode = payload.passcode;
      };
      const emitter = t.app.get(EventEmitter2);
      emitter.on('auth.one_time_passcode_requested', listener);
      try {
        expect((await t.http().post('/api/v2/users/otp/request').send({ email: body.email })).status).toBe(
          204,
        );
        // The request runs detached from the answer (no account enumeration by timing): wait for it.
        const deadline = Date.now() + 10_000;
        while (passcode === '' && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
      } finally {
        emitter.off('auth.one_time_passcode_requested', listener);
      }
      expect(passcode).not.toBe('');
      const reset = await t
        .http()
        .post('/api/v2/users/otp/change-password')
        .send({ email: body.email, one_time_passcode: passcode, password: 'Reset-By-Passcode-42' });
      expect(reset.status).toBe(204);
      const open = await t
        .http()
        .get('/api/v1/user')
        .set('Authorization', basic(body.username, 'Reset-By-Passcode-42'));
      expect(open.status).toBe(200);
    });

    it('an admin who must change the password is refused on the admin routes too', async () => {
      const admin = await t.factories.admin({ mustChangePassword: true, adminGrantedBy: root.id });
      const res = await t.http().get('/api/v1/admin/users').set(auth(admin.token));
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/^You must change your password\. Change it at: /);
    });

    it('must_change_password false, restricted, visibility, created_at are applied', async () => {
      const body = valid({
        must_change_password: false,
        restricted: true,
        visibility: 'limited',
        created_at: '2020-01-02T03:04:05Z',
      });
      const res = await post(body);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        restricted: true,
        visibility: 'limited',
        created: '2020-01-02T03:04:05.000Z',
      });
      const stored = (await t.app.get(UsersService).findByName(body.username))!;
      expect(stored.mustChangePassword).toBe(false);
      expect(stored.updatedAt.toISOString()).toBe('2020-01-02T03:04:05.000Z');
    });

    it('send_notify emits user.created with sendNotify (the mail itself: "send_notify with SMTP" below)', async () => {
      events.length = 0;
      const body = valid({ send_notify: true });
      expect((await post(body)).status).toBe(201);
      expect(events.find((e) => e.name === 'user.created')?.payload).toMatchObject({
        username: body.username,
        sendNotify: true,
      });
    });

    it.each([
      ['missing username', { username: undefined }, '[Username]: Required'],
      ['bad username', { username: 'bad name' }, '[Username]: invalid username'],
      ['41-char username', { username: 'a'.repeat(41) }, '[Username]: MaxSize'],
      ['missing email', { email: undefined }, '[Email]: Required'],
      ['email without domain dot', { email: 'a@localhost' }, '[Email]: Email'],
      ['long full name', { full_name: 'é'.repeat(101) }, '[FullName]: MaxSize'],
      ['hidden visibility', { visibility: 'hidden' }, '[Visibility]: In'],
      [
        'username of wrong type',
        { username: 5 },
        '[]: json: cannot unmarshal number into Go struct field CreateUserOption.username of type string',
      ],
      ['source', { source_id: 5 }, 'login source does not exist [id: 5]'],
      [
        'created_at not a time',
        { created_at: 'yesterday' },
        '[]: parsing time "\\"yesterday\\"" as "\\"2006-01-02T15:04:05Z07:00\\"": cannot parse',
      ],
      ['reserved name', { username: 'Explore' }, 'name is reserved [name: explore]'],
      ['reserved pattern', { username: 'alice.keys' }, 'name pattern is not allowed [pattern: *.keys]'],
      [
        'email charset',
        { email: 'x@y.com\r\n' },
        'e-mail address contains unsupported character [email: x@y.com\r\n]',
      ],
      ['email leading dash', { email: '-x@y.com' }, 'e-mail invalid [email: -x@y.com]'],
      ['email double dot', { email: 'a..b@y.com' }, 'e-mail invalid [email: a..b@y.com]'],
    ])('422 %s', async (_label, extra, message) => {
      const res = await post(valid(extra as Record<string, unknown>));
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(message);
    });

    it('a full-name of 100 runes (200 UTF-16 units of astral characters) passes MaxSize', async () => {
      const res = await post(valid({ full_name: '😀'.repeat(100) }));
      expect(res.status).toBe(201);
    });

    it('422 for a taken name (other case, or an organization) and a taken email (other case)', async () => {
      const body = valid();
      expect((await post(body)).status).toBe(201);
      const dupName = await post(valid({ username: body.username.toUpperCase() }));
      expect(dupName.status).toBe(422);
      expect(dupName.body.message).toBe(`user already exists [name: ${body.username.toUpperCase()}]`);
      const orgName = await post(valid({ username: 'ali-org' }));
      expect(orgName.status).toBe(422);
      expect(orgName.body.message).toBe('user already exists [name: ali-org]');
      const dupEmail = await post(valid({ email: body.email.toUpperCase() }));
      expect(dupEmail.status).toBe(422);
      expect(dupEmail.body.message).toBe(`e-mail already in use [email: ${body.email.toUpperCase()}]`);
    });

    it.each([
      ['too short', 'short1', 'PasswordIsRequired'],
      ['missing', undefined, 'PasswordIsRequired'],
      ['common (local list)', 'password123', 'PasswordPwned'],
      ['common, other case', 'PassWord123', 'PasswordPwned'],
    ])('400 password %s', async (_label, password, message) => {
      const res = await post(valid({ password }));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    });

    it('the password is checked before the name', async () => {
      const res = await post(valid({ username: 'api', password: 'short' }));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('PasswordIsRequired');
    });

    it('POST by a non-admin is 403, without credentials 401', async () => {
      const plain = await t.factories.user();
      expect((await t.http().post('/api/v1/admin/users').set(auth(plain.token)).send(valid())).status).toBe(
        403,
      );
      expect((await t.http().post('/api/v1/admin/users').send(valid())).status).toBe(401);
    });
  });

  describe('PATCH /api/v1/admin/users/{username}', () => {
    const patch = (name: string, body: unknown, token = rootToken) =>
      t
        .http()
        .patch(`/api/v1/admin/users/${name}`)
        .set(auth(token))
        .send(body as object);

    it('404 for an unknown user (before binding)', async () => {
      const res = await patch('nobody', { website: 'ftp://x' });
      expect(res.status).toBe(404);
    });

    it('422 for an organization', async () => {
      const res = await patch('ali-org', { login_name: 'x' });
      expect(res.status).toBe(422);
      expect(res.body.message).toBe('ali-org is an organization not a user');
    });

    it.each([
      [{}, '[LoginName]: Required'],
      [{ login_name: 'x', website: 'ftp://x' }, '[Website]: Url'],
      [{ login_name: 'x', location: 'l'.repeat(51) }, '[Location]: MaxSize'],
      [{ login_name: 'x', visibility: 'secret' }, '[Visibility]: In'],
      [{ login_name: 'x', source_id: 9 }, 'login source does not exist [id: 9]'],
      [
        { login_name: 'x', admin: 'yes' },
        '[]: json: cannot unmarshal string into Go struct field EditUserOption.admin of type bool',
      ],
    ])('422 for %j', async (body, message) => {
      const user = await t.factories.user();
      const res = await patch(user.user.name, body);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(message);
    });

    it.each([
      [{ password: 'short' }, 'password must be at least 8 characters'],
      [{ password: 'password123' }, 'password has been pwned'],
      [{ email: '' }, 'e-mail invalid [email: ]'],
      [{ email: 'bad@@x' }, 'e-mail address contains unsupported character [email: bad@@x]'],
      [{ email: '-bad@x.io' }, 'e-mail invalid [email: -bad@x.io]'],
    ])('400 for %j', async (body, message) => {
      const user = await t.factories.user();
      const res = await patch(user.user.name, { login_name: 'x', ...body });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    });

    it('400 for an email used by another account; same email in other case is no change', async () => {
      const user = await t.factories.user();
      const other = await t.factories.user();
      const res = await patch(user.user.name, { login_name: 'x', email: other.user.email.toUpperCase() });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(`e-mail already in use [email: ${other.user.email.toUpperCase()}]`);
      const same = await patch(user.user.name, { login_name: 'x', email: user.user.email.toUpperCase() });
      expect(same.status).toBe(200);
      expect(same.body.email).toBe(user.user.email);
    });

    it('200 applies every field; max_repo_creation below -1 becomes -1; active false suspends', async () => {
      events.length = 0;
      const user = await t.factories.user();
      const password = strongPassword();
      const res = await patch(user.user.name, {
        login_name: 'ln',
        source_id: 0,
        email: `changed-${user.user.name}@example.com`,
        full_name: 'Changed',
        password,
        must_change_password: false,
        website: 'https://example.com',
        location: 'Earth',
        description: 'desc',
        active: false,
        allow_git_hook: true,
        allow_import_local: true,
        max_repo_creation: -5,
        prohibit_login: true,
        allow_create_organization: false,
        restricted: true,
        visibility: 'private',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        login_name: 'ln',
        email: `changed-${user.user.name}@example.com`,
        full_name: 'Changed',
        website: 'https://example.com',
        location: 'Earth',
        description: 'desc',
        active: false,
        prohibit_login: true,
        restricted: true,
        visibility: 'private',
      });
      const stored = (await t.app.get(UsersService).findByName(user.user.name))!;
      expect(stored).toMatchObject({
        status: 'suspended',
        allowGitHook: true,
        allowImportLocal: true,
        maxRepoCreation: -1,
        allowCreateOrganization: false,
        mustChangePassword: false,
      });
      expect(await t.app.get(UsersService).verifyPassword(stored, password)).toBe(true);
      expect(events.find((e) => e.name === 'user.status_changed')?.payload).toMatchObject({
        userId: stored.id,
        from: 'active',
        to: 'suspended',
        actorId: root.id,
      });
      expect(
        (events.find((e) => e.name === 'user.updated')?.payload as { changed: string[] }).changed,
      ).toEqual(expect.arrayContaining(['password', 'email', 'status', 'fullName']));
    });

    it('a password change ends browser sessions but keeps API tokens', async () => {
      const user = await t.factories.user();
      const session = await t.factories.token(user.user, { loginType: 'password', name: 'session' });
      expect((await t.http().get('/api/v1/user').set(auth(session))).status).toBe(200);
      expect((await patch(user.user.name, { login_name: '', password: strongPassword() })).status).toBe(422);
      expect((await patch(user.user.name, { login_name: 'x', password: strongPassword() })).status).toBe(200);
      expect((await t.http().get('/api/v1/user').set(auth(session))).status).toBe(401);
      expect((await t.http().get('/api/v1/user').set(auth(user.token))).status).toBe(200);
    });

    it('editing oneself ignores admin, active, restricted and prohibit_login', async () => {
      const res = await patch(
        a.user.name,
        {
          login_name: 'self',
          admin: false,
          active: false,
          restricted: true,
          prohibit_login: true,
          full_name: 'Me',
        },
        a.token,
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        is_admin: true,
        active: true,
        restricted: false,
        prohibit_login: false,
        full_name: 'Me',
      });
    });

    it('403 when editing the bootstrap administrator', async () => {
      const res = await patch(root.name, { login_name: 'x' }, a.token);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('the bootstrap administrator can only be changed by itself');
    });

    it('403 when editing an administrator outside the chain; the grantor may', async () => {
      const x = await t.factories.admin({ adminGrantedBy: root.id });
      const b = await t.factories.admin({ adminGrantedBy: a.user.id });
      const res = await patch(b.user.name, { login_name: 'x' }, x.token);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(`administrator ${b.user.name} is outside your management chain`);
      expect((await patch(b.user.name, { login_name: 'x' }, a.token)).status).toBe(200);
    });

    it('promotion records the grantor; demotion by the grantor applies (S off)', async () => {
      const u = await t.factories.user();
      const promoted = await patch(u.user.name, { login_name: 'x', admin: true }, a.token);
      expect(promoted.status).toBe(200);
      expect(promoted.body.is_admin).toBe(true);
      const stored = (await t.app.get(UsersService).findByName(u.user.name))!;
      expect(stored.adminGrantedBy).toBe(a.user.id);
      const demoted = await patch(u.user.name, { login_name: 'x', admin: false }, a.token);
      expect(demoted.body.is_admin).toBe(false);
      const after = (await t.app.get(UsersService).findByName(u.user.name))!;
      expect(after.adminGrantedBy).toBe(a.user.id); // kept for the inheritance walk
    });

    it('400 when demoting the last administrator (service level: unreachable over HTTP while the bootstrap admin exists)', async () => {
      const b = await t.factories.admin({ adminGrantedBy: a.user.id });
      const others: { id: string }[] = await t.dataSource.query(
        `SELECT id FROM users WHERE is_admin AND id <> $1`,
        [b.user.id],
      );
      await t.dataSource.query(`UPDATE users SET is_admin = false WHERE id = ANY($1)`, [
        others.map((r) => r.id),
      ]);
      // grantor-only decides from the recorded grantor alone, so the caller's (now cleared) flag is not re-read.
      const policies = t.app.get(AdminPolicyService);
      const spy = jest
        .spyOn(policies, 'for')
        .mockImplementation(
          (manager) =>
            new AdminPolicy(
              { superAdminEnabled: false, policy: 'grantor-only' },
              new DatabaseGrantGraph(
                manager ?? t.dataSource.manager,
                t.app.get(AccountAdministration),
                t.app.get(AdminUsersRepository),
              ),
            ),
        );
      try {
        const service = t.app.get(AdminUsersService);
        const target = (await t.app.get(UsersService).findById(b.user.id))!;
        await expect(service.edit(a.user, target, { login_name: 'x', admin: false })).rejects.toMatchObject({
          kind: 'bad_request',
          message: `can not delete the last admin user [uid: ${b.user.id}]`,
        });
        await expect(service.delete(a.user, target, true)).rejects.toMatchObject({
          kind: 'invalid',
          message: `can not delete the last admin user [uid: ${b.user.id}]`,
        });
        expect((await t.app.get(UsersService).findById(b.user.id))!.isAdmin).toBe(true);
        // Spec order: what the user owns (422 unless purge) comes before the last administrator (422);
        // with purge the refusal rolls the purge back.
        const org = await t.factories.organization(undefined, b.user.id);
        await expect(service.delete(a.user, target, false)).rejects.toMatchObject({
          kind: 'invalid',
          message: `user still has membership of organizations [uid: ${b.user.id}]`,
        });
        await expect(service.delete(a.user, target, true)).rejects.toMatchObject({
          kind: 'invalid',
          message: `can not delete the last admin user [uid: ${b.user.id}]`,
        });
        expect(await t.app.get(OrganizationsService).findByName(org.name)).not.toBeNull();
        expect(await t.app.get(UsersService).findById(b.user.id)).not.toBeNull();
      } finally {
        spy.mockRestore();
        await t.dataSource.query(`UPDATE users SET is_admin = true WHERE id = ANY($1)`, [
          others.map((r) => r.id),
        ]);
      }
    });
  });
});

/** Configuration-dependent rules: complexity, range API, domain lists, super administrators. */
describe('admin users: configured policies', () => {
  let range: Server;
  let rangeUrl: string;
  let leakedHash = '';

  beforeAll(async () => {
    range = createServer((req, res) => {
      const prefix = (req.url ?? '').split('/').pop() ?? '';
      const lines = ['0000000000000000000000000000000000A:0'];
      if (leakedHash.startsWith(prefix)) lines.push(`${leakedHash.slice(5)}:42`);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(lines.join('\r\n'));
    });
    await new Promise<void>((resolve) => range.listen(0, '127.0.0.1', resolve));
    rangeUrl = `http://127.0.0.1:${(range.address() as AddressInfo).port}/range/`;
  });
  afterAll(() => new Promise<void>((resolve) => range.close(() => resolve())));

  describe('complexity, range API and domain lists', () => {
    let t: TestApp;
    let token: string;
    beforeAll(async () => {
      t = await createAdminUsersTestApp({
        PASSWORD_COMPLEXITY: 'lower,upper,digit,spec',
        PASSWORD_CHECK_PWNED: rangeUrl,
        EMAIL_DOMAIN_BLOCKLIST: '*.spam.io',
      });
      token = await t.factories.token((await t.app.get(UsersService).findByName('admin'))!);
    });
    afterAll(() => t.close());
    const post = (body: Record<string, unknown>) =>
      t.http().post('/api/v1/admin/users').set(auth(token)).send(body);

    it('400 PasswordComplexity on create, "password not complex enough" on edit', async () => {
      const res = await post({ username: 'cx1', email: 'cx1@example.com', password: 'abcdefgh' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('PasswordComplexity');
      const user = await t.factories.user();
      const edit = await t
        .http()
        .patch(`/api/v1/admin/users/${user.user.name}`)
        .set(auth(token))
        .send({ login_name: 'x', password: 'abcdefgh' });
      expect(edit.status).toBe(400);
      expect(edit.body.message).toBe('password not complex enough');
    });

    it('a space counts as a special character', async () => {
      const res = await post({ username: 'cx2', email: 'cx2@example.com', password: 'Abc defg1x' });
      expect(res.status).toBe(201);
    });

    it('400 PasswordPwned when the range API lists the password', async () => {
      const password = 'Leaked Pass 1';
      leakedHash = createHash('sha1').update(password).digest('hex').toUpperCase();
      const res = await post({ username: 'cx3', email: 'cx3@example.com', password });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('PasswordPwned');
      const user = await t.factories.user();
      const edit = await t
        .http()
        .patch(`/api/v1/admin/users/${user.user.name}`)
        .set(auth(token))
        .send({ login_name: 'x', password });
      expect(edit.status).toBe(400);
      expect(edit.body.message).toBe('password has been pwned');
    });

    it('blocklist: created with X-Service-Warning; a non-matching domain gets none', async () => {
      const blocked = await post({ username: 'cx4', email: 'u@a.spam.io', password: 'Strong Pass 4' });
      expect(blocked.status).toBe(201);
      expect(blocked.headers['x-service-warning']).toBe(
        'the domain of user email u@a.spam.io conflicts with EMAIL_DOMAIN_ALLOWLIST or EMAIL_DOMAIN_BLOCKLIST',
      );
      const fine = await post({ username: 'cx5', email: 'u@spam.io', password: 'Strong Pass 5' });
      expect(fine.status).toBe(201);
      expect(fine.headers['x-service-warning']).toBeUndefined();
    });

    it('edit enforces the domain list (400) and changes nothing', async () => {
      const user = await t.factories.user({ fullName: 'Before' });
      const res = await t
        .http()
        .patch(`/api/v1/admin/users/${user.user.name}`)
        .set(auth(token))
        .send({ login_name: 'x', full_name: 'After', email: 'v@b.spam.io' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(
        'the domain of user email v@b.spam.io conflicts with EMAIL_DOMAIN_ALLOWLIST or EMAIL_DOMAIN_BLOCKLIST',
      );
      expect((await t.app.get(UsersService).findByName(user.user.name))!.fullName).toBe('Before');
    });
  });

  describe('range API down, allowlist', () => {
    let t: TestApp;
    let token: string;
    beforeAll(async () => {
      t = await createAdminUsersTestApp({
        PASSWORD_CHECK_PWNED: 'http://127.0.0.1:1/range/',
        EMAIL_DOMAIN_ALLOWLIST: 'example.org',
      });
      token = await t.factories.token((await t.app.get(UsersService).findByName('admin'))!);
    });
    afterAll(() => t.close());

    it('create answers PasswordPwned, edit names the failure', async () => {
      const res = await t
        .http()
        .post('/api/v1/admin/users')
        .set(auth(token))
        .send({ username: 'd1', email: 'd1@example.org', password: 'Strong Pass 1' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('PasswordPwned');
      const user = await t.factories.user();
      const edit = await t
        .http()
        .patch(`/api/v1/admin/users/${user.user.name}`)
        .set(auth(token))
        .send({ login_name: 'x', password: 'Strong Pass 1' });
      expect(edit.status).toBe(400);
      expect(edit.body.message).toMatch(/^using Have-I-Been-Pwned service failed: /);
    });
  });

  describe('allowlist with checks off', () => {
    let t: TestApp;
    let token: string;
    beforeAll(async () => {
      t = await createAdminUsersTestApp({
        PASSWORD_CHECK_PWNED: 'off',
        EMAIL_DOMAIN_ALLOWLIST: 'example.org',
        PASSWORD_MIN_LENGTH: '12',
      });
      token = await t.factories.token((await t.app.get(UsersService).findByName('admin'))!);
    });
    afterAll(() => t.close());

    it('email outside the allowlist: created with the warning; common password accepted when the check is off', async () => {
      const res = await t
        .http()
        .post('/api/v1/admin/users')
        .set(auth(token))
        .send({ username: 'e1', email: 'u@example1.org', password: 'password1234' });
      expect(res.status).toBe(201);
      expect(res.headers['x-service-warning']).toBe(
        'the domain of user email u@example1.org conflicts with EMAIL_DOMAIN_ALLOWLIST or EMAIL_DOMAIN_BLOCKLIST',
      );
      const inside = await t
        .http()
        .post('/api/v1/admin/users')
        .set(auth(token))
        .send({ username: 'e2', email: 'u@EXAMPLE.org', password: 'password1234' });
      expect(inside.status).toBe(201);
      expect(inside.headers['x-service-warning']).toBeUndefined();
    });

    it('PASSWORD_MIN_LENGTH counts bytes', async () => {
      const short = await t
        .http()
        .post('/api/v1/admin/users')
        .set(auth(token))
        .send({ username: 'e3', email: 'e3@example.org', password: 'elevenchars' });
      expect(short.body.message).toBe('PasswordIsRequired');
      const bytes = await t
        .http()
        .post('/api/v1/admin/users')
        .set(auth(token))
        .send({ username: 'e4', email: 'e4@example.org', password: 'ééééééé' });
      expect(bytes.status).toBe(201);
      const user = await t.factories.user({ email: 'e5@example.org' });
      const edit = await t
        .http()
        .patch(`/api/v1/admin/users/${user.user.name}`)
        .set(auth(token))
        .send({ login_name: 'x', password: 'elevenchars' });
      expect(edit.body.message).toBe('password must be at least 12 characters');
    });
  });
});

/** send_notify through NotificationsModule to a real SMTP server (issue 6, item 2). */
describe('admin users: send_notify with SMTP', () => {
  const smtp = new TestSmtpServer();
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    const smtpUrl = await smtp.start();
    t = await createAdminUsersTestApp({ SMTP_URL: smtpUrl, NOTIFICATIONS_METHOD: 'smtp' });
    token = await t.factories.token((await t.app.get(UsersService).findByName('admin'))!);
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const registrationRows = async (userId: string) =>
    (
      (await t.dataSource.query(
        'SELECT count(*)::int AS n FROM notification_messages WHERE user_id = $1 AND template_id = $2',
        [userId, NOTIFICATION_TEMPLATE_IDS.accountRegistration],
      )) as { n: number }[]
    )[0]!.n;

  it('send_notify=true mails the registration message to the new user; without it nothing is queued', async () => {
    const res = await t.http().post('/api/v1/admin/users').set(auth(token)).send({
      username: 'welcome1',
      email: 'welcome1@example.com',
      password: 'Welcome Pass 1',
      send_notify: true,
    });
    expect(res.status).toBe(201);
    const user = (await t.app.get(UsersService).findByName('welcome1'))!;
    expect(await registrationRows(user.id)).toBe(1);
    const deadline = Date.now() + 20_000;
    while (!smtp.mails.some((m) => m.to.includes('welcome1@example.com')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const mail = smtp.mails.find((m) => m.to.includes('welcome1@example.com'));
    expect(mail?.subject).toBe('Welcome to devplane');
    expect(mail?.raw).toContain('welcome1');

    const silent = await t
      .http()
      .post('/api/v1/admin/users')
      .set(auth(token))
      .send({ username: 'welcome2', email: 'welcome2@example.com', password: 'Welcome Pass 2' });
    expect(silent.status).toBe(201);
    expect(await registrationRows((await t.app.get(UsersService).findByName('welcome2'))!.id)).toBe(0);
  });
});
