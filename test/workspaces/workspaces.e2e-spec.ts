import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { AgentCallsService } from '../../src/modules/workspaces/agent-calls.service';
import type { CreatedUser } from '../helpers/factories';
import {
  agentState,
  agentStateDir,
  isAlive,
  killAgents,
  type ProvisionerProcess,
  startProvisioner,
  waitFor,
} from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient, createTemplate, type Json } from './helpers';

const DEFINITION = {
  directory: 'project',
  files: { 'project/README.md': '# hello\n' },
  env: { GREETING: 'hi' },
  apps: [
    {
      slug: 'code',
      display_name: 'Code',
      url: 'http://127.0.0.1:APP_PORT/',
      healthcheck: { url: 'http://127.0.0.1:APP_PORT/', interval: 1, threshold: 1 },
    },
    {
      slug: 'down',
      display_name: 'Down',
      url: 'http://127.0.0.1:1/',
      healthcheck: { url: 'http://127.0.0.1:1/', interval: 1, threshold: 1 },
    },
    { slug: 'terminal', display_name: 'Terminal', command: 'bash' },
  ],
  // The app listens inside the workspace (in the sandbox mode the workspace has a network namespace of its own).
  startup_script:
    "echo started > started.txt; nohup node -e \"require('http').createServer((q, r) => r.end('app')).listen(APP_PORT, '127.0.0.1', () => require('fs').writeFileSync('/tmp/app-APP_PORT.up', ''))\" >/dev/null 2>&1 & " +
    'for i in $(seq 100); do [ -f /tmp/app-APP_PORT.up ] && break; sleep 0.1; done',
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
  let key: string;
  let appServer: http.Server;
  let appPort: number;
  const client = coderClient(() => base);
  const { api, json } = client;
  const workspace = async (id: string, token = admin.token) =>
    json<Json>(await api(token, 'GET', `/api/v2/workspaces/${id}`), 200);
  const waitStatus = (id: string, status: string, token = admin.token) =>
    waitFor(
      async () => ((await workspace(id, token)).latest_build.status === status ? true : undefined),
      60_000,
      `workspace ${status}`,
    );

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        PROVISIONER_LEASE_MS: '2000',
        AGENT_DISCONNECT_TIMEOUT_MS: '3000',
        CONNECTION_LOG_COUNT_CAP: '2',
      },
    });
    base = await t.listen();
    // A free port for the app the startup script starts in the workspace.
    appServer = http.createServer((_req, res) => res.end('app'));
    await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
    appPort = (appServer.address() as { port: number }).port;
    await new Promise<void>((resolve) => appServer.close(() => resolve()));
    workspacesDir = path.join(t.config.dataDir, 'workspaces');
    admin = await t.factories.admin({ username: 'wsadmin' });
    alice = await t.factories.user({ username: 'wsalice' });
    bob = await t.factories.user({ username: 'wsbob' });
    key = (
      await json<{ key: string }>(
        await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'ci' }),
        201,
      )
    ).key;
    provisioner = startProvisioner({
      DEVPLANE_AGENT_LISTEN: '0',
      PROVISIONER_NAME: 'first',
      DEVPLANE_URL: base,
      DEVPLANE_PROVISIONER_KEY: key,
      PROVISIONER_WORKSPACES_DIR: workspacesDir,
    });
  });
  afterAll(async () => {
    if (process.env.DEBUG_WORKSPACES) {
      process.stdout.write(provisioner?.output() ?? '');
      for (const entry of readdirSync(workspacesDir))
        process.stdout.write(
          readFileSync(path.join(agentStateDir(workspacesDir, entry), 'agent.log'), 'utf8'),
        );
    }
    await provisioner?.kill('SIGKILL');
    appServer?.close();
    killAgents(workspacesDir);
    await t.close();
  });

  it('imports a template version on the provisioner and creates a template from it', async () => {
    const version = await json<Json>(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        name: 'v1',
        definition: {
          ...DEFINITION,
          startup_script: DEFINITION.startup_script.replaceAll('APP_PORT', String(appPort)),
          apps: DEFINITION.apps.map((app) => ({
            ...app,
            url: app.url?.replace('APP_PORT', String(appPort)),
            ...(app.healthcheck
              ? {
                  healthcheck: {
                    ...app.healthcheck,
                    url: app.healthcheck.url.replace('APP_PORT', String(appPort)),
                  },
                }
              : {}),
          })),
        },
      }),
      201,
    );
    expect(version.job.type).toBe('template_version_import');
    expect(version.job.metadata).not.toHaveProperty('workspace_build_transition');
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
    expect(agent.apps.map((app: Json) => app.slug)).toEqual(['code', 'down', 'terminal']);
    // The agent runs the apps' healthchecks and reports their health (no healthcheck: disabled).
    const apps = await waitFor(
      async () => {
        const current = await workspace(workspaceId, alice.token);
        const found = current.latest_build.resources[0].agents[0].apps as Json[];
        // A first check may run before the startup script's app listens (threshold 1: unhealthy at once);
        // the next interval's check makes it healthy, as a user sees it settle.
        return found[0]?.health === 'healthy' && found[1]?.health === 'unhealthy' ? found : undefined;
      },
      30_000,
      'app health',
    );
    expect(apps.map((app) => app.health)).toEqual(['healthy', 'unhealthy', 'disabled']);
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
    const pidFile = path.join(agentStateDir(workspacesDir, workspaceId), 'agent.pid');
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

  it('records the sessions an agent serves in the connection log, with count_cap when the count is cut', async () => {
    const created = await json<Json>(
      await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'served',
        template_id: templateId,
      }),
      201,
    );
    const state = await waitFor(
      () => {
        const current = agentState(workspacesDir, created.id);
        return current?.listen_port && current.lifecycle === 'ready' ? current : undefined;
      },
      60_000,
      'agent listening',
    );
    // From inside the workspace (in the sandbox mode the host cannot reach its network namespace).
    const sessions = await t.app.get(AgentCallsService).call(
      created.id,
      'run_command',
      {
        command: `node -e "let n = 0; const one = () => { const s = require('net').connect(${state.listen_port as number}, '127.0.0.1', () => s.end('ping')); s.on('data', () => undefined); s.on('close', () => (++n < 3 ? one() : console.log('done'))); }; one();"`,
      },
      30_000,
    );
    expect(sessions.output.trim()).toBe('done');
    const log = await waitFor(
      async () => {
        const body = await json<Json>(
          await api(admin.token, 'GET', `/api/v2/connectionlog?q=workspace_id:${created.id}`),
          200,
        );
        return body.connection_logs.length === 3 &&
          body.count_cap === 2 &&
          body.connection_logs.every((entry: Json) => entry.web_info.status_code === 0)
          ? body
          : undefined;
      },
      20_000,
      'three closed sessions',
    );
    expect(log.count).toBe(2);
    expect(log.count_cap).toBe(2);
    expect(log.connection_logs[0]).toMatchObject({
      workspace_id: created.id,
      workspace_name: 'served',
      workspace_owner_username: 'wsalice',
      agent_name: 'main',
      type: 'port_forwarding',
      ip: '127.0.0.1',
    });
    const filtered = await json<Json>(await api(admin.token, 'GET', '/api/v2/connectionlog?q=type:ssh'), 200);
    expect(filtered.count).toBe(0);
    expect(filtered.count_cap).toBe(2); // Coder always sends the cap (issue 48 item 9)
    await json(await api(alice.token, 'GET', '/api/v2/connectionlog'), 403);
    await json(await api(admin.token, 'GET', '/api/v2/connectionlog?q=type:telepathy'), 400);
  });

  it('a provisioner killed with SIGKILL mid-job: the lease expires and another daemon finishes the build', async () => {
    const { templateId: slowTemplate } = await createTemplate(client, admin.token, 'slow-once', {
      provision_script:
        'if [ -f .ran-once ]; then echo second run; else touch .ran-once; echo first run; sleep 30; fi',
    });
    const created = await json<Json>(
      await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'survivor',
        template_id: slowTemplate,
      }),
      201,
    );
    const buildId = created.latest_build.id as string;
    await waitFor(
      async () => {
        const logs = await json<Json[]>(
          await api(alice.token, 'GET', `/api/v2/workspacebuilds/${buildId}/logs`),
          200,
        );
        return logs.some((line) => line.output === 'first run') ? true : undefined;
      },
      30_000,
      'the first run under way',
    );
    await provisioner.kill('SIGKILL');
    provisioner = startProvisioner({
      PROVISIONER_NAME: 'second',
      DEVPLANE_URL: base,
      DEVPLANE_PROVISIONER_KEY: key,
      PROVISIONER_WORKSPACES_DIR: workspacesDir,
    });
    await waitStatus(created.id, 'running', alice.token);
    const build = await json<Json>(await api(alice.token, 'GET', `/api/v2/workspacebuilds/${buildId}`), 200);
    expect(build.job.worker_name).toBe('second');
    const logs = await json<Json[]>(
      await api(alice.token, 'GET', `/api/v2/workspacebuilds/${buildId}/logs`),
      200,
    );
    expect(logs.map((line) => line.output)).toEqual(expect.arrayContaining(['first run', 'second run']));
    const [job] = (await t.dataSource.query('SELECT attempts FROM provisioner_jobs WHERE id = $1', [
      build.job.id,
    ])) as { attempts: number }[];
    expect(job!.attempts).toBe(2);
  });
});
