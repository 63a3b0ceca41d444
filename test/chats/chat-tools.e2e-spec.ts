import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CreatedUser } from '../helpers/factories';
import { fakeOpenAi, type FakeProvider } from '../helpers/fake-ai-providers';
import {
  killAgents,
  type ProvisionerProcess,
  startProvisioner,
  waitFor,
} from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { coderClient, createTemplate, type Json, workspacesDirOf } from '../workspaces/helpers';

/**
 * A chat bound to a workspace (issue 19.2): the model's tool calls run in the workspace through the
 * real agent (a child process of a real provisioner), their results go back to the model.
 */
describe('chat tools in a workspace', () => {
  let provider: FakeProvider;
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let provisioner: ProvisionerProcess;
  let workspaceId: string;
  let configId: string;
  const client = coderClient(() => t.url!);

  beforeAll(async () => {
    provider = await fakeOpenAi();
    t = await createTestApp({
      env: {
        EXPERIMENTS: 'agents',
        AI_GATEWAY_PROVIDERS: JSON.stringify([
          { name: 'fake', type: 'openai', base_url: `${provider.url}/v1`, key: 'sk-fake' },
        ]),
      },
    });
    await t.listen();
    admin = await t.factories.admin({ username: 'tooladmin' });
    alice = await t.factories.user({ username: 'toolalice' });
    const key = (
      await client.json(
        await client.api(admin.token, 'POST', '/api/v2/organizations/default/provisionerkeys', {
          name: 'tools',
        }),
        201,
      )
    ).key;
    provisioner = startProvisioner({
      DEVPLANE_URL: t.url!,
      DEVPLANE_PROVISIONER_KEY: key,
      PROVISIONER_WORKSPACES_DIR: workspacesDirOf(t),
    });
    const { templateId } = await createTemplate(client, admin.token, 'tools', { directory: 'repo' });
    workspaceId = (
      await client.json(
        await client.api(alice.token, 'POST', '/api/v2/users/me/workspaces', {
          name: 'tools',
          template_id: templateId,
        }),
        201,
      )
    ).id;
    await waitFor(
      async () => {
        const workspace = await client.json(
          await client.api(alice.token, 'GET', `/api/v2/workspaces/${workspaceId}`),
          200,
        );
        const agent = workspace.latest_build.resources[0]?.agents[0];
        return agent?.lifecycle_state === 'ready' && agent.status === 'connected' ? true : undefined;
      },
      60_000,
      'agent ready',
    );
    configId = (
      await client.json(
        await client.api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'fake',
          model: 'fake-model',
          input_price_per_million_tokens: '1',
        }),
        201,
      )
    ).id;
  });
  afterAll(async () => {
    await provisioner?.kill('SIGKILL');
    killAgents(workspacesDirOf(t));
    await t?.close();
    await provider?.close();
  });

  it('writes a file and runs a command through the agent, feeding the results back to the model', async () => {
    provider.script.push(
      {
        toolCalls: [
          {
            id: 'call_write',
            name: 'write_file',
            arguments: JSON.stringify({ path: 'notes/hello.txt', content: 'hello from the chat' }),
          },
        ],
      },
      {
        toolCalls: [
          {
            id: 'call_run',
            name: 'run_command',
            arguments: JSON.stringify({ command: 'cat notes/hello.txt' }),
          },
        ],
      },
      { text: 'All done.' },
    );
    const chat = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        workspace_id: workspaceId,
        content: [{ type: 'text', text: 'write a note' }],
      }),
      201,
    );
    expect(chat.workspace_id).toBe(workspaceId);
    await waitFor(
      async () => {
        const current = await client.json(
          await client.api(alice.token, 'GET', `/api/experimental/chats/${chat.id}`),
          200,
        );
        if (current.status === 'error') throw new Error(`chat failed: ${JSON.stringify(current)}`);
        return current.status === 'waiting' ? true : undefined;
      },
      60_000,
      'the chat finished',
    );
    expect(
      readFileSync(path.join(workspacesDirOf(t), workspaceId, 'repo', 'notes', 'hello.txt'), 'utf8'),
    ).toBe('hello from the chat');
    const messages = await client.json(
      await client.api(alice.token, 'GET', `/api/experimental/chats/${chat.id}/messages`),
      200,
    );
    expect(messages.map((message: Json) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(messages[4].content[0]).toMatchObject({
      type: 'tool-result',
      tool_call_id: 'call_run',
      ok: true,
      output: 'hello from the chat',
    });
    const calls = provider.seen.filter((request) => request.path.endsWith('/chat/completions')).slice(-3);
    expect((calls[0]!.body.tools as Json[]).map((tool) => tool.function.name)).toEqual([
      'read_file',
      'write_file',
      'list_directory',
      'run_command',
    ]);
    const lastMessages = calls[2]!.body.messages as Json[];
    expect(lastMessages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_run',
      content: 'hello from the chat',
    });
    expect(lastMessages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_run', function: { name: 'run_command' } }],
    });
  });

  it('a chat without a workspace cannot run tools: it requires action', async () => {
    provider.script.push({ toolCalls: [{ id: 'call_x', name: 'read_file', arguments: '{"path":"x"}' }] });
    const chat = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        content: [{ type: 'text', text: 'read it' }],
      }),
      201,
    );
    await waitFor(
      async () =>
        (await client.json(await client.api(alice.token, 'GET', `/api/experimental/chats/${chat.id}`), 200))
          .status === 'requires_action'
          ? true
          : undefined,
      30_000,
      'requires_action',
    );
  });
});
