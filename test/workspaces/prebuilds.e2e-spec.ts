import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CreatedUser } from '../helpers/factories';
import {
  agentRunning,
  agentState,
  killAgents,
  type ProvisionerProcess,
  startProvisioner,
  waitFor,
} from '../helpers/provisioner-process';
import { resolveIsolation } from '../../src/provisioner/sandbox/launcher';
import { createTestApp, type TestApp } from '../helpers/test-app';
import {
  agentToken,
  coderClient,
  createTemplate,
  EMBEDDED,
  type Json,
  readStream,
  workspacesDirOf,
} from './helpers';

const PREBUILDS_USER = 'c42fdf75-3097-471c-8c33-fb52454d81c0';

/**
 * Prebuilt workspaces (issue 17.4, spec 2 States and transitions): the reconciler keeps the preset's
 * count, a claim hands one over, and the agent following the reinit stream on the other instance
 * re-initializes once for the new owner. With a PostgreSQL server the agents talk to a second
 * instance (the claim reaches them over LISTEN/NOTIFY); on the embedded database to the same one.
 */
describe('prebuilt workspaces, claims and agent reinitialization', () => {
  let a: TestApp;
  let b: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let provisioner: ProvisionerProcess;
  let key: string;
  let workspacesDir: string;
  let presetId: string;
  let versionId: string;
  const viaA = coderClient(() => a.url!);

  const prebuilt = async (): Promise<{ id: string; status: string; ready: boolean }[]> => {
    const rows = (await a.dataSource.query(
      `SELECT w.id, j.status,
              EXISTS (SELECT 1 FROM workspace_agents ag JOIN workspace_resources r ON r.id = ag.resource_id
                       WHERE r.job_id = b.job_id AND ag.lifecycle_state = 'ready') AS ready
         FROM workspaces w
         JOIN LATERAL (SELECT * FROM workspace_builds WHERE workspace_id = w.id ORDER BY build_number DESC LIMIT 1) b ON true
         JOIN provisioner_jobs j ON j.id = b.job_id
        WHERE w.owner_id = $1 AND w.deleted = false AND b.transition = 'start'`,
      [PREBUILDS_USER],
    )) as { id: string; status: string; ready: boolean }[];
    return rows;
  };

  beforeAll(async () => {
    const env = {
      PROVISIONER_LEASE_MS: '3000',
      PREBUILDS_RECONCILE_INTERVAL_MS: '300',
      AGENT_DISCONNECT_TIMEOUT_MS: '3000',
    };
    a = await createTestApp({ env });
    await a.listen();
    b = EMBEDDED ? a : await createTestApp({ env, schema: a.schema });
    if (!EMBEDDED) await b.listen();
    workspacesDir = workspacesDirOf(a);
    admin = await a.factories.admin({ username: 'pbadmin' });
    alice = await a.factories.user({ username: 'pbalice' });
    key = (
      await viaA.json(
        await viaA.api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'pb' }),
        201,
      )
    ).key;
    provisioner = startProvisioner({
      DEVPLANE_URL: b.url!,
      DEVPLANE_PROVISIONER_KEY: key,
      PROVISIONER_WORKSPACES_DIR: workspacesDir,
    });
    const created = await createTemplate(viaA, admin.token, 'prebuilt', {
      directory: 'src',
      startup_script: 'echo "$DEVPLANE_WORKSPACE_OWNER" >> owners.txt',
      presets: [{ name: 'warm', prebuilds: { instances: 2 } }],
    });
    versionId = created.versionId;
    const presets = await viaA.json(
      await viaA.api(admin.token, 'GET', `/api/v2/templateversions/${versionId}/presets`),
      200,
    );
    presetId = presets[0].ID;
    expect(presets[0]).toMatchObject({ Name: 'warm', DesiredPrebuildInstances: 2 });
  });
  afterAll(async () => {
    await provisioner?.kill('SIGKILL');
    killAgents(workspacesDir);
    if (b !== a) await b?.close();
    await a?.close();
  });

  it('the reconciler creates the desired count, built by the prebuilds system user, with ready agents', async () => {
    const ready = await waitFor(
      async () => {
        const rows = await prebuilt();
        return rows.length === 2 && rows.every((row) => row.status === 'succeeded' && row.ready)
          ? rows
          : undefined;
      },
      60_000,
      'two ready prebuilt workspaces',
    );
    const listed = await viaA.json(await viaA.api(admin.token, 'GET', '/api/v2/workspaces'), 200);
    const mine = listed.workspaces.filter((w: Json) => ready.some((row) => row.id === w.id));
    expect(mine).toHaveLength(2);
    for (const workspace of mine) {
      expect(workspace).toMatchObject({
        owner_id: PREBUILDS_USER,
        owner_name: 'prebuilds',
        is_prebuild: true,
      });
      expect(workspace.latest_build).toMatchObject({
        initiator_id: PREBUILDS_USER,
        template_version_preset_id: presetId,
      });
    }
  });

  it('reinit stream, unclaimed: the stream opens and waits', async () => {
    const [row] = await prebuilt();
    const response = await fetch(`${b.url}/api/v2/workspaceagents/me/reinit?wait=true`, {
      headers: { 'Service-Session-Token': await agentToken(a, row!.id) },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toContain('no-cache');
    const { text, ended } = await readStream(response, 400);
    expect(ended).toBe(false);
    expect(text).not.toContain('event: data');
  });

  let claimedId: string;
  it('a claim hands a ready prebuilt workspace to the user; its agent re-initializes once for the new owner', async () => {
    const before = (await prebuilt()).map((row) => row.id);
    const created = await viaA.json(
      await viaA.api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'claimed',
        template_version_preset_id: presetId,
        template_version_id: versionId,
      }),
      201,
    );
    claimedId = created.id;
    expect(before).toContain(claimedId);
    expect(created).toMatchObject({ owner_name: 'pbalice', name: 'claimed', is_prebuild: false });
    expect(created.latest_build).toMatchObject({
      initiator_id: alice.user.uuid,
      transition: 'start',
      build_number: 2,
    });
    const state = await waitFor(
      () => {
        const current = agentState(workspacesDir, claimedId);
        return current && current.owner_id === alice.user.uuid ? current : undefined;
      },
      60_000,
      'agent re-initialized for alice',
    );
    expect(state.initializations).toBe(2);
    const owners = readFileSync(path.join(workspacesDir, claimedId, 'src', 'owners.txt'), 'utf8')
      .trim()
      .split('\n');
    expect(owners).toEqual(['prebuilds', 'pbalice']);
    expect(agentRunning(workspacesDir, claimedId)).toBe(true);
    // Issue 30: with isolation (root, as in CI) the claimed workspace's files are its own uid's, which no
    // other workspace ever had (the agent that re-initialized in place runs as it), never the server's.
    if (resolveIsolation('auto').mode !== 'none') {
      const [identity] = (await a.dataSource.query(
        'SELECT uid FROM workspace_os_identities WHERE workspace_id = $1',
        [claimedId],
      )) as { uid: number }[];
      expect(identity!.uid).toBeGreaterThan(0);
      for (const file of ['', 'src', 'src/owners.txt'])
        expect({ file, uid: statSync(path.join(workspacesDir, claimedId, file)).uid }).toEqual({
          file,
          uid: identity!.uid,
        });
      const others = (await a.dataSource.query(
        'SELECT count(*)::int AS n FROM workspace_os_identities WHERE uid = $1 AND workspace_id <> $2',
        [identity!.uid, claimedId],
      )) as { n: number }[];
      expect(others[0]!.n).toBe(0);
    }
  });

  it('a repeated event for the same owner is ignored', async () => {
    const state = await waitFor(
      () => {
        const current = agentState(workspacesDir, claimedId);
        return current && (current.ignored_reinit_events as number) >= 1 ? current : undefined;
      },
      30_000,
      'a repeated reinit event',
    );
    expect(state.initializations).toBe(2);
  });

  it('reinit stream, claimed and the claim build complete: one event, then the stream ends', async () => {
    const response = await fetch(`${b.url}/api/v2/workspaceagents/me/reinit`, {
      headers: { 'Service-Session-Token': await agentToken(a, claimedId) },
    });
    expect(response.status).toBe(200);
    const { text, ended } = await readStream(response, 5_000);
    expect(ended).toBe(true);
    expect(text.match(/event: data/g)).toHaveLength(1);
    const data = JSON.parse(/data: (.*)/.exec(text)![1]!);
    expect(data).toEqual({
      workspace_id: claimedId,
      user_id: alice.user.uuid,
      owner_id: alice.user.uuid,
      reason: 'prebuild_claimed',
    });
  });

  it('the reconciler replaces the claimed workspace', async () => {
    await waitFor(
      async () => {
        const rows = await prebuilt();
        return rows.length === 2 && rows.every((row) => row.id !== claimedId && row.status === 'succeeded')
          ? true
          : undefined;
      },
      60_000,
      'the pool refilled',
    );
  });

  it('reinit stream, claim build still running: the stream waits for the event at its completion', async () => {
    await waitFor(
      async () => ((await prebuilt()).filter((row) => row.ready).length === 2 ? true : undefined),
      60_000,
      'ready pool',
    );
    await provisioner.kill('SIGKILL'); // the claim build stays pending until a provisioner runs again
    const created = await viaA.json(
      await viaA.api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'second',
        template_version_preset_id: presetId,
        template_version_id: versionId,
      }),
      201,
    );
    // Pending, or leased by the killed daemon's last long-poll until its lease expires: running either way.
    expect(['pending', 'starting']).toContain(created.latest_build.status);
    const response = await fetch(`${b.url}/api/v2/workspaceagents/me/reinit?wait=true`, {
      headers: { 'Service-Session-Token': await agentToken(a, created.id) },
    });
    expect(response.status).toBe(200);
    const reading = readStream(response, 60_000);
    provisioner = startProvisioner({
      DEVPLANE_URL: b.url!,
      DEVPLANE_PROVISIONER_KEY: key,
      PROVISIONER_WORKSPACES_DIR: workspacesDir,
    });
    const { text, ended } = await reading;
    expect(ended).toBe(true);
    expect(text).toContain('event: data');
    expect(text).toContain(alice.user.uuid);
  });

  it('a regular workspace: 409 for the reinit stream', async () => {
    const { templateId } = await createTemplate(viaA, admin.token, 'regular', {});
    const created = await viaA.json(
      await viaA.api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'plain',
        template_id: templateId,
      }),
      201,
    );
    await waitFor(
      () => agentState(workspacesDir, created.id)?.following_reinit === false,
      60_000,
      'agent stopped following',
    );
    const response = await fetch(`${b.url}/api/v2/workspaceagents/me/reinit?wait=true`, {
      headers: { 'Service-Session-Token': await agentToken(a, created.id) },
    });
    expect(response.status).toBe(409);
    expect(((await response.json()) as Json).message).toBe(
      'Workspace is not a prebuilt workspace waiting to be claimed.',
    );
    // The agent got 409 once, stopped following and keeps running without reconnecting.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const state = agentState(workspacesDir, created.id)!;
    expect(state.reinit_connections).toBe(1);
    expect(agentRunning(workspacesDir, created.id)).toBe(true);
    expect(state.lifecycle).toBe('ready');
  });
});
