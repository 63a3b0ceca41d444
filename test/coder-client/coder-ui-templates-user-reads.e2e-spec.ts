import type { CreatedUser } from '../helpers/factories';
import { waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient, type Json } from '../workspaces/helpers';
import { readTar, writeTar, writeZip } from '../../src/modules/workspaces/template-archive';
import { expectCoderShape } from './coder-ui-shapes';

const MISSING = '00000000-0000-4000-8000-000000000000';

/** Coder's web UI: template pages, per-user reads, agents page reads (issue 48 items 6, 7, 8). */
describe("Coder's web UI: templates, files, per-user settings, chat reads", () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let template: Json;
  let versionId: string;
  let daemon: (route: string, body: unknown) => Promise<Response>;
  const { api, json } = coderClient(() => t.url!);

  const upload = (token: string, body: Buffer, type = 'application/x-tar') =>
    fetch(`${t.url}/api/v2/files`, {
      method: 'POST',
      headers: { 'Service-Session-Token': token, 'Content-Type': type },
      body,
    });

  const finishImport = async (id: string) => {
    const job = await json(await daemon('acquire', { worker_id: 'ui', wait_ms: 2000 }), 200);
    await json(await daemon(`${job.job_id}/complete`, { worker_id: 'ui' }), 204);
    await waitFor(
      async () =>
        (await json(await api(admin.token, 'GET', `/api/v2/templateversions/${id}`), 200)).job.status ===
        'succeeded'
          ? true
          : undefined,
      30_000,
      'import',
    );
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { PROVISIONER_DAEMONS: '0', EXPERIMENTS: 'agents' } });
    await t.listen();
    admin = await t.factories.admin({ username: 'tpladmin' });
    alice = await t.factories.user({ username: 'tplalice' });
    bob = await t.factories.user({ username: 'tplbob' });
    const key = (
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'ui' }),
        201,
      )
    ).key as string;
    daemon = (route, body) =>
      fetch(`${t.url}/api/v2/provisionerdaemons/jobs/${route}`, {
        method: 'POST',
        headers: { 'Service-Provisioner-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const version = await json(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        name: 'v1',
        definition: {
          directory: 'project',
          files: { 'README.md': '# Hello template\n', 'project/a.txt': 'a' },
        },
      }),
      201,
    );
    versionId = version.id;
    await finishImport(versionId);
    template = await json(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templates', {
        name: 'uitpl',
        template_version_id: versionId,
      }),
      201,
    );
  });
  afterAll(async () => t?.close());

  // ------------------------------------------------------------------ item 6

  it('templates/examples is an empty list, not templates/{id}', async () => {
    expect(await json(await api(alice.token, 'GET', '/api/v2/templates/examples'), 200)).toEqual([]);
    expect((await fetch(`${t.url}/api/v2/templates/examples`)).status).toBe(401);
  });

  it("a version's readme comes from the definition; its job file is a real tar of the definition", async () => {
    const version = await json(await api(alice.token, 'GET', `/api/v2/templateversions/${versionId}`), 200);
    expect(version.readme).toBe('# Hello template\n');
    expect(version.job.file_id).not.toBe('00000000-0000-0000-0000-000000000000');
    const res = await api(alice.token, 'GET', `/api/v2/files/${version.job.file_id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-tar');
    const entries = await readTar(Buffer.from(await res.arrayBuffer()));
    expect(entries.map((entry) => entry.name)).toEqual(['devplane.json', 'README.md', 'project/a.txt']);
    expect(JSON.parse(entries[0]!.data.toString())).toEqual({ directory: 'project' });
    // the same file id on every read
    expect(
      (await json(await api(alice.token, 'GET', `/api/v2/templateversions/${versionId}`), 200)).job.file_id,
    ).toBe(version.job.file_id);
    const zip = await api(alice.token, 'GET', `/api/v2/files/${version.job.file_id}?format=zip`);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(
      Buffer.from(await zip.arrayBuffer())
        .subarray(0, 2)
        .toString(),
    ).toBe('PK');
    await json(await api(alice.token, 'GET', `/api/v2/files/${version.job.file_id}?format=rar`), 400);
    await json(await api(alice.token, 'GET', `/api/v2/files/${MISSING}`), 404);
    await json(await api(alice.token, 'GET', '/api/v2/files/nope'), 400);
  });

  it('POST /files: 201 then 200 with the same id; wrong type 400; narrow token 403; a version from the archive', async () => {
    const archive = await writeTar([
      { name: 'devplane.json', data: Buffer.from(JSON.stringify({ directory: 'p', env: { A: 'b' } })) },
      { name: 'README.md', data: Buffer.from('# Uploaded\n') },
      { name: 'p/main.sh', data: Buffer.from('echo hi\n') },
    ]);
    const first = await json(await upload(admin.token, archive), 201);
    expectCoderShape('codersdk.UploadResponse', first);
    expect((await json(await upload(admin.token, archive), 200)).hash).toBe(first.hash);
    await json(await upload(admin.token, archive, 'application/json'), 400);
    await json(
      await upload(admin.token, Buffer.from('not a tar at all, just text that is long enough')),
      400,
    );
    // members upload files too (Coder's member role has file create); a token without file:create may not
    expect((await upload(alice.token, archive)).status).toBe(201);
    const narrow = await t.factories.token(admin.user, { scopes: ['workspace:read'] });
    expect((await upload(narrow, archive)).status).toBe(403);
    expect((await fetch(`${t.url}/api/v2/files`, { method: 'POST', body: archive })).status).toBe(401);
    // Coder's UI creates the version with provisioner "terraform" and storage_method "file"
    const version = await json(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        file_id: first.hash,
        template_id: template.id,
        provisioner: 'terraform',
        storage_method: 'file',
        tags: {},
        user_variable_values: [],
        name: 'v2',
      }),
      201,
    );
    expect(version.readme).toBe('# Uploaded\n');
    expect(version.job.file_id).toBe(first.hash);
    expect(version.definition).toMatchObject({
      directory: 'p',
      env: { A: 'b' },
      files: { 'p/main.sh': 'echo hi\n' },
    });
    // a tar without devplane.json is 400 naming the file
    const bare = await writeTar([{ name: 'main.tf', data: Buffer.from('resource "x" {}') }]);
    const bareId = (await json(await upload(admin.token, bare), 201)).hash;
    const refused = await json(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        file_id: bareId,
        provisioner: 'terraform',
      }),
      400,
    );
    expect(JSON.stringify(refused)).toContain('devplane.json');
    // terraform without a file stays refused
    await json(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        provisioner: 'terraform',
        definition: {},
      }),
      400,
    );
  });

  it('a zip upload is stored as tar', async () => {
    const zip = writeZip([{ name: 'devplane.json', data: Buffer.from('{}') }]);
    const id = (await json(await upload(admin.token, zip, 'application/zip'), 201)).hash;
    const res = await api(admin.token, 'GET', `/api/v2/files/${id}`);
    expect(res.headers.get('content-type')).toBe('application/x-tar');
    expect((await readTar(Buffer.from(await res.arrayBuffer()))).map((e) => e.name)).toEqual([
      'devplane.json',
    ]);
  });

  it('template version by name; 404 for an unknown name', async () => {
    const version = await json(
      await api(alice.token, 'GET', `/api/v2/organizations/default/templates/uitpl/versions/v1`),
      200,
    );
    expect(version.id).toBe(versionId);
    await json(
      await api(alice.token, 'GET', `/api/v2/organizations/default/templates/uitpl/versions/nope`),
      404,
    );
    await json(
      await api(alice.token, 'GET', `/api/v2/organizations/default/templates/nope/versions/v1`),
      404,
    );
  });

  it('template ACL: GET empty, PATCH by an admin, 403 for a member, 400 for bad roles and unknown users', async () => {
    const empty = await json(await api(alice.token, 'GET', `/api/v2/templates/${template.id}/acl`), 200);
    expect(empty).toEqual({ users: [], group: [] });
    await json(
      await api(admin.token, 'PATCH', `/api/v2/templates/${template.id}/acl`, {
        user_perms: { [alice.user.uuid]: 'use' },
      }),
      200,
    );
    const acl = await json(await api(alice.token, 'GET', `/api/v2/templates/${template.id}/acl`), 200);
    expectCoderShape('codersdk.TemplateACL', acl, ['avatar_url']);
    expect(acl.users.map((user: Json) => [user.username, user.role])).toEqual([['tplalice', 'use']]);
    await api(admin.token, 'PATCH', `/api/v2/templates/${template.id}/acl`, {
      user_perms: { [alice.user.uuid]: '' },
    });
    expect(
      (await json(await api(alice.token, 'GET', `/api/v2/templates/${template.id}/acl`), 200)).users,
    ).toEqual([]);
    expect(
      (
        await api(bob.token, 'PATCH', `/api/v2/templates/${template.id}/acl`, {
          user_perms: { [bob.user.uuid]: 'admin' },
        })
      ).status,
    ).toBe(403);
    await json(
      await api(admin.token, 'PATCH', `/api/v2/templates/${template.id}/acl`, {
        user_perms: { [bob.user.uuid]: 'owner' },
      }),
      400,
    );
    await json(
      await api(admin.token, 'PATCH', `/api/v2/templates/${template.id}/acl`, {
        user_perms: { [MISSING]: 'use' },
      }),
      400,
    );
    await json(await api(admin.token, 'GET', `/api/v2/templates/${MISSING}/acl`), 404);
  });

  it('insights: empty reports in Coder shapes for owners; members 403; bad times 400', async () => {
    const range = 'start_time=2026-01-01T00:00:00Z&end_time=2026-01-03T00:00:00Z';
    const templates = await json(
      await api(
        admin.token,
        'GET',
        `/api/v2/insights/templates?${range}&interval=day&template_ids=${template.id}`,
      ),
      200,
    );
    expectCoderShape('codersdk.TemplateInsightsResponse', templates);
    expect(templates.interval_reports).toHaveLength(2);
    for (const route of ['user-latency', 'user-activity']) {
      const report = await json(await api(admin.token, 'GET', `/api/v2/insights/${route}?${range}`), 200);
      expectCoderShape(
        route === 'user-latency'
          ? 'codersdk.UserLatencyInsightsResponse'
          : 'codersdk.UserActivityInsightsResponse',
        report,
      );
      expect(report.report.users).toEqual([]);
      expect((await api(alice.token, 'GET', `/api/v2/insights/${route}?${range}`)).status).toBe(403);
    }
    await json(
      await api(admin.token, 'GET', '/api/v2/insights/templates?start_time=x&end_time=y&interval=day'),
      400,
    );
    await json(await api(admin.token, 'GET', `/api/v2/insights/templates?${range}&interval=month`), 400);
  });

  it('workspace quota: zero budget; 404 unknown organization', async () => {
    const quota = await json(
      await api(alice.token, 'GET', '/api/v2/organizations/default/members/me/workspace-quota'),
      200,
    );
    expectCoderShape('codersdk.WorkspaceQuota', quota);
    expect(quota).toEqual({ credits_consumed: 0, budget: 0 });
    await json(await api(alice.token, 'GET', '/api/v2/organizations/nope/members/me/workspace-quota'), 404);
  });

  // ------------------------------------------------------------------ item 7

  it('workspace search takes organization: (name or id); an unknown one is 400', async () => {
    const byName = await json(
      await api(admin.token, 'GET', '/api/v2/workspaces?q=organization:default'),
      200,
    );
    expect(byName.count).toBe(0);
    const refused = await json(await api(admin.token, 'GET', '/api/v2/workspaces?q=organization:nope'), 400);
    expect(refused.validations[0].field).toBe('organization');
  });

  it('chat search takes source:; by-workspace is not chats/{chat}', async () => {
    expect(
      await json(await api(alice.token, 'GET', '/api/experimental/chats?q=source:created_by_me'), 200),
    ).toEqual([]);
    expect(
      await json(await api(alice.token, 'GET', '/api/experimental/chats?q=source:shared_with_me'), 200),
    ).toEqual([]);
    await json(await api(alice.token, 'GET', '/api/experimental/chats?q=source:everyone'), 400);
    expect(
      await json(
        await api(alice.token, 'GET', `/api/experimental/chats/by-workspace?workspace_ids=${MISSING}`),
        200,
      ),
    ).toEqual({});
    expect(await json(await api(alice.token, 'GET', '/api/experimental/chats/by-workspace'), 200)).toEqual(
      {},
    );
    await json(await api(alice.token, 'GET', '/api/experimental/chats/by-workspace?workspace_ids=x'), 400);
    const many = Array.from({ length: 26 }, () => MISSING).join(',');
    await json(
      await api(alice.token, 'GET', `/api/experimental/chats/by-workspace?workspace_ids=${many}`),
      400,
    );
  });

  // ------------------------------------------------------------------ item 8

  it('appearance: defaults, PUT round trip, bad font 400, another user 404, narrow token 403', async () => {
    const initial = await json(await api(alice.token, 'GET', '/api/v2/users/me/appearance'), 200);
    expectCoderShape('codersdk.UserAppearanceSettings', initial);
    const updated = await json(
      await api(alice.token, 'PUT', '/api/v2/users/me/appearance', {
        theme_preference: 'light',
        terminal_font: 'fira-code',
        theme_mode: 'sync',
        theme_light: 'light',
        theme_dark: 'dark-tritan',
      }),
      200,
    );
    expect(updated).toEqual({
      theme_preference: 'light',
      terminal_font: 'fira-code',
      theme_mode: 'sync',
      theme_light: 'light',
      theme_dark: 'dark-tritan',
    });
    expect(
      await json(await api(alice.token, 'GET', `/api/v2/users/${alice.user.uuid}/appearance`), 200),
    ).toEqual(updated);
    await json(
      await api(alice.token, 'PUT', '/api/v2/users/me/appearance', {
        theme_preference: 'x',
        terminal_font: 'comic-sans',
      }),
      400,
    );
    await json(await api(bob.token, 'GET', `/api/v2/users/${alice.user.uuid}/appearance`), 404);
    expect(
      (await json(await api(admin.token, 'GET', `/api/v2/users/${alice.user.uuid}/appearance`), 200))
        .terminal_font,
    ).toBe('fira-code');
    expect((await fetch(`${t.url}/api/v2/users/me/appearance`)).status).toBe(401);
    const narrow = await t.factories.token(alice.user, { scopes: ['workspace:read'] });
    expect((await api(narrow, 'GET', '/api/v2/users/me/appearance')).status).toBe(403);
  });

  it('preferences: defaults and partial PUT; bad enum 400', async () => {
    const initial = await json(await api(alice.token, 'GET', '/api/v2/users/me/preferences'), 200);
    expectCoderShape('codersdk.UserPreferenceSettings', initial);
    expect(initial.agent_chat_send_shortcut).toBe('enter');
    const updated = await json(
      await api(alice.token, 'PUT', '/api/v2/users/me/preferences', { thinking_display_mode: 'preview' }),
      200,
    );
    expect(updated).toMatchObject({ thinking_display_mode: 'preview', agent_chat_send_shortcut: 'enter' });
    await json(
      await api(alice.token, 'PUT', '/api/v2/users/me/preferences', { thinking_display_mode: 'loud' }),
      400,
    );
  });

  it('quiet hours: the default, a CRON_TZ schedule, bad schedules 400', async () => {
    const initial = await json(
      await api(alice.token, 'GET', `/api/v2/users/${alice.user.uuid}/quiet-hours`),
      200,
    );
    expectCoderShape('codersdk.UserQuietHoursScheduleResponse', initial);
    expect(initial).toMatchObject({ raw_schedule: 'CRON_TZ=UTC 0 0 * * *', user_set: false, time: '00:00' });
    const set = await json(
      await api(alice.token, 'PUT', `/api/v2/users/${alice.user.uuid}/quiet-hours`, {
        schedule: 'CRON_TZ=Europe/Berlin 30 2 * * *',
      }),
      200,
    );
    expect(set).toMatchObject({ user_set: true, time: '02:30', timezone: 'Europe/Berlin' });
    expect(new Date(set.next).getTime()).toBeGreaterThan(Date.now());
    await json(
      await api(alice.token, 'PUT', `/api/v2/users/${alice.user.uuid}/quiet-hours`, {
        schedule: '0 0 * * 1',
      }),
      400,
    );
    await json(
      await api(alice.token, 'PUT', `/api/v2/users/${alice.user.uuid}/quiet-hours`, {
        schedule: 'CRON_TZ=Mars/Base 0 0 * * *',
      }),
      400,
    );
    await json(
      await api(bob.token, 'PUT', `/api/v2/users/${alice.user.uuid}/quiet-hours`, { schedule: '' }),
      404,
    );
  });

  it('login type and the Git SSH key (ed25519, stable until regenerated)', async () => {
    expect(await json(await api(alice.token, 'GET', '/api/v2/users/me/login-type'), 200)).toEqual({
      login_type: 'password',
    });
    const key = await json(await api(alice.token, 'GET', '/api/v2/users/me/gitsshkey'), 200);
    expectCoderShape('codersdk.GitSSHKey', key);
    expect(key.user_id).toBe(alice.user.uuid);
    expect(key.public_key).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5[A-Za-z0-9+/=]+\n$/);
    expect((await json(await api(alice.token, 'GET', '/api/v2/users/me/gitsshkey'), 200)).public_key).toBe(
      key.public_key,
    );
    const next = await json(await api(alice.token, 'PUT', '/api/v2/users/me/gitsshkey'), 200);
    expect(next.public_key).not.toBe(key.public_key);
    expect(next.created_at).toBe(key.created_at);
    await json(await api(bob.token, 'GET', `/api/v2/users/${alice.user.uuid}/gitsshkey`), 404);
  });

  it('chat config reads, usage limits, MCP servers, prompts', async () => {
    expect(
      await json(await api(alice.token, 'GET', '/api/experimental/chats/config/user-prompt'), 200),
    ).toEqual({
      custom_prompt: '',
    });
    expect(
      await json(
        await api(alice.token, 'PUT', '/api/experimental/chats/config/user-prompt', {
          custom_prompt: ' be brief ',
        }),
        200,
      ),
    ).toEqual({ custom_prompt: 'be brief' });
    expect(
      (await json(await api(alice.token, 'GET', '/api/experimental/chats/config/user-prompt'), 200))
        .custom_prompt,
    ).toBe('be brief');
    expect(
      await json(
        await api(alice.token, 'GET', '/api/experimental/chats/config/user-compaction-thresholds'),
        200,
      ),
    ).toEqual({
      thresholds: [],
    });
    expect(
      await json(await api(alice.token, 'GET', '/api/experimental/chats/config/desktop-enabled'), 200),
    ).toEqual({
      enable_desktop: true,
    });
    expect(
      await json(await api(alice.token, 'GET', '/api/experimental/chats/config/user-debug-logging'), 200),
    ).toEqual({
      debug_logging_enabled: false,
      user_toggle_allowed: false,
      forced_by_deployment: false,
    });
    expect(
      (
        await json(
          await api(alice.token, 'GET', '/api/experimental/chats/config/user-personal-model-overrides'),
          200,
        )
      ).enabled,
    ).toBe(false);
    expect(
      await json(await api(alice.token, 'GET', '/api/experimental/chats/usage-limits/status'), 200),
    ).toMatchObject({
      is_limited: false,
      current_spend: 0,
    });
    expect(await json(await api(alice.token, 'GET', '/api/experimental/mcp/servers'), 200)).toEqual([]);
    await json(await api(alice.token, 'GET', `/api/experimental/chats/${MISSING}/prompts`), 404);
    expect((await fetch(`${t.url}/api/experimental/chats/config/user-prompt`)).status).toBe(401);
  });

  it("roles list each resource's actions (Coder's lists), never type:*", async () => {
    const roles = await json(await api(admin.token, 'GET', '/api/v2/users/roles'), 200);
    const permissions = (roles as Json[]).flatMap((role) => [
      ...role.site_permissions,
      ...role.organization_permissions,
      ...role.user_permissions,
    ]);
    expect(permissions.length).toBeGreaterThan(0);
    expect(permissions.filter((p: Json) => p.action === '*' && p.resource_type !== '*')).toEqual([]);
    const templateAdmin = (roles as Json[]).find((role) => role.name === 'template-admin');
    expect(
      templateAdmin.site_permissions
        .filter((p: Json) => p.resource_type === 'template')
        .map((p: Json) => p.action)
        .sort(),
    ).toEqual(['create', 'delete', 'read', 'update', 'use', 'view_insights']);
  });

  it('/api/v2/ai/providers: the gateway providers in Coder shape for owners; 403 for members', async () => {
    expect(await json(await api(admin.token, 'GET', '/api/v2/ai/providers'), 200)).toEqual([]);
    expect((await api(alice.token, 'GET', '/api/v2/ai/providers')).status).toBe(403);
  });
});
