import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient } from './helpers';

/**
 * Issue 53 item 3: a daemon that found a workspace beyond its directory limit asks for a `stop` build through
 * `POST /api/v2/provisionerdaemons/workspaces/{id}/stop` — provisioner keys only, bound to the key's
 * organization; the embedded daemons' path is covered by containment.e2e-spec.ts.
 */
describe('POST /api/v2/provisionerdaemons/workspaces/{id}/stop', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let member: CreatedUser;
  let key: string;
  let workspaceId: string;
  const client = coderClient(() => t.url!);
  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    fetch(`${t.url}/api/v2/provisionerdaemons/${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const stop = (
    headers: Record<string, string>,
    id: string,
    body: unknown = { worker_id: 'w1', reason: 'disk' },
  ) => post(`workspaces/${id}/stop`, headers, body);
  /** This test is the daemon: it takes the next job and reports it done. */
  const runNextJob = async (): Promise<void> => {
    const acquired = await post(
      'jobs/acquire',
      { 'Service-Provisioner-Key': key },
      { worker_id: 'w1', wait_ms: 10_000 },
    );
    expect(acquired.status).toBe(200);
    const job = (await acquired.json()) as { job_id: string };
    const done = await post(
      `jobs/${job.job_id}/complete`,
      { 'Service-Provisioner-Key': key },
      { worker_id: 'w1' },
    );
    expect(done.status).toBe(204);
  };

  beforeAll(async () => {
    t = await createTestApp();
    await t.listen();
    admin = await t.factories.admin({ username: 'stopadmin' });
    member = await t.factories.user({ username: 'stopmember' });
    key = (
      await client.json(
        await client.api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', {
          name: 'limits',
        }),
        201,
      )
    ).key;
    const version = await client.json(
      await client.api(admin.token, 'POST', '/api/v2/organizations/default/templateversions', {
        definition: {},
      }),
      201,
    );
    await runNextJob(); // the template import
    const template = await client.json(
      await client.api(admin.token, 'POST', '/api/v2/organizations/default/templates', {
        name: 'limited',
        template_version_id: version.id,
      }),
      201,
    );
    workspaceId = (
      await client.json(
        await client.api(member.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'limited',
          template_id: template.id,
        }),
        201,
      )
    ).id;
  }, 90_000);

  afterAll(async () => {
    await t.close();
  });

  it('refuses callers that are not provisioner daemons, and bad input', async () => {
    expect((await stop({}, workspaceId)).status).toBe(401);
    expect((await stop({ 'Service-Provisioner-Key': 'wrong' }, workspaceId)).status).toBe(401);
    expect([401, 403]).toContain((await stop({ 'Service-Session-Token': member.token }, workspaceId)).status);
    expect([401, 403]).toContain((await stop({ 'Service-Session-Token': admin.token }, workspaceId)).status);
    const badId = await stop({ 'Service-Provisioner-Key': key }, 'not-a-uuid');
    expect(badId.status).toBe(400);
    expect(((await badId.json()) as { message: string }).message).toBe('Invalid UUID.');
    const noReason = await stop({ 'Service-Provisioner-Key': key }, workspaceId, { worker_id: 'w1' });
    expect(noReason.status).toBe(400);
  });

  it('204 while a build is active or for an unknown workspace; 201 with the stop build once the start ended', async () => {
    expect((await stop({ 'Service-Provisioner-Key': key }, workspaceId)).status).toBe(204);
    const unknown = await stop({ 'Service-Provisioner-Key': key }, '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(204);
    await runNextJob(); // the start build
    const made = await stop({ 'Service-Provisioner-Key': key }, workspaceId);
    expect(made.status).toBe(201);
    const { build_id: buildId } = (await made.json()) as { build_id: string };
    const after = await client.json(
      await client.api(member.token, 'GET', `/api/v2/workspaces/${workspaceId}`),
      200,
    );
    expect(after.latest_build).toMatchObject({ id: buildId, transition: 'stop', reason: 'autostop' });
    expect(after.latest_build.initiator_id).toBe(member.user.uuid);
  });
});
