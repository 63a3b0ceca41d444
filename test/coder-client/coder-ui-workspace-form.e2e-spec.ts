import type { CreatedUser } from '../helpers/factories';
import { waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { WatchClient } from '../notifications/helpers';
import { coderClient, type Json } from '../workspaces/helpers';
import { expectCoderShape } from './coder-ui-shapes';

const NOT_FOUND = 'Resource not found or you do not have access to this resource';
const MISSING = '00000000-0000-4000-8000-000000000000';

/** The create-workspace and task forms and the workspace page of Coder's UI (issue 48 item 4). */
describe("Coder's web UI: workspace form reads and dynamic parameters", () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let versionId: string;
  let workspace: Json;
  const client = coderClient(() => t.url!);
  const { api, json } = client;

  beforeAll(async () => {
    // No built-in daemon: jobs are finished by hand, nothing is provisioned.
    t = await createTestApp({ env: { PROVISIONER_DAEMONS: '0' } });
    await t.listen();
    admin = await t.factories.admin({ username: 'formadmin' });
    alice = await t.factories.user({ username: 'formalice' });
    bob = await t.factories.user({ username: 'formbob' });
    const key = (
      await json(
        await api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', { name: 'form' }),
        201,
      )
    ).key as string;
    const daemon = (route: string, body: unknown) =>
      fetch(`${t.url}/api/v2/provisionerdaemons/jobs/${route}`, {
        method: 'POST',
        headers: { 'Service-Provisioner-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const version = await json(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        name: 'v1',
        definition: {},
      }),
      201,
    );
    versionId = version.id;
    const job = await json(await daemon('acquire', { worker_id: 'form', wait_ms: 2000 }), 200);
    await json(await daemon(`${job.job_id}/complete`, { worker_id: 'form' }), 204);
    await waitFor(
      async () =>
        (await json(await api(admin.token, 'GET', `/api/v2/templateversions/${versionId}`), 200)).job
          .status === 'succeeded'
          ? true
          : undefined,
      30_000,
      'import',
    );
    const template = await json(
      await api(admin.token, 'POST', '/api/v2/organizations/default/templates', {
        name: 'form',
        template_version_id: versionId,
      }),
      201,
    );
    workspace = await json(
      await api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
        name: 'formws',
        template_id: template.id,
      }),
      201,
    );
  });
  afterAll(async () => t?.close());

  it('template version external-auth and rich-parameters: empty lists; 404 unknown, 400 not a uuid, 401 anonymous', async () => {
    for (const route of ['external-auth', 'rich-parameters']) {
      const res = await api(alice.token, 'GET', `/api/v2/templateversions/${versionId}/${route}`);
      expect(await json(res, 200)).toEqual([]);
      expect(
        (await json(await api(alice.token, 'GET', `/api/v2/templateversions/${MISSING}/${route}`), 404))
          .message,
      ).toBe(NOT_FOUND);
      await json(await api(alice.token, 'GET', `/api/v2/templateversions/nope/${route}`), 400);
      expect((await fetch(`${t.url}/api/v2/templateversions/${versionId}/${route}`)).status).toBe(401);
    }
  });

  it('dynamic-parameters/evaluate answers the request id with no parameters; bad body 400', async () => {
    const res = await json(
      await api(alice.token, 'POST', `/api/v2/templateversions/${versionId}/dynamic-parameters/evaluate`, {
        id: 7,
        inputs: { region: 'eu' },
      }),
      200,
    );
    expectCoderShape('codersdk.DynamicParametersResponse', res);
    expect(res).toEqual({ id: 7, diagnostics: [], parameters: [] });
    await json(
      await api(alice.token, 'POST', `/api/v2/templateversions/${versionId}/dynamic-parameters/evaluate`, {
        id: 'x',
      }),
      400,
    );
    await json(
      await api(alice.token, 'POST', `/api/v2/templateversions/${MISSING}/dynamic-parameters/evaluate`, {
        id: 1,
      }),
      404,
    );
  });

  it('dynamic-parameters WebSocket: id -1 first, then one answer per request with its id', async () => {
    const socket = new WatchClient(
      `${t.url!.replace('http', 'ws')}/api/v2/templateversions/${versionId}/dynamic-parameters?user_id=${alice.user.uuid}`,
      { 'Coder-Session-Token': alice.token },
    );
    await socket.opened;
    await waitFor(async () => (socket.frames.length >= 1 ? true : undefined), 10_000, 'initial form');
    expect(socket.frames[0]).toEqual({ id: -1, diagnostics: [], parameters: [] });
    socket.socket.send(JSON.stringify({ id: 0, inputs: {} }));
    socket.socket.send(JSON.stringify({ id: 1, inputs: { a: 'b' } }));
    await waitFor(async () => (socket.frames.length >= 3 ? true : undefined), 10_000, 'answers');
    expect(socket.frames.slice(1)).toEqual([
      { id: 0, diagnostics: [], parameters: [] },
      { id: 1, diagnostics: [], parameters: [] },
    ]);
    for (const frame of socket.frames) expectCoderShape('codersdk.DynamicParametersResponse', frame);
    socket.close();
  });

  it('dynamic-parameters WebSocket refuses an unknown version and an anonymous caller', async () => {
    const unknown = new WatchClient(
      `${t.url!.replace('http', 'ws')}/api/v2/templateversions/${MISSING}/dynamic-parameters`,
      { 'Service-Session-Token': alice.token },
    );
    await expect(unknown.opened).rejects.toThrow(/404/);
    const anonymous = new WatchClient(
      `${t.url!.replace('http', 'ws')}/api/v2/templateversions/${versionId}/dynamic-parameters`,
    );
    await expect(anonymous.opened).rejects.toThrow(/401/);
  });

  it('build parameters and timings: empty for the owner, 404 for another member', async () => {
    const buildId = workspace.latest_build.id as string;
    expect(
      await json(await api(alice.token, 'GET', `/api/v2/workspacebuilds/${buildId}/parameters`), 200),
    ).toEqual([]);
    const timings = await json(
      await api(alice.token, 'GET', `/api/v2/workspacebuilds/${buildId}/timings`),
      200,
    );
    expectCoderShape('codersdk.WorkspaceBuildTimings', timings);
    await json(await api(bob.token, 'GET', `/api/v2/workspacebuilds/${buildId}/timings`), 404);
    await json(await api(bob.token, 'GET', `/api/v2/workspacebuilds/${buildId}/parameters`), 404);
  });

  it('build logs take after=-1 (from the start), over HTTP and the follow WebSocket; after=x is 400', async () => {
    const buildId = workspace.latest_build.id as string;
    expect(
      Array.isArray(
        await json(await api(alice.token, 'GET', `/api/v2/workspacebuilds/${buildId}/logs?after=-1`), 200),
      ),
    ).toBe(true);
    await json(await api(alice.token, 'GET', `/api/v2/workspacebuilds/${buildId}/logs?after=x`), 400);
    const follow = new WatchClient(
      `${t.url!.replace('http', 'ws')}/api/v2/workspacebuilds/${buildId}/logs?follow=true&after=-1`,
      { 'Service-Session-Token': alice.token },
    );
    await follow.opened;
    follow.close();
  });

  it('resolve-autostart: no parameter mismatch; 404 for another member', async () => {
    const res = await json(
      await api(alice.token, 'GET', `/api/v2/workspaces/${workspace.id}/resolve-autostart`),
      200,
    );
    expectCoderShape('codersdk.ResolveAutostartResponse', res);
    expect(res).toEqual({ parameter_mismatch: false });
    await json(await api(bob.token, 'GET', `/api/v2/workspaces/${workspace.id}/resolve-autostart`), 404);
  });

  it('agent containers: 404 for an unknown agent, 400 not a uuid', async () => {
    expect(
      (await json(await api(alice.token, 'GET', `/api/v2/workspaceagents/${MISSING}/containers`), 404))
        .message,
    ).toBe(NOT_FOUND);
    await json(await api(alice.token, 'GET', '/api/v2/workspaceagents/nope/containers'), 400);
  });
});
