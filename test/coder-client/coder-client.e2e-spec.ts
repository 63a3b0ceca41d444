import type { CreatedUser } from '../helpers/factories';
import { waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { WatchClient } from '../notifications/helpers';
import { coderClient, type Json } from '../workspaces/helpers';
import { loadResponseSchemas, ResponseRecorder } from './response-schemas';

/**
 * Coder's own front-end client (site/src/api/api.ts) on the workspace, template, group and agent-chat
 * screens (issue 33): each request is sent as the client sends it (method, path, body; WebSockets with
 * the session cookie and the page's Origin) and the answer is read as the page reads it.
 */
describe("Coder's client on the workspace, template, group and chat screens", () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let key: string;
  let templateId: string;
  let versionId: string;
  const recorder = new ResponseRecorder();
  const client = coderClient(() => t.url!, recorder);
  const { api, json } = client;
  const daemon = (route: string, body: unknown) =>
    fetch(`${t.url}/api/v2/provisionerdaemons/jobs/${route}`, {
      method: 'POST',
      headers: { 'Service-Provisioner-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** Acquires the next job as a hand-driven daemon (undefined when none is pending). */
  const acquire = async (worker = 'hand'): Promise<Json | undefined> => {
    const response = await daemon('acquire', { worker_id: worker, wait_ms: 2000 });
    return response.status === 204 ? undefined : json(response, 200);
  };
  const finishAll = async (): Promise<void> => {
    for (;;) {
      const job = await acquire('finisher');
      if (!job) return;
      await json(await daemon(`${job.job_id}/complete`, { worker_id: 'finisher' }), 204);
    }
  };
  /** The browser's WebSocket: the session cookie and the page's own Origin. */
  const browserSocket = (path: string, user: CreatedUser) =>
    new WatchClient(`${t.url!.replace('http', 'ws')}${path}`, {
      Cookie: `service_session_token=${user.token}`,
      Origin: t.config.publicUrl.replace(/\/$/, ''),
    });

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        EXPERIMENTS: 'agents',
        CODER_LOG_FOLLOW_POLL_MS: '50',
        CHAT_RUNNER_ENABLED: 'false',
        AI_GATEWAY_PROVIDERS: JSON.stringify([
          { name: 'openai-main', type: 'openai', base_url: 'http://127.0.0.1:9/v1', key: 'sk-x' },
        ]),
      },
    });
    await t.listen();
    admin = await t.factories.admin({ username: 'clientadmin' });
    alice = await t.factories.user({ username: 'clientalice' });
    bob = await t.factories.user({ username: 'clientbob' });
    key = (
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'client' }),
        201,
      )
    ).key;
    const version = await json(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        name: 'v1',
        definition: {},
      }),
      201,
    );
    versionId = version.id;
    await finishAll();
    templateId = (
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/templates', {
          name: 'client',
          template_version_id: versionId,
        }),
        201,
      )
    ).id;
  });
  afterAll(async () => t?.close());

  describe('workspace page', () => {
    let workspace: Json;
    beforeAll(async () => {
      workspace = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'page',
          template_id: templateId,
        }),
        201,
      );
    });

    it('build logs stream over a WebSocket: stored lines after `after`, new ones, then a normal close (33.5)', async () => {
      const job = (await acquire('streamer'))!;
      expect(job).toBeDefined();
      await json(
        await daemon(`${job.job_id}/report`, {
          worker_id: 'streamer',
          logs: [
            { stage: 'Planning', output: 'first' },
            { stage: 'Planning', output: 'second' },
          ],
        }),
        204,
      );
      const stored = await json(
        await api(alice.token, 'GET', `/api/v2/workspacebuilds/${workspace.latest_build.id}/logs`),
        200,
      );
      // The daemon's own "Acquired by …" line comes first.
      expect(stored.map((log: Json) => log.output).slice(-2)).toEqual(['first', 'second']);
      const first = stored[stored.length - 2];
      const second = stored[stored.length - 1];
      const socket = browserSocket(
        `/api/v2/workspacebuilds/${workspace.latest_build.id}/logs?follow=true&after=${first.id}`,
        alice,
      );
      await socket.opened;
      await waitFor(() => (socket.frames.length === 1 ? true : undefined), 10_000, 'the stored line');
      expect(socket.frames[0]).toMatchObject({ output: 'second', stage: 'Planning', id: second.id });
      await json(
        await daemon(`${job.job_id}/report`, {
          worker_id: 'streamer',
          logs: [{ stage: 'Applying', output: 'third' }],
        }),
        204,
      );
      await waitFor(() => (socket.frames.length === 2 ? true : undefined), 10_000, 'the new line');
      expect(socket.closed).toBeUndefined();
      await json(await daemon(`${job.job_id}/complete`, { worker_id: 'streamer' }), 204);
      await waitFor(() => socket.closed, 10_000, 'the close after the job ended');
      expect(socket.closed!.code).toBe(1000);
      expect(socket.frames.map((frame) => frame.output)).toEqual(['second', 'third']);

      // Someone else's build: refused before the upgrade, as Coder does.
      const refused = browserSocket(
        `/api/v2/workspacebuilds/${workspace.latest_build.id}/logs?follow=true`,
        bob,
      );
      await expect(refused.opened).rejects.toThrow();
      expect(refused.unexpected?.status).toBe(404);
    });

    it('template version import logs stream the same way and close at once for a finished job', async () => {
      const socket = browserSocket(`/api/v2/templateversions/${versionId}/logs?follow=true`, admin);
      await socket.opened;
      await waitFor(() => socket.closed, 10_000, 'the close');
      expect(socket.closed!.code).toBe(1000);
    });

    it('agents have parent_id null, so the page lists them (33.1)', async () => {
      const current = await json(await api(alice.token, 'GET', `/api/v2/workspaces/${workspace.id}`), 200);
      const agents = current.latest_build.resources.flatMap((resource: Json) => resource.agents);
      expect(agents.length).toBeGreaterThan(0);
      // What WorkspacePage does: top-level agents are those whose parent_id is null.
      expect(agents.filter((agent: Json) => agent.parent_id === null)).toHaveLength(agents.length);
      expect(current.latest_build.template_version_preset_id).toBeNull();
      expect(current).toMatchObject({ deleting_at: null, dormant_at: null, next_start_at: null });
    });

    it('waitForBuild polls the build by owner, workspace name and number (33.6)', async () => {
      const build = await json(
        await api(alice.token, 'GET', '/api/v2/users/clientalice/workspace/page/builds/1'),
        200,
      );
      expect(build).toMatchObject({ id: workspace.latest_build.id, build_number: 1, status: 'running' });
      const mine = await json(await api(alice.token, 'GET', '/api/v2/users/me/workspace/page/builds/1'), 200);
      expect(mine.id).toBe(build.id);
      await json(await api(alice.token, 'GET', '/api/v2/users/me/workspace/page/builds/2'), 404);
      await json(await api(alice.token, 'GET', '/api/v2/users/me/workspace/page/builds/x'), 400);
      await json(await api(bob.token, 'GET', '/api/v2/users/clientalice/workspace/page/builds/1'), 404);
    });

    it('template page: versions, version resources, build time stats and Coder fields (33.11, 33.12)', async () => {
      const versions = await json(
        await api(alice.token, 'GET', `/api/v2/templates/${templateId}/versions`),
        200,
      );
      expect(versions.map((version: Json) => version.id)).toEqual([versionId]);
      expect(versions[0].has_external_agent).toBe(false);
      const resources = await json(
        await api(alice.token, 'GET', `/api/v2/templateversions/${versionId}/resources`),
        200,
      );
      expect(Array.isArray(resources)).toBe(true);
      const template = await json(await api(alice.token, 'GET', `/api/v2/templates/${templateId}`), 200);
      expect(template).toMatchObject({
        deleted: false,
        disable_module_cache: false,
        time_til_autostop_notify_ms: 0,
      });
      // The start build above succeeded: its duration is the start percentiles; stop has no build yet.
      expect(template.build_time_stats.start.P50).toEqual(expect.any(Number));
      expect(template.build_time_stats.start.P95).toEqual(expect.any(Number));
      expect(template.build_time_stats.stop).toEqual({ P50: null, P95: null });
      await json(
        await api(alice.token, 'GET', `/api/v2/templates/00000000-0000-4000-8000-000000000001/versions`),
        404,
      );
      // The version's matched_provisioners and the organization's daemons (getProvisionerDaemonsByOrganization);
      // both answers go through the schema check below.
      const version = await json(await api(alice.token, 'GET', `/api/v2/templateversions/${versionId}`), 200);
      expect(version.matched_provisioners).toMatchObject({
        count: expect.any(Number),
        available: expect.any(Number),
      });
      const daemons = await json(
        await api(alice.token, 'GET', '/api/v2/organizations/default/provisionerdaemons?offline=true'),
        200,
      );
      expect(daemons.length).toBeGreaterThan(0);
      expect(daemons[0]).toMatchObject({ provisioners: ['devplane'], status: expect.any(String) });
    });

    it('PATCH /workspaces/{id} renames; a taken name is 409, others 404 (33.11)', async () => {
      const other = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'other',
          template_id: templateId,
        }),
        201,
      );
      await finishAll();
      const renamed = await api(alice.token, 'PATCH', `/api/v2/workspaces/${other.id}`, { name: 'renamed' });
      expect(renamed.status).toBe(204);
      expect((await json(await api(alice.token, 'GET', `/api/v2/workspaces/${other.id}`), 200)).name).toBe(
        'renamed',
      );
      await json(await api(alice.token, 'PATCH', `/api/v2/workspaces/${other.id}`, { name: 'page' }), 409);
      await json(
        await api(alice.token, 'PATCH', `/api/v2/workspaces/${other.id}`, { name: 'bad name!' }),
        400,
      );
      await json(await api(bob.token, 'PATCH', `/api/v2/workspaces/${other.id}`, { name: 'mine' }), 404);
    });

    it('the builds of a deleted workspace stay readable (33.12)', async () => {
      const doomed = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'doomed',
          template_id: templateId,
        }),
        201,
      );
      await finishAll();
      const deletion = await json(
        await api(alice.token, 'POST', `/api/v2/workspaces/${doomed.id}/builds`, { transition: 'delete' }),
        201,
      );
      await finishAll();
      await json(await api(alice.token, 'GET', `/api/v2/workspaces/${doomed.id}`), 404);
      const read = await json(await api(alice.token, 'GET', `/api/v2/workspacebuilds/${deletion.id}`), 200);
      expect(read).toMatchObject({ transition: 'delete', status: 'deleted' });
      await json(await api(bob.token, 'GET', `/api/v2/workspacebuilds/${deletion.id}`), 404);
    });
  });

  describe('tasks page', () => {
    it('createTask, getTask and the list carry the names, template, agent and prompt (33.7)', async () => {
      const version = await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
          name: 'ai',
          definition: { has_ai_task: true },
        }),
        201,
      );
      await finishAll();
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/templates', {
          name: 'ai-tasks',
          display_name: 'AI tasks',
          template_version_id: version.id,
        }),
        201,
      );
      // api.ts createTask(user, {template_version_id, input, display_name})
      const created = await json(
        await api(alice.token, 'POST', '/api/v2/tasks/me', {
          template_version_id: version.id,
          input: 'Fix the flaky test',
          display_name: 'Flaky test',
        }),
        201,
      );
      expect(created).toMatchObject({
        owner_id: alice.user.uuid,
        owner_name: 'clientalice',
        display_name: 'Flaky test',
        template_version_id: version.id,
        template_name: 'ai-tasks',
        template_display_name: 'AI tasks',
        template_icon: '',
        initial_prompt: 'Fix the flaky test',
        status: 'pending',
        current_state: null,
        workspace_id: created.id,
      });
      expect(created.name).toMatch(/^task-[0-9a-f]{8}$/);
      await finishAll();
      const got = await json(await api(alice.token, 'GET', `/api/v2/tasks/clientalice/${created.id}`), 200);
      expect(got).toMatchObject({
        id: created.id,
        display_name: 'Flaky test',
        initial_prompt: 'Fix the flaky test',
      });
      expect(got.workspace_agent_id).toEqual(expect.any(String));
      expect(got.workspace_agent_lifecycle).toEqual(expect.any(String));
      expect(got.workspace_agent_health).toEqual(expect.objectContaining({ healthy: expect.any(Boolean) }));
      expect(Object.keys(got)).toEqual(expect.arrayContaining(['workspace_app_id']));
      const byName = await json(await api(alice.token, 'GET', `/api/v2/tasks/me/${created.name}`), 200);
      expect(byName.id).toBe(created.id);
      const listed = await json(await api(alice.token, 'GET', '/api/v2/tasks'), 200);
      expect(listed.tasks.find((task: Json) => task.id === created.id)).toMatchObject({
        display_name: 'Flaky test',
        initial_prompt: 'Fix the flaky test',
      });
      await json(await api(bob.token, 'GET', `/api/v2/tasks/clientalice/${created.id}`), 404);
      // A template version without an AI task, and a blank prompt, are refused.
      await json(
        await api(alice.token, 'POST', '/api/v2/tasks/me', { template_version_id: versionId, input: 'x' }),
        400,
      );
      await json(
        await api(alice.token, 'POST', '/api/v2/tasks/me', { template_version_id: version.id, input: ' ' }),
        400,
      );
      await json(await api(alice.token, 'POST', '/api/v2/tasks/me', { input: 'x' }), 400);
    });
  });

  describe('group page', () => {
    it('addMember / removeMember send null and "" for unchanged fields (33.2)', async () => {
      const group = await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/groups', {
          name: 'reviewers',
          display_name: 'Reviewers',
          avatar_url: '',
          quota_allowance: 3,
        }),
        201,
      );
      // api.ts addMember: patchGroup(groupId, {name: "", add_users: [userId], remove_users: [], display_name: null, avatar_url: null, quota_allowance: null})
      const added = await json(
        await api(admin.token, 'PATCH', `/api/v2/groups/${group.id}`, {
          name: '',
          add_users: [alice.user.uuid],
          remove_users: [],
          display_name: null,
          avatar_url: null,
          quota_allowance: null,
        }),
        200,
      );
      expect(added).toMatchObject({ name: 'reviewers', display_name: 'Reviewers', quota_allowance: 3 });
      expect(added.members.map((member: Json) => member.id)).toEqual([alice.user.uuid]);
      const removed = await json(
        await api(admin.token, 'PATCH', `/api/v2/groups/${group.id}`, {
          name: '',
          add_users: [],
          remove_users: [alice.user.uuid],
          display_name: null,
          avatar_url: null,
          quota_allowance: null,
        }),
        200,
      );
      expect(removed).toMatchObject({ name: 'reviewers', display_name: 'Reviewers', quota_allowance: 3 });
      expect(removed.members).toEqual([]);
    });
  });

  describe('group and organization routes of the same screens (33.11, 33.12)', () => {
    it('getGroups, a group and its members by name, getMyOrganizations, default_org_member_roles', async () => {
      const groups = await json(await api(admin.token, 'GET', '/api/v2/groups'), 200);
      expect(groups.map((group: Json) => group.name)).toEqual(
        expect.arrayContaining(['Everyone', 'reviewers']),
      );
      const filtered = await json(await api(admin.token, 'GET', '/api/v2/groups?organization=default'), 200);
      expect(filtered.length).toBe(groups.length);
      const byName = await json(
        await api(admin.token, 'GET', '/api/v2/organizations/default/groups/reviewers'),
        200,
      );
      expect(byName.name).toBe('reviewers');
      const members = await json(
        await api(admin.token, 'GET', '/api/v2/organizations/default/groups/reviewers/members'),
        200,
      );
      expect(members).toEqual({ users: [], count: 0 });
      await json(await api(admin.token, 'GET', '/api/v2/organizations/default/groups/nope'), 404);
      const mine = await json(await api(alice.token, 'GET', '/api/v2/users/me/organizations'), 200);
      expect(mine).toEqual([expect.objectContaining({ name: 'default', default_org_member_roles: [] })]);
      await json(await api(bob.token, 'GET', '/api/v2/users/nobody-here/organizations'), 404);
    });
  });

  describe('connection log filters (33.12)', () => {
    it("status takes Coder's ConnectionLogStatus values and refuses others", async () => {
      for (const status of ['ongoing', 'completed'])
        expect(
          (await json(await api(admin.token, 'GET', `/api/v2/connectionlog?q=status:${status}`), 200)).count,
        ).toBe(0);
      const refused = await json(
        await api(admin.token, 'GET', '/api/v2/connectionlog?q=status:connected'),
        400,
      );
      // Coder's text (httpapi.ParseCustom with ParseEnum): one value, never a list.
      expect(refused.validations).toContainEqual({
        field: 'status',
        detail: 'Query param "status" has invalid value: "connected" is not a valid value',
      });
      expect(refused.message).toBe('Invalid connection search query.');
    });
  });

  describe('agent chat page', () => {
    let configId: string;
    let chatId: string;
    beforeAll(async () => {
      configId = (
        await json(
          await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
            provider: 'openai-main',
            model: 'gpt-4o',
          }),
          201,
        )
      ).id;
    });

    it('messages are paged newest first with before_id/limit; posting answers {message, queued} (33.3)', async () => {
      const chat = await json(
        await api(alice.token, 'POST', '/api/experimental/chats', {
          model_config_id: configId,
          content: [{ type: 'text', text: 'one' }],
        }),
        201,
      );
      chatId = chat.id;
      for (const text of ['two', 'three']) {
        const posted = await json(
          await api(alice.token, 'POST', `/api/experimental/chats/${chatId}/messages`, {
            content: [{ type: 'text', text }],
          }),
          201,
        );
        expect(posted).toEqual({
          message: expect.objectContaining({ role: 'user', chat_id: chatId }),
          queued: false,
        });
      }
      const first = await json(
        await api(alice.token, 'GET', `/api/experimental/chats/${chatId}/messages?limit=2`),
        200,
      );
      expect(first.has_more).toBe(true);
      expect(first.queued_messages).toEqual([]);
      expect(first.messages.map((message: Json) => message.content[0].text)).toEqual(['three', 'two']);
      const next = await json(
        await api(
          alice.token,
          'GET',
          `/api/experimental/chats/${chatId}/messages?limit=2&before_id=${first.messages[1].id}`,
        ),
        200,
      );
      expect(next).toMatchObject({ has_more: false, queued_messages: [] });
      expect(next.messages.map((message: Json) => message.content[0].text)).toEqual(['one']);
      await json(await api(alice.token, 'GET', `/api/experimental/chats/${chatId}/messages?limit=0`), 400);
      await json(
        await api(alice.token, 'GET', `/api/experimental/chats/${chatId}/messages?before_id=x`),
        400,
      );
    });

    it("model configurations take Coder's nested model_config.cost and answer Coder's fields; getChatModels (33.8)", async () => {
      const created = await json(
        await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'openai-main',
          model: 'gpt-4.1',
          display_name: 'GPT-4.1',
          is_default: true,
          model_config: {
            cost: {
              input_price_per_million_tokens: '2',
              output_price_per_million_tokens: '8',
              cache_read_price_per_million_tokens: '0.5',
            },
          },
        }),
        201,
      );
      expect(created).toMatchObject({
        enabled: true,
        is_default: true,
        context_limit: 0,
        compression_threshold: 0,
        input_price_per_million_tokens: '2',
        model_config: {
          cost: {
            input_price_per_million_tokens: '2',
            output_price_per_million_tokens: '8',
            cache_read_price_per_million_tokens: '0.5',
          },
        },
      });
      // Coder's cost fields are omitempty pointers: an unset price is absent (issue 48 item 9)
      expect(created.model_config.cost).not.toHaveProperty('cache_write_price_per_million_tokens');
      const listed = await json(await api(alice.token, 'GET', '/api/experimental/chats/model-configs'), 200);
      expect(listed.filter((config: Json) => config.is_default).map((config: Json) => config.id)).toEqual([
        created.id,
      ]);
      expect(created.updated_at).toEqual(expect.any(String));
      const updated = await json(
        await api(admin.token, 'PATCH', `/api/experimental/chats/model-configs/${created.id}`, {
          model_config: {
            cost: { output_price_per_million_tokens: '10', cache_read_price_per_million_tokens: null },
          },
        }),
        200,
      );
      expect(updated.model_config.cost).toEqual({
        input_price_per_million_tokens: '2',
        output_price_per_million_tokens: '10',
      });
      expect(updated.is_default).toBe(true);
      const undefaulted = await json(
        await api(admin.token, 'PATCH', `/api/experimental/chats/model-configs/${created.id}`, {
          is_default: false,
        }),
        200,
      );
      expect(undefaulted.is_default).toBe(false);
      await json(
        await api(admin.token, 'PATCH', `/api/experimental/chats/model-configs/${created.id}`, {
          model_config: { cost: { output_price_per_million_tokens: true } },
        }),
        400,
      );
      const models = await json(await api(alice.token, 'GET', '/api/experimental/chats/models'), 200);
      expect(models.providers).toEqual([
        expect.objectContaining({
          provider: 'openai-main',
          available: true,
          models: expect.arrayContaining([
            { id: created.id, provider: 'openai-main', model: 'gpt-4.1', display_name: 'GPT-4.1' },
          ]),
        }),
      ]);
    });

    it('the Chat JSON carries last_error (absent, or why it failed), children and last_turn_summary (33.9)', async () => {
      const fresh = await json(await api(alice.token, 'GET', `/api/experimental/chats/${chatId}`), 200);
      expect(fresh).toMatchObject({ children: [], last_turn_summary: null });
      // Go's omitempty *ChatError: absent while the chat has not failed (issue 48 item 9)
      expect(fresh).not.toHaveProperty('last_error');
      await t.dataSource.query(
        `UPDATE chats SET status = 'error', last_error = 'provider said no' WHERE id = $1`,
        [chatId],
      );
      const failed = await json(await api(alice.token, 'GET', `/api/experimental/chats/${chatId}`), 200);
      expect(failed.last_error).toEqual({ kind: 'generic', message: 'provider said no' });
      await t.dataSource.query(`UPDATE chats SET status = 'waiting', last_error = NULL WHERE id = $1`, [
        chatId,
      ]);
    });

    it("watchChat: the chat page's stream with the browser's cookie and Origin, after_id honoured (33.9)", async () => {
      const page = await json(
        await api(alice.token, 'GET', `/api/experimental/chats/${chatId}/messages`),
        200,
      );
      const ids = (page.messages as { id: number }[]).map((message) => message.id).sort((x, y) => x - y);
      const socket = browserSocket(`/api/experimental/chats/${chatId}/stream?after_id=${ids[0]}`, alice);
      await socket.opened;
      type Event = { type: string; chat_id: string; message?: { id: number }; status?: { status: string } };
      const events = () => (socket.frames as unknown as Event[][]).flat();
      await waitFor(
        () => events().some((event) => event.type === 'status') || undefined,
        10_000,
        'the snapshot',
      );
      expect(
        events()
          .filter((event) => event.type === 'message')
          .map((event) => event.message!.id),
      ).toEqual(ids.slice(1));
      expect(events().find((event) => event.type === 'status')!.status!.status).toEqual(expect.any(String));
      const posted = await json(
        await api(alice.token, 'POST', `/api/experimental/chats/${chatId}/messages`, {
          content: [{ type: 'text', text: 'streamed' }],
        }),
        201,
      );
      await waitFor(
        () => events().some((event) => event.message?.id === posted.message.id) || undefined,
        10_000,
        'the new message',
      );
      socket.close();
      const refused = browserSocket(`/api/experimental/chats/${chatId}/stream`, bob);
      await expect(refused.opened).rejects.toThrow();
      expect(refused.unexpected?.status).toBe(404);
    });

    it('PATCH {archived} archives and unarchives as the chat UI does (33.4)', async () => {
      const archived = await json(
        await api(alice.token, 'PATCH', `/api/experimental/chats/${chatId}`, { archived: true }),
        200,
      );
      expect(archived.archived).toBe(true);
      expect(
        (await json(await api(alice.token, 'GET', `/api/experimental/chats/${chatId}`), 200)).archived,
      ).toBe(true);
      const back = await json(
        await api(alice.token, 'PATCH', `/api/experimental/chats/${chatId}`, { archived: false }),
        200,
      );
      expect(back.archived).toBe(false);
      await json(await api(bob.token, 'PATCH', `/api/experimental/chats/${chatId}`, { archived: true }), 404);
      await json(
        await api(alice.token, 'PATCH', `/api/experimental/chats/${chatId}`, { archived: 'yes' }),
        400,
      );
    });
  });

  // Last: every Coder JSON answer above against the response schema the OpenAPI document states.
  it('every recorded Coder response satisfies its OpenAPI response schema (33 acceptance)', async () => {
    const schemas = await loadResponseSchemas(t.url!);
    const { failures, checked } = schemas.check(recorder.responses);
    expect(checked).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });
});
