import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CreatedUser } from '../helpers/factories';
import {
  isAlive,
  killAgents,
  type ProvisionerProcess,
  startProvisioner,
  waitFor,
} from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of the Coder API, read field by field
type Json = any;

const DEFINITION = {
  directory: 'project',
  files: { 'project/README.md': '# hello\n' },
  env: { GREETING: 'hi' },
  apps: [{ slug: 'code', display_name: 'Code', url: 'http://localhost:8080' }],
  startup_script: 'echo started > started.txt',
  presets: [{ name: 'small', parameters: { cpu: '1' } }],
};

/** Workspaces (issue 17): templates, builds, a real provisioner process and real agents. */
describe('workspaces with a real provisioner and agent', () => {
  let t: TestApp;
  let base: string;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let provisioner: ProvisionerProcess;
  let workspacesDir: string;
  let templateId: string;

  const api = (token: string, method: string, route: string, body?: unknown) =>
    fetch(base + route, {
      method,
      headers: {
        'Service-Session-Token': token,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const json = async <T = Record<string, unknown>>(response: Response, status: number): Promise<T> => {
    const text = await response.text();
    if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const workspace = async (id: string, token = admin.token) =>
    json<Json>(await api(token, 'GET', `/api/v2/workspaces/${id}`), 200);
  const waitStatus = (id: string, status: string, token = admin.token) =>
    waitFor(
      async () => ((await workspace(id, token)).latest_build.status === status ? true : undefined),
      60_000,
      `workspace ${status}`,
    );

  beforeAll(async () => {
    t = await createTestApp({ env: { PROVISIONER_LEASE_MS: '3000', AGENT_DISCONNECT_TIMEOUT_MS: '3000' } });
    base = await t.listen();
    workspacesDir = path.join(t.config.dataDir, 'workspaces');
    admin = await t.factories.admin({ username: 'wsadmin' });
    alice = await t.factories.user({ username: 'wsalice' });
    bob = await t.factories.user({ username: 'wsbob' });
    const key = await json<{ key: string }>(
      await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'ci' }),
      201,
    );
    provisioner = startProvisioner({
      DEVPLANE_URL: base,
      DEVPLANE_PROVISIONER_KEY: key.key,
      PROVISIONER_WORKSPACES_DIR: workspacesDir,
    });
  });
  afterAll(async () => {
    if (process.env.DEBUG_WORKSPACES) {
      process.stdout.write(provisioner?.output() ?? '');
      for (const entry of readdirSync(workspacesDir))
        process.stdout.write(readFileSync(path.join(workspacesDir, entry, '.devplane', 'agent.log'), 'utf8'));
    }
    await provisioner?.kill('SIGKILL');
    killAgents(workspacesDir);
    await t.close();
  });

  it('imports a template version on the provisioner and creates a template from it', async () => {
    const version = await json<Json>(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        name: 'v1',
        definition: DEFINITION,
      }),
      201,
    );
    expect(version.job.type).toBe('template_version_import');
    expect(version.job.metadata.workspace_build_transition).toBe('');
    await waitFor(
      async () => {
        const current = await json<Json>(
          await api(admin.token, 'GET', `/api/v2/templateversions/${version.id}`),
          200,
        );
        return current.job.status === 'succeeded' ? true : undefined;
      },
      30_000,
      'import job',
    );
    const template = await json<Json>(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templates', {
        name: 'basic',
        template_version_id: version.id,
      }),
      201,
    );
    expect(template).toMatchObject({ name: 'basic', active_version_id: version.id, provisioner: 'devplane' });
    templateId = template.id;
    const list = await json<Json[]>(
      await api(alice.token, 'GET', '/api/v2/organizations/default/templates'),
      200,
    );
    expect(list.map((entry) => entry.name)).toContain('basic');
  });

  it('refuses a bad definition with 400 and the field', async () => {
    const response = await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
      definition: { files: { '../escape': 'x' } },
    });
    const body = await json<Json>(response, 400);
    expect(body.validations[0].field).toBe('files.../escape');
  });

  let workspaceId: string;
  it('creates a workspace: the agent connects and reports ready', async () => {
    const created = await json<Json>(
      await api(alice.token, 'POST', '/api/v2/users/me/workspaces', { name: 'dev', template_id: templateId }),
      201,
    );
    workspaceId = created.id;
    expect(created.owner_name).toBe('wsalice');
    expect(created.latest_build.transition).toBe('start');
    await waitStatus(workspaceId, 'running', alice.token);
    const agent = await waitFor(
      async () => {
        const current = await workspace(workspaceId, alice.token);
        const found = current.latest_build.resources[0]?.agents[0];
        return found?.lifecycle_state === 'ready' && found.status === 'connected' ? found : undefined;
      },
      60_000,
      'agent ready',
    );
    expect(agent.apps[0].slug).toBe('code');
    expect(agent.environment_variables.GREETING).toBe('hi');
    const dir = path.join(workspacesDir, workspaceId);
    expect(readFileSync(path.join(dir, 'project', 'README.md'), 'utf8')).toBe('# hello\n');
    await waitFor(() => existsSync(path.join(dir, 'project', 'started.txt')), 10_000, 'startup script');
    const byName = await json<Json>(
      await api(alice.token, 'GET', '/api/v2/users/wsalice/workspace/dev'),
      200,
    );
    expect(byName.id).toBe(workspaceId);
    const builds = await json<Json[]>(
      await api(alice.token, 'GET', `/api/v2/workspaces/${workspaceId}/builds`),
      200,
    );
    expect(builds[0].job.metadata).toMatchObject({
      workspace_build_transition: 'start',
      workspace_name: 'dev',
      template_name: 'basic',
    });
  });

  it('hides a workspace from users who may not read it (404); stop ends the agent', async () => {
    await json(await api(bob.token, 'GET', `/api/v2/workspaces/${workspaceId}`), 404);
    const stop = await json<Json>(
      await api(alice.token, 'POST', `/api/v2/workspaces/${workspaceId}/builds`, { transition: 'stop' }),
      201,
    );
    expect(stop.transition).toBe('stop');
    await waitStatus(workspaceId, 'stopped', alice.token);
  });

  it('stops and starts: the stopped agent is gone, a new one reports ready', async () => {
    const pidFile = path.join(workspacesDir, workspaceId, '.devplane', 'agent.pid');
    expect(existsSync(pidFile)).toBe(false);
    await json(
      await api(alice.token, 'POST', `/api/v2/workspaces/${workspaceId}/builds`, { transition: 'start' }),
      201,
    );
    await waitStatus(workspaceId, 'running', alice.token);
    await waitFor(
      async () => {
        const current = await workspace(workspaceId, alice.token);
        return current.latest_build.resources[0]?.agents[0]?.lifecycle_state === 'ready' ? true : undefined;
      },
      60_000,
      'agent ready again',
    );
    expect(isAlive(Number.parseInt(readFileSync(pidFile, 'utf8'), 10))).toBe(true);
  });

  it('deletes: the directory is removed', async () => {
    await json(
      await api(alice.token, 'POST', `/api/v2/workspaces/${workspaceId}/builds`, { transition: 'delete' }),
      201,
    );
    await waitFor(
      async () =>
        (await api(alice.token, 'GET', `/api/v2/workspaces/${workspaceId}`)).status === 404
          ? true
          : undefined,
      60_000,
      'deleted',
    );
    expect(existsSync(path.join(workspacesDir, workspaceId))).toBe(false);
  });
});
