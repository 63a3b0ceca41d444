import path from 'node:path';
import { SecretBox } from '../../src/platform/crypto/secret-box';
import type { TestApp } from '../helpers/test-app';
import type { ResponseRecorder } from '../coder-client/response-schemas';
import { type ProvisionerProcess, startProvisioner, waitFor } from '../helpers/provisioner-process';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of the Coder API, read field by field
export type Json = any;

export const EMBEDDED = process.env.DATABASE_EMBEDDED === 'true';

/** A small client of the Coder dialect for one base URL; `recorder` keeps its JSON answers for the schema check. */
export function coderClient(base: () => string, recorder?: ResponseRecorder) {
  const api = async (
    token: string,
    method: string,
    route: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await send(token, method, route, body, headers);
    await recorder?.record(method, base() + route, response);
    return response;
  };
  const send = (
    token: string,
    method: string,
    route: string,
    body: unknown,
    headers: Record<string, string>,
  ) =>
    fetch(base() + route, {
      method,
      headers: {
        'Service-Session-Token': token,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const json = async <T = Json>(response: Response, status: number): Promise<T> => {
    const text = await response.text();
    if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return { api, json };
}

/** Imports a template version and makes a template of it; returns the template and version ids. */
export async function createTemplate(
  client: ReturnType<typeof coderClient>,
  token: string,
  name: string,
  definition: Record<string, unknown>,
): Promise<{ templateId: string; versionId: string }> {
  const version = await client.json(
    await client.api(token, 'POST', '/api/v2/organizations/default/templateversions', { definition }),
    201,
  );
  await waitFor(
    async () => {
      const current = await client.json(
        await client.api(token, 'GET', `/api/v2/templateversions/${version.id}`),
        200,
      );
      return current.job.status === 'succeeded' ? true : undefined;
    },
    60_000,
    'template import',
  );
  const template = await client.json(
    await client.api(token, 'POST', '/api/v2/organizations/default/templates', {
      name,
      template_version_id: version.id,
    }),
    201,
  );
  return { templateId: template.id, versionId: version.id };
}

/** The plaintext token of a workspace's newest agent (opened from its sealed copy, as a provisioner gets it). */
export async function agentToken(t: TestApp, workspaceId: string): Promise<string> {
  const [row] = (await t.dataSource.query(
    'SELECT id, sealed_token FROM workspace_agents WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 1',
    [workspaceId],
  )) as { id: string; sealed_token: string }[];
  if (!row) throw new Error('no agent');
  return t.app.get(SecretBox).openText(row.sealed_token, `workspace-agent:${row.id}`);
}

/** Reads an SSE response until it ends or `ms` passed; returns the text and whether the stream ended. */
export async function readStream(response: Response, ms: number): Promise<{ text: string; ended: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      await reader.cancel();
      return { text, ended: false };
    }
    const next = await Promise.race([
      reader.read(),
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), remaining)),
    ]);
    if (next === 'timeout') {
      await reader.cancel();
      return { text, ended: false };
    }
    if (next.done) return { text, ended: true };
    text += decoder.decode(next.value, { stream: true });
  }
}

export function workspacesDirOf(t: TestApp): string {
  return path.join(t.config.dataDir, 'workspaces');
}

/**
 * A real provisioner (child process) for the test app, a template of `definition`, and a workspace of
 * `ownerToken` whose agent is ready and connected. Kill the provisioner and the agents afterwards.
 */
export async function workspaceWithAgent(
  t: TestApp,
  input: { adminToken: string; ownerToken: string; name: string; definition: Record<string, unknown> },
): Promise<{ provisioner: ProvisionerProcess; workspaceId: string }> {
  const client = coderClient(() => t.url!);
  const key = (
    await client.json(
      await client.api(input.adminToken, 'POST', '/api/v2/organizations/default/provisionerkeys', {
        name: input.name,
      }),
      201,
    )
  ).key;
  const provisioner = startProvisioner({
    DEVPLANE_URL: t.url!,
    DEVPLANE_PROVISIONER_KEY: key,
    PROVISIONER_WORKSPACES_DIR: workspacesDirOf(t),
  });
  const { templateId } = await createTemplate(client, input.adminToken, input.name, input.definition);
  const workspaceId = (
    await client.json(
      await client.api(input.ownerToken, 'POST', '/api/v2/users/me/workspaces', {
        name: input.name,
        template_id: templateId,
      }),
      201,
    )
  ).id as string;
  await waitFor(
    async () => {
      const workspace = await client.json(
        await client.api(input.ownerToken, 'GET', `/api/v2/workspaces/${workspaceId}`),
        200,
      );
      const agent = workspace.latest_build.resources[0]?.agents[0];
      return agent?.lifecycle_state === 'ready' && agent.status === 'connected' ? true : undefined;
    },
    60_000,
    'agent ready',
  );
  return { provisioner, workspaceId };
}
