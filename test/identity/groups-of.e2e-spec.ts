import { OrganizationsService } from '../../src/modules/identity/organizations.service';
import { createTestApp, type TestApp } from '../helpers/test-app';

/** One groupsOf(user) serves the OCS user and the workflow group check (issue 10 item 3). */
describe('identity groupsOf', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists organizations, org/team and admin; OCS cloud/user shows the same groups a group rule accepts', async () => {
    const user = await t.factories.user({ username: 'grouped' });
    const org = await t.factories.organization('Acme', user.user.id);
    await t.factories.team(org, 'Devs', [user.user]);
    const organizations = t.app.get(OrganizationsService);
    expect([...(await organizations.groupsOf(user.user.id))].sort()).toEqual([
      'acme',
      'acme/devs',
      'acme/owners',
      'default',
    ]);
    const admin = await t.factories.admin();
    expect(await organizations.groupsOf(admin.user.id)).toContain('admin');

    const res = await t
      .http()
      .get('/ocs/v2.php/cloud/user?format=json')
      .set('OCS-APIRequest', 'true')
      .set('Authorization', `token ${user.token}`);
    expect(res.status).toBe(200);
    expect([...res.body.ocs.data.groups].sort()).toEqual(['acme', 'acme/devs', 'acme/owners', 'default']);

    for (const group of ['admin', 'ACME', 'acme/devs'])
      expect(await organizations.groupExists(group)).toBe(true);
    for (const group of ['nobody', 'acme/none', 'grouped'])
      expect(await organizations.groupExists(group)).toBe(false);
  });

  it('is cached per user until a membership, team or account changes', async () => {
    const user = await t.factories.user({ username: 'cachedgroups' });
    const organizations = t.app.get(OrganizationsService);
    expect([...(await organizations.groupsOf(user.user.id))]).toEqual(['default']);
    const org = await t.factories.organization('Globex', user.user.id);
    expect([...(await organizations.groupsOf(user.user.id))].sort()).toEqual([
      'default',
      'globex',
      'globex/owners',
    ]);
    await t.factories.team(org, 'Ops', [user.user]);
    expect(await organizations.groupsOf(user.user.id)).toContain('globex/ops');
    await t.dataSource.query('UPDATE users SET is_admin = true WHERE id = $1', [user.user.id]);
    expect(await organizations.groupsOf(user.user.id)).toContain('admin');
    await t.dataSource.query('DELETE FROM team_members WHERE user_id = $1', [user.user.id]);
    expect(await organizations.groupsOf(user.user.id)).not.toContain('globex/ops');
  });
});
