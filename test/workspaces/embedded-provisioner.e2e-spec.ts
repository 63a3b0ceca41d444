import path from 'node:path';
import { startEmbeddedProvisioners } from '../../src/embedded-provisioners';
import { loadWorkspacesConfig } from '../../src/modules/workspaces/workspaces.config';
import type { CreatedUser } from '../helpers/factories';
import { killAgents, waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient, createTemplate, workspacesDirOf } from './helpers';

const ROOT = path.join(__dirname, '..', '..');

/** The server's own daemons (PROVISIONER_DAEMONS): builds run without a provisioner process. */
describe('embedded provisioner daemons', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let stop: () => Promise<void>;
  const client = coderClient(() => t.url!);

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        PROVISIONER_DAEMONS: '2',
        // The agent from source (the built server runs dist/agent.js).
        PROVISIONER_AGENT_COMMAND: JSON.stringify([
          process.execPath,
          '-r',
          require.resolve('@swc-node/register'),
          path.join(ROOT, 'src', 'agent.ts'),
        ]),
      },
    });
    const url = await t.listen();
    admin = await t.factories.admin({ username: 'embadmin' });
    stop = startEmbeddedProvisioners(t.app, t.config, false, Number(new URL(url).port));
  });
  afterAll(async () => {
    await stop?.();
    killAgents(workspacesDirOf(t));
    await t.close();
  });

  it("the built-in daemons register: listed for the organization under Coder's built-in key, matched by new jobs", async () => {
    await createTemplate(client, admin.token, 'registry', { directory: 'w' });
    const daemons = await client.json(
      await client.api(admin.token, 'GET', '/api/v2/organizations/default/provisionerdaemons'),
      200,
    );
    expect(daemons.map((daemon: { name: string }) => daemon.name).sort()).toEqual([
      'built-in-1',
      'built-in-2',
    ]);
    expect(daemons[0]).toMatchObject({
      key_id: '00000000-0000-0000-0000-000000000001',
      key_name: 'built-in',
      tags: { owner: '', scope: 'organization' },
    });
    const version = await client.json(
      await client.api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        name: 'matched',
        definition: {},
      }),
      201,
    );
    expect(version.matched_provisioners.count).toBe(2);
  });

  it('runs imports and builds in the server; the agent reports ready; the jobs name the built-in daemons', async () => {
    const { templateId } = await createTemplate(client, admin.token, 'embedded', { directory: 'w' });
    const created = await client.json(
      await client.api(admin.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'inside',
        template_id: templateId,
      }),
      201,
    );
    const agent = await waitFor(
      async () => {
        const current = await client.json(
          await client.api(admin.token, 'GET', `/api/v2/workspaces/${created.id}`),
          200,
        );
        const found = current.latest_build.resources[0]?.agents[0];
        return current.latest_build.status === 'running' && found?.lifecycle_state === 'ready'
          ? found
          : undefined;
      },
      60_000,
      'agent ready',
    );
    expect(agent.directory).toBe(path.join(workspacesDirOf(t), created.id, 'w'));
    const build = await client.json(
      await client.api(admin.token, 'GET', `/api/v2/workspacebuilds/${created.latest_build.id}`),
      200,
    );
    expect(build.job.worker_name).toMatch(/^built-in-[12]$/);
  });

  it('a bad agent command or daemon count is refused at boot with the variable named', () => {
    expect(() => loadWorkspacesConfig({ PROVISIONER_AGENT_COMMAND: 'node agent.js' })).toThrow(
      /PROVISIONER_AGENT_COMMAND/,
    );
    expect(() => loadWorkspacesConfig({ PROVISIONER_DAEMONS: '-1' })).toThrow(/PROVISIONER_DAEMONS/);
    expect(loadWorkspacesConfig({ PROVISIONER_AGENT_COMMAND: '["node", "dist/agent.js"]' }).leaseMs).toBe(
      30_000,
    );
  });
});
