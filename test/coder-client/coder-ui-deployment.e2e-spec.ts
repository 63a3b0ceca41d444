import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { expectCoderShape } from './coder-ui-shapes';

/** The deployment reads of Coder's web UI (issue 48 item 3), with Coder's wire shapes. */
describe("Coder's web UI: licence, deployment and health reads", () => {
  let t: TestApp;
  let admin: CreatedUser;
  let member: CreatedUser;
  const get = (path: string, token?: string) =>
    token ? t.http().get(path).set('Service-Session-Token', token) : t.http().get(path);

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        EXPERIMENTS: 'agents',
        SMTP_URL: 'smtp://user:hunter2@mail.example.com:25',
        PROVISIONER_DAEMONS: '1',
        WILDCARD_ACCESS_URL: 'https://*.apps.example.com:8443',
      },
    });
    admin = await t.factories.admin({ username: 'uiadmin' });
    member = await t.factories.user({ username: 'uimember' });
  });
  afterAll(() => t.close());

  it('entitlements: every feature name of the UI, entitled where devplane has the feature', async () => {
    expect((await get('/api/v2/entitlements')).status).toBe(401);
    const res = await get('/api/v2/entitlements', member.token);
    expect(res.status).toBe(200);
    expectCoderShape('codersdk.Entitlements', res.body, ['limit', 'actual', 'usage_period']);
    expect(Object.keys(res.body.features)).toHaveLength(27);
    for (const feature of Object.values(res.body.features) as Record<string, unknown>[])
      expectCoderShape('codersdk.Feature', feature, ['limit', 'actual', 'usage_period']);
    expect(res.body.has_license).toBe(true);
    expect(res.body.features.audit_log).toEqual({ entitlement: 'entitled', enabled: true });
    expect(res.body.features.template_rbac.enabled).toBe(true);
    expect(res.body.features.connection_log.enabled).toBe(true);
    expect(res.body.features.aibridge.enabled).toBe(true);
    expect(res.body.features.scim).toEqual({ entitlement: 'not_entitled', enabled: false });
    expect(res.body.features.workspace_proxy.enabled).toBe(false);
  });

  it('experiments: the EXPERIMENTS setting', async () => {
    const res = await get('/api/v2/experiments', member.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(['agents']);
    expect((await get('/api/v2/experiments/available', member.token)).body.safe).toContain('agents');
  });

  it('appearance: public read, owner-only update that is kept, bad colour refused and nothing changed', async () => {
    const before = await get('/api/v2/appearance');
    expect(before.status).toBe(200);
    expectCoderShape('codersdk.AppearanceConfig', before.body, [
      'message',
      'background_color',
      'support_links',
    ]);
    const update = {
      application_name: 'Plane',
      logo_url: 'https://example.com/logo.svg',
      service_banner: { enabled: false },
      announcement_banners: [{ enabled: true, message: 'Hello', background_color: '#004852' }],
    };
    const refused = await t
      .http()
      .put('/api/v2/appearance')
      .set('Service-Session-Token', member.token)
      .send(update);
    expect(refused.status).toBe(403);
    const bad = await t
      .http()
      .put('/api/v2/appearance')
      .set('Service-Session-Token', admin.token)
      .send({ ...update, announcement_banners: [{ enabled: true, background_color: 'red' }] });
    expect(bad.status).toBe(400);
    expect((await get('/api/v2/appearance')).body.application_name).toBe('');
    const ok = await t
      .http()
      .put('/api/v2/appearance')
      .set('Service-Session-Token', admin.token)
      .send(update);
    expect(ok.status).toBe(200);
    expectCoderShape('codersdk.UpdateAppearanceConfig', ok.body, ['message', 'background_color']);
    const after = await get('/api/v2/appearance', member.token);
    expect(after.body.application_name).toBe('Plane');
    expect(after.body.announcement_banners).toEqual(update.announcement_banners);
  });

  it('workspaceproxies: the primary region only', async () => {
    const res = await get('/api/v2/workspaceproxies', member.token);
    expect(res.status).toBe(200);
    expectCoderShape('codersdk.RegionsResponse-codersdk_WorkspaceProxy', res.body);
    expect(res.body.regions).toHaveLength(1);
    expect(res.body.regions[0].name).toBe('primary');
    // Subdomain apps: the WILDCARD_ACCESS_URL host (with its port, no scheme), as Coder's region reports it.
    expect(res.body.regions[0].wildcard_hostname).toBe('*.apps.example.com:8443');
  });

  it("deployment/config: owners only; devplane's settings as options with the names the pages look up, secrets masked", async () => {
    expect((await get('/api/v2/deployment/config', member.token)).status).toBe(403);
    const res = await get('/api/v2/deployment/config', admin.token);
    expect(res.status).toBe(200);
    for (const option of res.body.options as Record<string, unknown>[])
      expectCoderShape('serpent.Option', option, [
        'annotations',
        'group',
        'flag_shorthand',
        'required',
        'use_instead',
        'value',
        'parent',
      ]);
    const names = (res.body.options as { name: string }[]).map((option) => option.name);
    for (const name of [
      'Access URL',
      'Wildcard Access URL',
      'Experiments',
      'OAuth2 GitHub Client ID',
      'OIDC Client ID',
      'SSH Keygen Algorithm',
      'Secure Auth Cookie',
      'Disable Owner Workspace Access',
    ])
      expect(names).toContain(name);
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
    const smtp = (
      res.body.options as { env: string; value: unknown; annotations?: Record<string, string> }[]
    ).find((option) => option.env === 'SMTP_URL')!;
    expect(smtp.value).toBe('');
    expect(smtp.annotations).toEqual({ secret: 'true' });
    expect(res.body.config.access_url).toBe(t.config.publicUrl);
    expect(res.body.config.wildcard_access_url).toBe('https://*.apps.example.com:8443');
    const wildcard = (res.body.options as { env: string; value: unknown; value_source: string }[]).find(
      (option) => option.env === 'WILDCARD_ACCESS_URL',
    )!;
    expect(wildcard.value).toBe('https://*.apps.example.com:8443');
    expect(wildcard.value_source).toBe('env');
    expect(res.body.config.external_auth).toEqual([]);
  });

  it('deployment/ssh and updatecheck for any user; deployment/stats and licenses for owners', async () => {
    const ssh = await get('/api/v2/deployment/ssh', member.token);
    expectCoderShape('codersdk.SSHConfigResponse', ssh.body);
    const update = await get('/api/v2/updatecheck', member.token);
    expectCoderShape('codersdk.UpdateCheckResponse', update.body);
    expect(update.body.current).toBe(true);
    expect((await get('/api/v2/deployment/stats', member.token)).status).toBe(403);
    const stats = await get('/api/v2/deployment/stats', admin.token);
    expect(stats.status).toBe(200);
    expectCoderShape('codersdk.DeploymentStats', stats.body);
    expect((await get('/api/v2/licenses', member.token)).status).toBe(403);
    expect((await get('/api/v2/licenses', admin.token)).body).toEqual([]);
  });

  it("debug/health: owners only; a report of devplane's parts with Coder's shape", async () => {
    expect((await get('/api/v2/debug/health', member.token)).status).toBe(403);
    const res = await get('/api/v2/debug/health', admin.token);
    expect(res.status).toBe(200);
    expectCoderShape('healthsdk.HealthcheckReport', res.body, [
      'error',
      'netcheck',
      'netcheck_err',
      'current_job',
      'previous_job',
      'regions',
    ]);
    expect(res.body.database.reachable).toBe(true);
    expect(['ok', 'warning']).toContain(res.body.database.severity);
    expect(res.body.access_url.access_url).toBe(t.config.publicUrl);
  });

  it('debug/health/settings: dismissing a section is kept and leaves it out of the verdict; unknown sections refused', async () => {
    const bad = await t
      .http()
      .put('/api/v2/debug/health/settings')
      .set('Service-Session-Token', admin.token)
      .send({ dismissed_healthchecks: ['Nope'] });
    expect(bad.status).toBe(400);
    const ok = await t
      .http()
      .put('/api/v2/debug/health/settings')
      .set('Service-Session-Token', admin.token)
      .send({ dismissed_healthchecks: ['ProvisionerDaemons'] });
    expect(ok.status).toBe(200);
    expect((await get('/api/v2/debug/health/settings', admin.token)).body).toEqual({
      dismissed_healthchecks: ['ProvisionerDaemons'],
    });
    const report = await get('/api/v2/debug/health', admin.token);
    expect(report.body.provisioner_daemons.dismissed).toBe(true);
  });

  it('oauth2 apps, external auth and IdP sync: empty answers of a deployment without them', async () => {
    expect((await get('/api/v2/oauth2-provider/apps', member.token)).body).toEqual([]);
    expect((await get('/api/v2/external-auth', member.token)).body).toEqual({ providers: [], links: [] });
    expect((await get('/api/v2/settings/idpsync/organization', member.token)).status).toBe(403);
    const org = await get('/api/v2/settings/idpsync/organization', admin.token);
    expectCoderShape('codersdk.OrganizationSyncSettings', org.body);
    const groups = await get('/api/v2/organizations/default/settings/idpsync/groups', admin.token);
    expect(groups.status).toBe(200);
    expect(groups.body).toEqual({
      field: '',
      mapping: {},
      regex_filter: null,
      auto_create_missing_groups: false,
    });
    const roles = await get('/api/v2/organizations/default/settings/idpsync/roles', admin.token);
    expectCoderShape('codersdk.RoleSyncSettings', roles.body);
    expect((await get('/api/v2/organizations/default/settings/idpsync/roles', member.token)).status).toBe(
      403,
    );
    expect((await get('/api/v2/organizations/nope/settings/idpsync/roles', admin.token)).status).toBe(404);
  });

  it('provisionerkeys/daemons: the built-in key with its daemons, then each key', async () => {
    const created = await t
      .http()
      .post('/api/v2/organizations/default/provisionerkeys')
      .set('Service-Session-Token', admin.token)
      .send({ name: 'uikey' });
    expect(created.status).toBe(201);
    const res = await get('/api/v2/organizations/default/provisionerkeys/daemons', admin.token);
    expect(res.status).toBe(200);
    for (const entry of res.body)
      expectCoderShape('codersdk.ProvisionerKeyDaemons', entry, ['current_job', 'previous_job']);
    expect(res.body.map((entry: { key: { name: string } }) => entry.key.name)).toEqual(['built-in', 'uikey']);
    // Organization members read the provisioners page (Coder's organization-member role reads daemons).
    expect((await get('/api/v2/organizations/default/provisionerkeys/daemons', member.token)).status).toBe(
      200,
    );
    expect((await get('/api/v2/organizations/default/provisionerkeys/daemons')).status).toBe(401);
    expect((await get('/api/v2/organizations/nope/provisionerkeys/daemons', admin.token)).status).toBe(404);
  });
});
