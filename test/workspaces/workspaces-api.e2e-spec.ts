import type { CreatedUser } from '../helpers/factories';
import { waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { WatchClient } from '../notifications/helpers';
import { loadResponseSchemas, ResponseRecorder } from '../coder-client/response-schemas';
import { coderClient, EMBEDDED, type Json, readStream } from './helpers';
import { ProvisionerDaemonsService } from '../../src/modules/workspaces/provisioner-daemons.service';

const NOT_FOUND = 'Resource not found or you do not have access to this resource';
const MISSING = '00000000-0000-4000-8000-000000000001';

/**
 * The workspaces API without a provisioner process (issue 17.1, 17.2, 17.6, 17.8): statuses, texts and
 * auth of every route, the daemon protocol driven by hand (leases that expire), the build watch.
 * Jobs stay pending here unless the test acquires them itself.
 */
describe('workspaces API: statuses, auth, the daemon protocol and the build watch', () => {
  let t: TestApp;
  let other: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let key: string;
  let templateId: string;
  let versionId: string;
  let firstVersion: Json;
  const recorder = new ResponseRecorder();
  const client = coderClient(() => t.url!, recorder);
  const { api, json } = client;
  const daemon = (route: string, body: unknown, providedKey = key) =>
    fetch(`${t.url}/api/v2/provisionerdaemons/jobs/${route}`, {
      method: 'POST',
      headers: { 'Service-Provisioner-Key': providedKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** Acquires the next job as a hand-driven daemon. */
  const acquire = async (worker = 'hand'): Promise<Json> =>
    json(await daemon('acquire', { worker_id: worker, wait_ms: 2000 }), 200);
  const finishAll = async (): Promise<void> => {
    for (;;) {
      const response = await daemon('acquire', { worker_id: 'finisher', wait_ms: 0 });
      if (response.status === 204) return;
      const job = (await response.json()) as Json;
      await json(await daemon(`${job.job_id}/complete`, { worker_id: 'finisher' }), 204);
    }
  };

  beforeAll(async () => {
    const env = {
      PROVISIONER_LEASE_MS: '1000',
      WORKSPACE_WATCH_POLL_MS: '100',
      PROVISIONER_MAX_ATTEMPTS: '2',
      EXPERIMENTS: 'workspace-build-updates',
    };
    t = await createTestApp({ env });
    await t.listen();
    other = EMBEDDED ? t : await createTestApp({ env, schema: t.schema });
    if (other !== t) await other.listen();
    admin = await t.factories.admin({ username: 'apiadmin' });
    alice = await t.factories.user({ username: 'apialice' });
    bob = await t.factories.user({ username: 'apibob' });
    key = (
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', {
          name: 'hand',
          tags: { site: 'ci' },
        }),
        201,
      )
    ).key;
    const version = await json(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        name: 'v1',
        definition: { has_ai_task: true, presets: [{ name: 'p', prebuilds: { instances: 0 } }] },
      }),
      201,
    );
    versionId = version.id;
    firstVersion = version;
    await finishAll();
    templateId = (
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/templates', {
          name: 'api',
          template_version_id: versionId,
        }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    if (other !== t) await other?.close();
    await t?.close();
  });

  describe('provisioner keys', () => {
    it('templates by name and across organizations', async () => {
      const byName = await json(
        await api(alice.token, 'GET', '/api/v2/organizations/default/templates/API'),
        200,
      );
      expect(byName.id).toBe(templateId);
      await json(await api(alice.token, 'GET', '/api/v2/organizations/default/templates/nope'), 404);
      const all = await json(await api(alice.token, 'GET', '/api/v2/templates'), 200);
      expect(all.map((template: Json) => template.id)).toContain(templateId);
    });

    it('lists keys without their secret; duplicates 409, reserved names 400, members 403, unknown 404', async () => {
      const listed = await json(
        await api(admin.token, 'GET', '/api/v2/organizations/default/provisionerkeys'),
        200,
      );
      expect(listed).toEqual([expect.objectContaining({ name: 'hand', tags: { site: 'ci' } })]);
      expect(JSON.stringify(listed)).not.toContain(key);
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'hand' }),
        409,
      );
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'built-in' }),
        400,
      );
      await json(await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', {}), 400);
      await json(
        await api(alice.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'mine' }),
        403,
      );
      await json(await api(admin.token, 'DELETE', '/api/v2/organizations/default/provisionerkeys/nope'), 404);
      const made = await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'gone' }),
        201,
      );
      await json(await api(admin.token, 'DELETE', '/api/v2/organizations/default/provisionerkeys/gone'), 204);
      await json(await daemon('acquire', { worker_id: 'x' }, made.key), 401);
    });

    it('daemon routes refuse user tokens and unknown keys (401)', async () => {
      await json(
        await api(admin.token, 'POST', '/api/v2/provisionerdaemons/jobs/acquire', { worker_id: 'x' }),
        401,
      );
      await json(await daemon('acquire', { worker_id: 'x' }, 'not-a-key'), 401);
      await json(await daemon('acquire', {}), 400);
    });
  });

  describe('templates and workspaces', () => {
    it('unknown ids are 404, bad bodies 400, a name taken 409', async () => {
      await json(await api(alice.token, 'GET', `/api/v2/templates/${MISSING}`), 404);
      await json(await api(alice.token, 'GET', `/api/v2/templateversions/${MISSING}`), 404);
      await json(await api(alice.token, 'GET', `/api/v2/workspaces/${MISSING}`), 404);
      // 36 characters of a uuid's alphabet that are no uuid: still 404, never a database error.
      await json(await api(alice.token, 'POST', `/api/v2/tasks/me/${'-'.repeat(36)}/pause`), 404);
      const unknownTemplate = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', { name: 'x', template_id: MISSING }),
        404,
      );
      expect(unknownTemplate.message).toBe(NOT_FOUND);
      const badPreset = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'x',
          template_id: templateId,
          template_version_preset_id: MISSING,
        }),
        400,
      );
      expect(badPreset.validations[0].field).toBe('template_version_preset_id');
      await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'bad name!',
          template_id: templateId,
        }),
        400,
      );
      await json(await api(alice.token, 'POST', '/api/v2/users/me/workspaces', { name: 'x' }), 400);
      await json(await api(alice.token, 'POST', '/api/v2/users/me/workspaces', '[]'), 400);
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/templates', {
          name: 'api',
          template_version_id: versionId,
        }),
        409,
      );
      await json(
        await api(alice.token, 'POST', '/api/v2/organizations/default/templateversions', { definition: {} }),
        403,
      );
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
          definition: { nope: 1 },
        }),
        400,
      );
    });

    let workspaceId: string;
    it('a member creates a workspace; others get 404; a second build while one is pending is 409', async () => {
      const created = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'one',
          template_id: templateId,
        }),
        201,
      );
      workspaceId = created.id;
      expect(created.latest_build).toMatchObject({
        status: 'pending',
        transition: 'start',
        has_ai_task: true,
        build_number: 1,
        reason: 'initiator',
      });
      expect(created.latest_build.job.metadata).toMatchObject({
        workspace_build_transition: 'start',
        workspace_name: 'one',
        template_name: 'api',
      });
      await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'one',
          template_id: templateId,
        }),
        409,
      );
      await json(await api(bob.token, 'GET', `/api/v2/workspaces/${workspaceId}`), 404);
      await json(
        await api(bob.token, 'POST', `/api/v2/workspaces/${workspaceId}/builds`, { transition: 'stop' }),
        404,
      );
      await json(
        await api(bob.token, 'POST', '/api/v2/users/apialice/workspaces', {
          name: 'theirs',
          template_id: templateId,
        }),
        403,
      );
      const busy = await json(
        await api(alice.token, 'POST', `/api/v2/workspaces/${workspaceId}/builds`, { transition: 'stop' }),
        409,
      );
      expect(busy.message).toBe('A workspace build is already active.');
      const busyTask = await json(await api(alice.token, 'POST', '/api/v2/tasks/me/one/pause'), 409);
      expect(busyTask.message).toBe('A workspace build is already active.');
      await json(
        await api(alice.token, 'POST', `/api/v2/workspaces/${workspaceId}/builds`, { transition: 'explode' }),
        400,
      );
      const list = await json(await api(admin.token, 'GET', '/api/v2/workspaces?q=owner:apialice'), 200);
      expect(list.count).toBe(1);
      await json(await api(admin.token, 'GET', '/api/v2/workspaces?q=bogus:1'), 400);
      await json(await api(alice.token, 'GET', '/api/v2/workspaces?limit=-1'), 400);
    });

    it('a narrow token may read but not build; no token is 401; an agent token is 401 on user routes', async () => {
      const narrow = await t.factories.token(alice.user, { scopes: ['workspace:read'], name: 'narrow' });
      await json(await api(narrow, 'GET', `/api/v2/workspaces/${workspaceId}`), 200);
      await finishAll();
      await json(
        await api(narrow, 'POST', `/api/v2/workspaces/${workspaceId}/builds`, { transition: 'stop' }),
        403,
      );
      await json(await api('', 'GET', `/api/v2/workspaces/${workspaceId}`), 401);
      const [agent] = (await t.dataSource.query('SELECT id FROM workspace_agents WHERE workspace_id = $1', [
        workspaceId,
      ])) as { id: string }[];
      expect(agent).toBeDefined();
      // Any uuid in the session header is taken as an agent token; an unknown one is 401 like on agent routes.
      await json(await api(MISSING, 'GET', `/api/v2/workspaces/${workspaceId}`), 401);
      await json(await api(MISSING, 'GET', '/api/v2/workspaceagents/me/manifest'), 401);
      await json(await api(alice.token, 'GET', '/api/v2/workspaceagents/me/manifest'), 401);
    });

    it('sharing: use lets a user read, not stop (403); the owner cannot be changed; bad roles 400', async () => {
      await json(
        await api(alice.token, 'PATCH', `/api/v2/workspaces/${workspaceId}/acl`, {
          user_roles: { [bob.user.uuid]: 'use' },
        }),
        204,
      );
      const acl = await json(await api(alice.token, 'GET', `/api/v2/workspaces/${workspaceId}/acl`), 200);
      expect(acl.users).toEqual([
        expect.objectContaining({ id: bob.user.uuid, username: 'apibob', role: 'use' }),
      ]);
      await json(await api(bob.token, 'GET', `/api/v2/workspaces/${workspaceId}`), 200);
      await json(
        await api(bob.token, 'POST', `/api/v2/workspaces/${workspaceId}/builds`, { transition: 'stop' }),
        403,
      );
      await json(await api(bob.token, 'POST', '/api/v2/tasks/apialice/one/pause'), 403);
      await json(
        await api(alice.token, 'PATCH', `/api/v2/workspaces/${workspaceId}/acl`, {
          user_roles: { [alice.user.uuid]: 'use' },
        }),
        400,
      );
      await json(
        await api(alice.token, 'PATCH', `/api/v2/workspaces/${workspaceId}/acl`, {
          user_roles: { [bob.user.uuid]: 'boss' },
        }),
        400,
      );
      await json(
        await api(alice.token, 'PATCH', `/api/v2/workspaces/${workspaceId}/acl`, {
          user_roles: { [bob.user.uuid]: '' },
        }),
        204,
      );
      await json(await api(bob.token, 'GET', `/api/v2/workspaces/${workspaceId}`), 404);
    });

    it('an organization that stops sharing drops the shares and refuses new ones', async () => {
      await json(
        await api(alice.token, 'PATCH', `/api/v2/workspaces/${workspaceId}/acl`, {
          user_roles: { [bob.user.uuid]: 'use' },
        }),
        204,
      );
      await json(await api(bob.token, 'GET', `/api/v2/workspaces/${workspaceId}`), 200);
      const sharing = '/api/v2/organizations/default/settings/workspace-sharing';
      await json(await api(admin.token, 'PATCH', sharing, { shareable_workspace_owners: 'none' }), 200);
      await waitFor(
        async () =>
          (await api(bob.token, 'GET', `/api/v2/workspaces/${workspaceId}`)).status === 404
            ? true
            : undefined,
        5_000,
        'share dropped',
      );
      await json(
        await api(alice.token, 'PATCH', `/api/v2/workspaces/${workspaceId}/acl`, {
          user_roles: { [bob.user.uuid]: 'use' },
        }),
        403,
      );
      await json(await api(admin.token, 'PATCH', sharing, { shareable_workspace_owners: 'everyone' }), 200);
    });

    it('tasks: listed, pause 202 with task_manual_pause, pause again 409, resume 202 with task_resume, not visible 404', async () => {
      const tasks = await json(await api(alice.token, 'GET', '/api/v2/tasks'), 200);
      expect(tasks.tasks.map((task: Json) => task.id)).toEqual([workspaceId]);
      const paused = await json(await api(alice.token, 'POST', '/api/v2/tasks/me/one/pause'), 202);
      expect(paused.workspace_build).toMatchObject({ transition: 'stop', reason: 'task_manual_pause' });
      await finishAll();
      const again = await json(
        await api(alice.token, 'POST', `/api/v2/tasks/apialice/${workspaceId}/pause`),
        409,
      );
      expect(again.message).toBe('Task workspace is already paused.');
      const resumed = await json(
        await api(alice.token, 'POST', '/api/experimental/tasks/me/one/resume'),
        202,
      );
      expect(resumed.workspace_build).toMatchObject({ transition: 'start', reason: 'task_resume' });
      await finishAll();
      const running = await json(await api(alice.token, 'POST', '/api/v2/tasks/me/one/resume'), 409);
      expect(running.message).toBe('Task workspace is already running.');
      await json(await api(bob.token, 'POST', '/api/v2/tasks/apialice/one/pause'), 404);
      await json(await api(alice.token, 'POST', '/api/v2/tasks/me/nope/pause'), 404);
      const inbox = await waitFor(
        async () => {
          const body = await json(await api(alice.token, 'GET', '/api/v2/notifications/inbox'), 200);
          return body.notifications.length >= 2 ? (body.notifications as Json[]) : undefined;
        },
        10_000,
        'task notifications',
      );
      expect(inbox.map((item) => item.title)).toEqual(
        expect.arrayContaining(['Task "one" paused', 'Task "one" resumed']),
      );
    });
  });

  describe('workspaces elsewhere in the platform', () => {
    it('authcheck answers for a workspace and a template by resource_id', async () => {
      const [workspace] = (await t.dataSource.query(
        `SELECT w.id FROM workspaces w JOIN users u ON u.uuid = w.owner_id WHERE u.name = 'apialice' AND w.name = 'one'`,
      )) as { id: string }[];
      const checks = {
        readWorkspace: { object: { resource_type: 'workspace', resource_id: workspace!.id }, action: 'read' },
        deleteWorkspace: {
          object: { resource_type: 'workspace', resource_id: workspace!.id },
          action: 'delete',
        },
        readTemplate: { object: { resource_type: 'template', resource_id: templateId }, action: 'read' },
        updateTemplate: { object: { resource_type: 'template', resource_id: templateId }, action: 'update' },
      };
      const mine = await json(await api(alice.token, 'POST', '/api/v2/authcheck', { checks }), 200);
      expect(mine).toEqual({
        readWorkspace: true,
        deleteWorkspace: true,
        readTemplate: true,
        updateTemplate: false,
      });
      const theirs = await json(await api(bob.token, 'POST', '/api/v2/authcheck', { checks }), 200);
      expect(theirs.readWorkspace).toBe(false);
      expect(theirs.deleteWorkspace).toBe(false);
    });

    it('a user who owns workspaces is not deleted (417)', async () => {
      const refused = await json(await api(admin.token, 'DELETE', '/api/v2/users/apialice'), 417);
      expect(refused.message).toBe(
        'You cannot delete a user that has workspaces. Delete their workspaces and try again!',
      );
    });
  });

  describe('the daemon protocol', () => {
    it('a job whose daemon stops reporting goes back to the queue, then fails after the last attempt; a late report is 409', async () => {
      const created = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'lease',
          template_id: templateId,
        }),
        201,
      );
      const first = await acquire('dies');
      expect(first.workspace_build.workspace_id).toBe(created.id);
      expect(first.workspace_build.agent.token).toMatch(/^[0-9a-f-]{36}$/);
      const jobId = first.job_id as string;
      const status = async () =>
        (
          (await t.dataSource.query('SELECT status, attempts, error FROM provisioner_jobs WHERE id = $1', [
            jobId,
          ])) as Json[]
        )[0];
      await waitFor(
        async () => ((await status()).status === 'pending' ? true : undefined),
        10_000,
        'lease expiry',
      );
      await json(await daemon(`${jobId}/report`, { worker_id: 'dies', logs: [{ output: 'late' }] }), 409);
      const second = await acquire('dies-too');
      expect(second.job_id).toBe(jobId);
      expect(second.workspace_build.agent).toEqual(first.workspace_build.agent);
      await waitFor(
        async () => ((await status()).status === 'failed' ? true : undefined),
        10_000,
        'failed after two runs',
      );
      expect(await status()).toMatchObject({
        attempts: 2,
        error: 'The provisioner daemon stopped reporting and its lease expired.',
      });
      const workspace = await json(await api(alice.token, 'GET', `/api/v2/workspaces/${created.id}`), 200);
      expect(workspace.latest_build.status).toBe('failed');
      const jobs = await json(
        await api(admin.token, 'GET', '/api/v2/organizations/default/provisionerjobs'),
        200,
      );
      const listed = jobs.find((job: Json) => job.id === jobId);
      expect(listed).toMatchObject({ status: 'failed', type: 'workspace_build', worker_name: 'hand' });
      expect(listed.metadata).toMatchObject({
        workspace_build_transition: 'start',
        workspace_name: 'lease',
        template_name: 'api',
      });
      const importJob = jobs.find((job: Json) => job.type === 'template_version_import');
      expect(importJob.metadata).not.toHaveProperty('workspace_build_transition');
      await json(await api(alice.token, 'GET', '/api/v2/organizations/default/provisionerjobs'), 403);
      const failed = await json(
        await api(admin.token, 'GET', '/api/v2/organizations/default/provisionerjobs?status=failed,canceled'),
        200,
      );
      expect(failed.map((job: Json) => job.id)).toEqual([jobId]);
      const one = await json(
        await api(admin.token, 'GET', `/api/v2/organizations/default/provisionerjobs/${jobId}`),
        200,
      );
      expect(one.id).toBe(jobId);
      await json(
        await api(admin.token, 'GET', '/api/v2/organizations/default/provisionerjobs?status=exploded'),
        400,
      );
      await json(await api(admin.token, 'GET', '/api/v2/organizations/default/provisionerjobs?limit=0'), 400);
    });

    it('a failed build is reported with its error and logs', async () => {
      const created = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'fails',
          template_id: templateId,
        }),
        201,
      );
      const job = await acquire('reports');
      await json(
        await daemon(`${job.job_id}/report`, {
          worker_id: 'reports',
          logs: [{ stage: 'Applying', output: 'boom coming' }],
        }),
        204,
      );
      await json(await daemon(`${job.job_id}/fail`, { worker_id: 'reports', error: 'exit status 1' }), 204);
      const build = (await json(await api(alice.token, 'GET', `/api/v2/workspaces/${created.id}`), 200))
        .latest_build;
      expect(build.status).toBe('failed');
      expect(build.job.error).toBe('exit status 1');
      const logs = await json(await api(alice.token, 'GET', `/api/v2/workspacebuilds/${build.id}/logs`), 200);
      expect(logs.map((log: Json) => log.output)).toContain('boom coming');
      await json(await daemon(`${job.job_id}/complete`, { worker_id: 'reports' }), 409);
      await json(await daemon('not-a-uuid/complete', { worker_id: 'reports' }), 400);
    });
  });

  describe("provisioner daemons (Coder's getProvisionerDaemonsByOrganization, matched_provisioners)", () => {
    it('a job created while no daemon was seen says so in its logs and matched_provisioners', async () => {
      expect(firstVersion.matched_provisioners).toEqual({ count: 0, available: 0, most_recently_seen: null });
      const logs = await json(
        await api(admin.token, 'GET', `/api/v2/templateversions/${versionId}/logs`),
        200,
      );
      const warning = logs.find((log: Json) => log.stage === 'Waiting for a provisioner');
      expect(warning).toMatchObject({ log_level: 'warn' });
      expect(warning.output).toContain('No provisioner daemon matching the tags scope=organization');
    });

    it('lists the daemons that polled, with status, key, tags and jobs; filters and their 400s; members read, anonymous 401', async () => {
      await finishAll();
      const version = await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
          name: 'daemons',
          definition: {},
        }),
        201,
      );
      expect(version.matched_provisioners.count).toBeGreaterThanOrEqual(1);
      expect(version.matched_provisioners.available).toBeGreaterThanOrEqual(1);
      expect(typeof version.matched_provisioners.most_recently_seen).toBe('string');
      const job = await acquire('busybee');
      const list = async (query = ''): Promise<Json[]> =>
        json(await api(admin.token, 'GET', `/api/v2/organizations/default/provisionerdaemons${query}`), 200);
      const busy = (await list()).find((d) => d.name === 'busybee' || d.current_job?.id === job.job_id);
      expect(busy).toMatchObject({
        key_name: 'hand',
        status: 'busy',
        provisioners: ['devplane'],
        tags: { owner: '', scope: 'organization', site: 'ci' },
        current_job: { id: job.job_id, status: 'running' },
      });
      expect((await list('?status=busy')).map((d) => d.id)).toEqual([busy!.id]);
      expect((await list('?tags={"site":"elsewhere"}')).length).toBe(0);
      expect((await list(`?ids=${busy!.id}&tags={"site":"ci"}`)).length).toBe(1);
      await json(await daemon(`${job.job_id}/complete`, { worker_id: 'busybee' }), 204);
      const done = (await list(`?ids=${busy!.id}`))[0];
      expect(done).toMatchObject({
        status: 'idle',
        current_job: null,
        previous_job: { id: job.job_id, status: 'succeeded' },
      });
      expect((await list('?status=offline')).length).toBe(0);

      const bad = await json(
        await api(
          admin.token,
          'GET',
          '/api/v2/organizations/default/provisionerdaemons?limit=0&status=asleep&tags=x&max_age=soon',
        ),
        400,
      );
      expect(bad.validations.map((v: Json) => v.field).sort()).toEqual([
        'limit',
        'max_age',
        'status',
        'tags',
      ]);
      // Organization members read the daemons (Coder's member role), anonymous callers do not.
      await json(await api(alice.token, 'GET', '/api/v2/organizations/default/provisionerdaemons'), 200);
      expect((await fetch(`${t.url}/api/v2/organizations/default/provisionerdaemons`)).status).toBe(401);
    });

    it('a daemon not seen for 90 s is offline (listed on request); one gone for a week is purged', async () => {
      const organizationId = (await json(await api(admin.token, 'GET', '/api/v2/organizations/default'), 200))
        .id;
      await t.dataSource.query(
        `INSERT INTO provisioner_daemons (worker_id, organization_id, name, tags, last_seen_at, created_at)
         VALUES ('gone-a-while', $1, 'sleepy', '{"owner":"","scope":"organization"}', now() - interval '2 days', now()),
                ('gone-for-good', $1, 'ancient', '{"owner":"","scope":"organization"}', now() - interval '8 days', now())`,
        [organizationId],
      );
      const list = async (query = ''): Promise<Json[]> =>
        json(await api(admin.token, 'GET', `/api/v2/organizations/default/provisionerdaemons${query}`), 200);
      expect((await list()).some((d) => d.name === 'sleepy')).toBe(false);
      expect((await list('?status=offline')).find((d) => d.name === 'sleepy')).toMatchObject({
        status: 'offline',
        key_name: 'built-in',
      });
      expect((await list('?offline=true&max_age=24h')).some((d) => d.name === 'sleepy')).toBe(false);
      // The next poll purges week-old daemons (at most hourly per instance: the test resets the clock).
      (t.app.get(ProvisionerDaemonsService) as unknown as { lastPurge: number }).lastPurge = 0;
      await daemon('acquire', { worker_id: 'purger', wait_ms: 0 });
      const names = (await list('?offline=true')).map((d) => d.name);
      expect(names).toContain('sleepy');
      expect(names).not.toContain('ancient');
    });

    it('a new workspace build answers matched_provisioners', async () => {
      const created = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'matched',
          template_id: templateId,
        }),
        201,
      );
      await finishAll();
      const build = await json(
        await api(alice.token, 'POST', `/api/v2/workspaces/${created.id}/builds`, { transition: 'stop' }),
        201,
      );
      expect(build.matched_provisioners).toMatchObject({
        count: expect.any(Number),
        available: expect.any(Number),
      });
      expect(build.matched_provisioners.count).toBeGreaterThanOrEqual(1);
      await finishAll();
    });
  });

  describe('the build watch', () => {
    const watchUrl = () => `${t.url!.replace('http', 'ws')}/api/experimental/watch-all-workspacebuilds`;

    it('needs site-wide workspace read (403 for a member)', async () => {
      const member = new WatchClient(watchUrl(), { 'Service-Session-Token': alice.token });
      await expect(member.opened).rejects.toThrow();
      expect(member.unexpected?.status).toBe(403);
      expect(JSON.parse(member.unexpected!.body).message).toBe(
        'You are not authorized to watch all workspace builds.',
      );
    });

    it('sends one frame per build state change, including builds started on another instance', async () => {
      const watcher = new WatchClient(watchUrl(), { 'Service-Session-Token': admin.token });
      await watcher.opened;
      const otherClient = coderClient(() => other.url!);
      const created = await otherClient.json(
        await otherClient.api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'watched',
          template_id: templateId,
        }),
        201,
      );
      await finishAll();
      await waitFor(
        () =>
          watcher.frames.some(
            (frame) => frame.workspace_id === created.id && frame.job_status === 'succeeded',
          ),
        10_000,
        'frames',
      );
      const frames = watcher.frames.filter((frame) => frame.workspace_id === created.id);
      expect(frames.map((frame) => frame.job_status)).toEqual(['pending', 'running', 'succeeded']);
      expect(frames[0]).toEqual({
        workspace_id: created.id,
        workspace_name: 'watched',
        build_id: created.latest_build.id,
        transition: 'start',
        job_status: 'pending',
        build_number: 1,
      });
      watcher.close();
    });
  });
  describe("the workspace watch (Coder's watchWorkspace: watch-ws and SSE, issue 33 item 11)", () => {
    it('sends the Workspace at once and again when its build moves; others 404; no credential 401', async () => {
      const created = await json(
        await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'watchme',
          template_id: templateId,
        }),
        201,
      );
      const wsUrl = `${t.url!.replace('http', 'ws')}/api/v2/workspaces/${created.id}/watch-ws`;
      const watcher = new WatchClient(wsUrl, { 'Service-Session-Token': alice.token });
      await watcher.opened;
      await waitFor(() => watcher.frames.length >= 1, 10_000, 'the first frame');
      expect(watcher.frames[0]).toMatchObject({
        type: 'data',
        data: { id: created.id, name: 'watchme', latest_build: { status: 'pending' } },
      });
      const events = await fetch(`${t.url}/api/v2/workspaces/${created.id}/watch`, {
        headers: { 'Service-Session-Token': alice.token },
      });
      expect(events.status).toBe(200);
      expect(events.headers.get('content-type')).toContain('text/event-stream');
      await finishAll();
      await waitFor(
        () => watcher.frames.some((frame) => (frame.data as Json)?.latest_build?.status === 'running'),
        10_000,
        'a frame with the finished build',
      );
      const { text } = await readStream(events, 1500);
      expect(text).toContain('event: data');
      const first = JSON.parse(/data: (.*)/.exec(text)![1]!) as Json;
      expect(first).toMatchObject({ id: created.id, name: 'watchme' });
      watcher.close();

      const stranger = new WatchClient(wsUrl, { 'Service-Session-Token': bob.token });
      await expect(stranger.opened).rejects.toThrow();
      expect(stranger.unexpected?.status).toBe(404);
      expect(
        (
          await fetch(`${t.url}/api/v2/workspaces/${created.id}/watch`, {
            headers: { 'Service-Session-Token': bob.token },
          })
        ).status,
      ).toBe(404);
      const anonymous = new WatchClient(wsUrl);
      await expect(anonymous.opened).rejects.toThrow();
      expect(anonymous.unexpected?.status).toBe(401);
      expect((await fetch(`${t.url}/api/v2/workspaces/${created.id}/watch`)).status).toBe(401);
    });
  });

  // Last: the Coder JSON answers above against the OpenAPI response schemas (issue 33 acceptance).
  it('every recorded Coder response satisfies its OpenAPI response schema', async () => {
    const { failures, checked } = (await loadResponseSchemas(t.url!)).check(recorder.responses);
    expect(checked).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });
});

describe('the build watch without its experiment', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.listen();
  });
  afterAll(async () => t.close());

  it('is 403 with Coder text', async () => {
    const admin = await t.factories.admin({ username: 'noexp' });
    const watcher = new WatchClient(
      `${t.url!.replace('http', 'ws')}/api/experimental/watch-all-workspacebuilds`,
      {
        'Service-Session-Token': admin.token,
      },
    );
    await expect(watcher.opened).rejects.toThrow();
    expect(watcher.unexpected?.status).toBe(403);
    expect(JSON.parse(watcher.unexpected!.body).message).toBe(
      "Workspace build updates functionality requires enabling the 'workspace-build-updates' experiment.",
    );
  });
});
