import { EventEmitter2 } from '@nestjs/event-emitter';
import { NOTIFICATION_TEMPLATE_IDS } from '../../src/modules/notifications/template-ids';
import { OwnedResourcesRegistry } from '../../src/modules/identity/owned-resources.registry';
import type { User } from '../../src/modules/identity/entities/user.entity';
import { OrganizationsService } from '../../src/modules/identity/organizations.service';
import { UsersService } from '../../src/modules/identity/users.service';
import { BOOTSTRAP_ADMIN, type TestApp } from '../helpers/test-app';
import { createAdminUsersTestApp } from './app';

const auth = (token: string) => ({ Authorization: `token ${token}` });

interface Actor {
  user: User;
  token: string;
}

/** DELETE and rename of /api/v1/admin/users/{username}, and the policy wired to real data (issue 6, items 4, 5, 7). */
describe('admin users: delete and rename (S off, grantor-inheritance)', () => {
  let t: TestApp;
  let root: User;
  let rootToken: string;
  let a: Actor;
  const events: { name: string; payload: unknown }[] = [];
  const del = (name: string, token: string, query = '') =>
    t.http().delete(`/api/v1/admin/users/${name}${query}`).set(auth(token));
  const exists = async (id: string) => (await t.app.get(UsersService).findById(id)) !== null;

  beforeAll(async () => {
    t = await createAdminUsersTestApp();
    root = (await t.app.get(UsersService).findByName(BOOTSTRAP_ADMIN.username))!;
    rootToken = await t.factories.token(root);
    a = await t.factories.admin({ adminGrantedBy: root.id });
    const emitter = t.app.get(EventEmitter2);
    for (const name of ['user.deleted', 'user.renamed'])
      emitter.on(name, (payload: unknown) => events.push({ name, payload }));
  });
  afterAll(() => t.close());

  it('401 without credentials, 403 for a non-admin', async () => {
    const u = await t.factories.user();
    expect((await t.http().delete(`/api/v1/admin/users/${u.user.name}`)).status).toBe(401);
    const plain = await t.factories.user();
    const res = await del(u.user.name, plain.token);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('user should be the site admin');
  });

  it('403 for an admin token with only read:admin', async () => {
    const u = await t.factories.user();
    const token = await t.factories.token(a.user, { scopes: ['read:admin'], name: 'ro' });
    const res = await del(u.user.name, token);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/required=\[write:admin\]/);
  });

  it('404 for an unknown user', async () => {
    const res = await del('nobody', rootToken);
    expect(res.status).toBe(404);
  });

  it('422 for an organization', async () => {
    const org = await t.factories.organization();
    const res = await del(org.name, rootToken);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(`${org.name} is an organization not a user`);
  });

  it('403 for oneself', async () => {
    const res = await del(a.user.name, a.token);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('you cannot delete yourself');
  });

  it('403 for the bootstrap administrator', async () => {
    const res = await del(root.name, a.token);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('the bootstrap administrator cannot be deleted');
  });

  it('403 for an administrator outside the management chain', async () => {
    const x = await t.factories.admin({ adminGrantedBy: root.id });
    const b = await t.factories.admin({ adminGrantedBy: a.user.id });
    const res = await del(b.user.name, x.token);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(`administrator ${b.user.name} is outside your management chain`);
    const n = await t.factories.admin(); // no recorded grantor: nobody's but a super administrator's
    expect((await del(n.user.name, a.token)).status).toBe(403);
  });

  it('204 for a plain user: the default-organization membership does not block; user.deleted carries actor and purge', async () => {
    events.length = 0;
    const u = await t.factories.user();
    const res = await del(u.user.name, a.token);
    expect(res.status).toBe(204);
    expect(await exists(u.user.id)).toBe(false);
    expect(events).toContainEqual({
      name: 'user.deleted',
      payload: {
        userId: u.user.id,
        uuid: u.user.uuid,
        username: u.user.name,
        purge: false,
        actorId: a.user.id,
      },
    });
    expect((await t.http().get(`/api/v1/users/${u.user.name}`).set(auth(rootToken))).status).toBe(404);
  });

  it('422 while owning an organization; a plain (non-owner) membership does not block; purge removes it', async () => {
    const u = await t.factories.user();
    const co = await t.factories.user();
    const owned = await t.factories.organization(undefined, u.user.id);
    const shared = await t.factories.organization(undefined, u.user.id);
    await t.app.get(OrganizationsService).addMember(shared.id, co.user.id, ['organization-admin'], true);
    const res = await del(u.user.name, a.token);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(`user still has membership of organizations [uid: ${u.user.id}]`);
    events.length = 0;
    const purged = await del(u.user.name, a.token, '?purge=true');
    expect(purged.status).toBe(204);
    expect(await exists(u.user.id)).toBe(false);
    // The organization it owned alone is gone; the one with another owner stays.
    expect(await t.app.get(OrganizationsService).findByName(owned.name)).toBeNull();
    expect(await t.app.get(OrganizationsService).findByName(shared.name)).not.toBeNull();
    expect(events.find((e) => e.name === 'user.deleted')?.payload).toMatchObject({
      purge: true,
      actorId: a.user.id,
    });

    const member = await t.factories.user();
    await t.app.get(OrganizationsService).addMember(shared.id, member.user.id);
    expect((await del(member.user.name, a.token)).status).toBe(204);
  });

  it.each(['1', 't', 'T', 'TRUE', 'True'])('purge=%s is true; junk is false', async (value) => {
    const u = await t.factories.user();
    await t.factories.organization(undefined, u.user.id);
    expect((await del(u.user.name, a.token, '?purge=yes')).status).toBe(422);
    expect((await del(u.user.name, a.token, `?purge=${value}`)).status).toBe(204);
  });

  it('owned repositories and packages (registered by other modules) block in the spec order; purge asks them to purge', async () => {
    const registry = t.app.get(OwnedResourcesRegistry);
    // Stand-ins with chosen counts replace the real handlers (the repositories module registers one).
    const real = registry
      .list()
      .filter((handler) => handler.kind === 'repositories' || handler.kind === 'packages');
    for (const handler of real) registry.unregister(handler.kind);
    const owned = new Map<string, { repositories: number; packages: number }>();
    const purged: string[] = [];
    for (const kind of ['packages', 'repositories'] as const) {
      registry.register({
        kind,
        message: (uid) => `user still has ownership of ${kind} [uid: ${uid}]`,
        count: async (userId) => owned.get(userId)?.[kind] ?? 0,
        purge: async (userId, tx) => {
          await tx.manager.query('SELECT 1');
          purged.push(`${kind}:${userId}`);
        },
      });
    }
    try {
      const u = await t.factories.user();
      await t.factories.organization(undefined, u.user.id);
      owned.set(u.user.id, { repositories: 2, packages: 1 });
      let res = await del(u.user.name, a.token);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(`user still has ownership of repositories [uid: ${u.user.id}]`);
      owned.set(u.user.id, { repositories: 0, packages: 1 });
      res = await del(u.user.name, a.token);
      expect(res.body.message).toBe(`user still has membership of organizations [uid: ${u.user.id}]`);
      res = await del(u.user.name, a.token, '?purge=1');
      expect(res.status).toBe(204);
      expect(purged).toEqual([`repositories:${u.user.id}`, `packages:${u.user.id}`]);

      const p = await t.factories.user();
      owned.set(p.user.id, { repositories: 0, packages: 3 });
      res = await del(p.user.name, a.token);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(`user still has ownership of packages [uid: ${p.user.id}]`);
    } finally {
      registry.unregister('packages');
      registry.unregister('repositories');
      for (const handler of real) registry.register(handler);
    }
  });

  it('grant chain: deleting b leaves a tombstone, and c is then managed by a (three levels)', async () => {
    const b = await t.factories.admin({ adminGrantedBy: a.user.id });
    const c = await t.factories.admin({ adminGrantedBy: b.user.id });
    // a cannot act on c while b is a live administrator.
    const blocked = await t
      .http()
      .patch(`/api/v1/admin/users/${c.user.name}`)
      .set(auth(a.token))
      .send({ login_name: 'x' });
    expect(blocked.status).toBe(403);
    expect((await del(b.user.name, a.token)).status).toBe(204);
    const tombstones = await t.dataSource.query(
      'SELECT admin_granted_by FROM admin_grant_tombstones WHERE user_id = $1',
      [b.user.id],
    );
    expect(tombstones).toEqual([{ admin_granted_by: a.user.id }]);
    const edit = await t
      .http()
      .patch(`/api/v1/admin/users/${c.user.name}`)
      .set(auth(a.token))
      .send({ login_name: 'x' });
    expect(edit.status).toBe(200);
    // root is c's effective grantor only through a: a live a keeps root out.
    expect(
      (
        await t
          .http()
          .patch(`/api/v1/admin/users/${c.user.name}`)
          .set(auth(rootToken))
          .send({ login_name: 'x' })
      ).status,
    ).toBe(403);
    expect((await del(c.user.name, a.token)).status).toBe(204);
  });

  it('grant chain: demoting b lets a manage c (inheritance)', async () => {
    const b = await t.factories.admin({ adminGrantedBy: a.user.id });
    const c = await t.factories.admin({ adminGrantedBy: b.user.id });
    const demote = await t
      .http()
      .patch(`/api/v1/admin/users/${b.user.name}`)
      .set(auth(a.token))
      .send({ login_name: 'x', admin: false });
    expect(demote.status).toBe(200);
    expect(demote.body.is_admin).toBe(false);
    const stored = (await t.app.get(UsersService).findById(b.user.id))!;
    expect(stored.siteRoles).not.toContain('owner'); // Coder's owner role goes with the Gitea admin flag
    expect(stored.adminGrantedBy).toBe(a.user.id);
    expect((await del(c.user.name, a.token)).status).toBe(204);
  });

  it('when no recipient of new-account notifications would remain, the caller becomes one', async () => {
    const templateId = NOTIFICATION_TEMPLATE_IDS.userAccountCreated;
    const recipients: { id: string }[] = await t.dataSource.query(
      `SELECT id FROM users WHERE type = 'individual' AND status = 'active'
          AND (is_admin OR 'owner' = ANY(site_roles) OR 'user-admin' = ANY(site_roles))`,
    );
    const disable = (ids: string[]) =>
      t.dataSource.query(
        `INSERT INTO notification_preferences (user_id, template_id, disabled) SELECT unnest($1::bigint[]), $2, true
         ON CONFLICT (user_id, template_id) DO UPDATE SET disabled = true`,
        [ids, templateId],
      );
    const preference = async (id: string) =>
      (
        (await t.dataSource.query(
          'SELECT disabled FROM notification_preferences WHERE user_id = $1 AND template_id = $2',
          [id, templateId],
        )) as { disabled: boolean }[]
      )[0]?.disabled;
    // Every administrator but b has the template disabled: deleting b leaves nobody, so a (the caller) is enabled again.
    const b = await t.factories.admin({ adminGrantedBy: a.user.id });
    await disable(recipients.map((r) => r.id));
    try {
      const u = await t.factories.user();
      expect((await del(u.user.name, a.token)).status).toBe(204);
      expect(await preference(a.user.id)).toBe(true); // b still receives them: nothing changes
      expect((await del(b.user.name, a.token)).status).toBe(204);
      expect(await preference(a.user.id)).toBe(false);
      expect(await preference(root.id)).toBe(true);
    } finally {
      await t.dataSource.query('DELETE FROM notification_preferences WHERE template_id = $1', [templateId]);
    }
  });

  describe('rename', () => {
    const rename = (name: string, body: unknown, token = rootToken) =>
      t
        .http()
        .post(`/api/v1/admin/users/${name}/rename`)
        .set(auth(token))
        .send(body as object);

    it('422 [NewName]: Required', async () => {
      const u = await t.factories.user();
      const res = await rename(u.user.name, {});
      expect(res.status).toBe(422);
      expect(res.body.message).toBe('[NewName]: Required');
    });

    it('404 unknown, 403 non-admin, 401 anonymous', async () => {
      expect((await rename('nobody', { new_username: 'x1' })).status).toBe(404);
      const plain = await t.factories.user();
      const res = await rename(plain.user.name, { new_username: 'x2' }, plain.token);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('user should be the site admin');
      expect(
        (await t.http().post(`/api/v1/admin/users/${plain.user.name}/rename`).send({ new_username: 'x3' }))
          .status,
      ).toBe(401);
    });

    it('422 for an organization target', async () => {
      const org = await t.factories.organization();
      const res = await rename(org.name, { new_username: 'x4' });
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(`${org.name} is an organization not a user`);
    });

    it.each([
      ['user', 'name is reserved [name: user]'],
      ['x.atom', 'name pattern is not allowed [pattern: *.atom]'],
      [
        'bad name',
        'name is invalid [bad name]: must be valid alpha or numeric or dash(-_) or dot characters',
      ],
      ['a--b', 'name is invalid [a--b]: must be valid alpha or numeric or dash(-_) or dot characters'],
    ])('422 for %s', async (newName, message) => {
      const u = await t.factories.user();
      const res = await rename(u.user.name, { new_username: newName });
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(message);
    });

    it('422 for a name taken by a user or an organization (any case)', async () => {
      const u = await t.factories.user();
      const other = await t.factories.user();
      const org = await t.factories.organization();
      let res = await rename(u.user.name, { new_username: other.user.name.toUpperCase() });
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(`user already exists [name: ${other.user.name.toUpperCase()}]`);
      res = await rename(u.user.name, { new_username: org.name });
      expect(res.body.message).toBe(`user already exists [name: ${org.name}]`);
    });

    it('204: same name is a no-op, a case change updates the name, a rename emits user.renamed and frees the old name', async () => {
      const u = await t.factories.user();
      expect((await rename(u.user.name, { new_username: u.user.name })).status).toBe(204);
      expect((await rename(u.user.name, { new_username: u.user.name.toUpperCase() })).status).toBe(204);
      expect((await t.app.get(UsersService).findById(u.user.id))!.name).toBe(u.user.name.toUpperCase());
      events.length = 0;
      const newName = `renamed-${u.user.id}`;
      expect((await rename(u.user.name, { new_username: newName })).status).toBe(204);
      expect(events).toContainEqual({
        name: 'user.renamed',
        payload: { userId: u.user.id, from: u.user.name.toUpperCase(), to: newName },
      });
      expect((await t.http().get(`/api/v1/users/${u.user.name}`).set(auth(rootToken))).status).toBe(404);
      expect((await t.http().get(`/api/v1/users/${newName}`).set(auth(rootToken))).body.login).toBe(newName);
    });

    it('rename is not subject to the management policy', async () => {
      const x = await t.factories.admin({ adminGrantedBy: root.id });
      const b = await t.factories.admin({ adminGrantedBy: a.user.id });
      expect((await rename(b.user.name, { new_username: `r-${b.user.id}` }, x.token)).status).toBe(204);
    });
  });
});

/** SUPER_ADMIN_ENABLED with the three policies: the flag decisions over HTTP and the super-admin delete rules. */
describe('admin users: super administrators', () => {
  describe.each(['grantor-inheritance', 'grantor-only', 'super-admins-only'] as const)(
    'policy %s',
    (policy) => {
      let t: TestApp;
      let root: User;
      let rootToken: string;
      let a: Actor;

      beforeAll(async () => {
        t = await createAdminUsersTestApp({ SUPER_ADMIN_ENABLED: 'true', ADMIN_MANAGEMENT_POLICY: policy });
        root = (await t.app.get(UsersService).findByName(BOOTSTRAP_ADMIN.username))!;
        rootToken = await t.factories.token(root);
        a = await t.factories.admin({ adminGrantedBy: root.id });
      });
      afterAll(() => t.close());

      const patch = (name: string, body: object, token: string) =>
        t
          .http()
          .patch(`/api/v1/admin/users/${name}`)
          .set(auth(token))
          .send({ login_name: 'x', ...body });

      it('the bootstrap administrator is a super administrator', () => {
        expect(root.isSuperAdmin).toBe(true);
        expect(root.hasBootstrapGrant).toBe(true);
      });

      it('an administrator promotes a user: applied under the grantor policies, silently ignored otherwise', async () => {
        const u = await t.factories.user();
        const res = await patch(u.user.name, { admin: true }, a.token);
        expect(res.status).toBe(200);
        const stored = (await t.app.get(UsersService).findById(u.user.id))!;
        if (policy === 'super-admins-only') {
          expect(res.body.is_admin).toBe(false);
          expect(stored.adminGrantedBy).toBeNull();
        } else {
          expect(res.body.is_admin).toBe(true);
          expect(stored.adminGrantedBy).toBe(a.user.id);
        }
      });

      it('a super administrator always changes the flag', async () => {
        const u = await t.factories.user();
        expect((await patch(u.user.name, { admin: true }, rootToken)).body.is_admin).toBe(true);
        expect((await patch(u.user.name, { admin: false }, rootToken)).body.is_admin).toBe(false);
      });

      it('403 when a non-super edits a super administrator', async () => {
        const s = await t.factories.admin({ adminGrantedBy: a.user.id, isSuperAdmin: true });
        const res = await patch(s.user.name, {}, a.token);
        expect(res.status).toBe(403);
        expect(res.body.message).toBe('only a super administrator can change a super administrator');
      });

      it('403 when deleting the administrator who granted the caller', async () => {
        const tAdmin = await t.factories.admin({ adminGrantedBy: root.id });
        const s2 = await t.factories.admin({ adminGrantedBy: tAdmin.user.id, isSuperAdmin: true });
        const res = await t.http().delete(`/api/v1/admin/users/${tAdmin.user.name}`).set(auth(s2.token));
        expect(res.status).toBe(403);
        expect(res.body.message).toBe('you cannot delete the administrator who granted your privileges');
      });

      it('403 when a non-super deletes a super administrator it granted (D7), 204 for a super caller', async () => {
        const q = await t.factories.admin({ adminGrantedBy: a.user.id, isSuperAdmin: true });
        const res = await t.http().delete(`/api/v1/admin/users/${q.user.name}`).set(auth(a.token));
        expect(res.status).toBe(403);
        expect(res.body.message).toBe(
          policy === 'super-admins-only'
            ? `administrator ${q.user.name} is outside your management chain`
            : 'only a super administrator can delete a super administrator',
        );
        expect(
          (await t.http().delete(`/api/v1/admin/users/${q.user.name}`).set(auth(rootToken))).status,
        ).toBe(204);
      });

      it('403 for the last super administrator (seeded: root loses the flag)', async () => {
        const q = await t.factories.admin({ adminGrantedBy: a.user.id, isSuperAdmin: true });
        await t.dataSource.query('UPDATE users SET is_super_admin = false WHERE id <> $1', [q.user.id]);
        try {
          const res = await t.http().delete(`/api/v1/admin/users/${q.user.name}`).set(auth(a.token));
          expect(res.status).toBe(403);
          expect(res.body.message).toBe(
            policy === 'super-admins-only'
              ? `administrator ${q.user.name} is outside your management chain`
              : `can not delete the last super administrator [uid: ${q.user.id}]`,
          );
        } finally {
          await t.dataSource.query('UPDATE users SET is_super_admin = true WHERE id = $1', [root.id]);
          await t.dataSource.query('UPDATE users SET is_super_admin = false WHERE id = $1', [q.user.id]);
        }
      });

      it('demotion of a managed admin by a non-super: applied under the grantor policies, ignored otherwise', async () => {
        const b = await t.factories.admin({ adminGrantedBy: a.user.id });
        const res = await patch(b.user.name, { admin: false }, a.token);
        if (policy === 'super-admins-only') {
          expect(res.status).toBe(403); // rule 4: no administrator manages another under this policy
        } else {
          expect(res.status).toBe(200);
          expect(res.body.is_admin).toBe(false);
        }
      });
    },
  );
});
