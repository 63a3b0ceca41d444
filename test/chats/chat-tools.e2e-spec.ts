import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CreatedUser } from '../helpers/factories';
import { fakeOpenAi, type FakeProvider } from '../helpers/fake-ai-providers';
import { killAgents, type ProvisionerProcess, waitFor } from '../helpers/provisioner-process';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { GitWatchGateway } from '../../src/modules/chats/controllers/git-watch.gateway';
import { resolveIsolation } from '../../src/provisioner/sandbox/launcher';
import { WatchClient } from '../notifications/helpers';
import { coderClient, type Json, workspacesDirOf, workspaceWithAgent } from '../workspaces/helpers';

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
  /** The chat once its turn is over (`waiting`), failing on `error`. */
  const finished = (id: string): Promise<Json> =>
    waitFor(
      async () => {
        const current = await client.json(
          await client.api(alice.token, 'GET', `/api/experimental/chats/${id}`),
          200,
        );
        if (current.status === 'error') throw new Error(`chat failed: ${JSON.stringify(current)}`);
        return current.status === 'waiting' ? current : undefined;
      },
      60_000,
      `chat ${id} finished`,
    );

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
    ({ provisioner, workspaceId } = await workspaceWithAgent(t, {
      adminToken: admin.token,
      ownerToken: alice.token,
      name: 'tools',
      definition: { directory: 'repo' },
    }));
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
    await finished(chat.id);
    expect(
      readFileSync(path.join(workspacesDirOf(t), workspaceId, 'repo', 'notes', 'hello.txt'), 'utf8'),
    ).toBe('hello from the chat');
    // Coder's page is newest first.
    const messages = (
      await client.json(
        await client.api(alice.token, 'GET', `/api/experimental/chats/${chat.id}/messages`),
        200,
      )
    ).messages.reverse();
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
      'open_pull_request',
      'spawn_subagent',
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

  it('tool output holding NUL and other control bytes reaches the model escaped, without waiting out the timeout (issue 53)', async () => {
    provider.script.push(
      {
        toolCalls: [
          {
            id: 'call_nul',
            name: 'run_command',
            arguments: JSON.stringify({ command: "printf 'a\\000b\\001c\\033d'" }),
          },
        ],
      },
      { text: 'Seen.' },
    );
    const chat = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        workspace_id: workspaceId,
        content: [{ type: 'text', text: 'print a NUL' }],
      }),
      201,
    );
    await finished(chat.id);
    const messages = (
      await client.json(
        await client.api(alice.token, 'GET', `/api/experimental/chats/${chat.id}/messages`),
        200,
      )
    ).messages.reverse();
    expect(messages[2].content[0]).toMatchObject({
      type: 'tool-result',
      tool_call_id: 'call_nul',
      ok: true,
      output: 'a\\x00b\\x01c\\x1bd',
    });
    const last = provider.seen.filter((request) => request.path.endsWith('/chat/completions')).at(-1)!;
    expect((last.body.messages as Json[]).at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_nul',
      content: 'a\\x00b\\x01c\\x1bd',
    });
  });

  it('git watch: a snapshot of the repositories the chat touched, a new message only when it changed, refresh at most one scan a second', async () => {
    // Issue 30: with isolation on (root with bubblewrap, as in CI) the agent and the watch's git run as the workspace's uid.
    if (resolveIsolation('auto').mode !== 'none')
      expect(statSync(path.join(workspacesDirOf(t), workspaceId)).uid).not.toBe(process.getuid!());
    provider.script.push(
      {
        toolCalls: [
          {
            id: 'call_init',
            name: 'run_command',
            arguments: JSON.stringify({
              command:
                'git init -q -b main && git -c user.email=a@b.c -c user.name=a commit -q --allow-empty -m init',
            }),
          },
        ],
      },
      { text: 'initialized' },
    );
    const chat = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        workspace_id: workspaceId,
        content: [{ type: 'text', text: 'init a repository' }],
      }),
      201,
    );
    await finished(chat.id);
    const repoRoot = path.join(workspacesDirOf(t), workspaceId, 'repo');
    const watcher = new WatchClient(
      `${t.url!.replace('http', 'ws')}/api/experimental/chats/${chat.id}/git/watch`,
      {
        'Service-Session-Token': alice.token,
      },
    );
    await watcher.opened;
    const first = await waitFor(() => watcher.frames[0], 20_000, 'the first snapshot');
    // The first test's note is untracked in the new repository: the snapshot shows it, not the later edit.
    expect(first).toMatchObject({ type: 'changes', repositories: [{ repo_root: repoRoot, branch: 'main' }] });
    const firstDiff = (first.repositories as Json[])[0].unified_diff as string;
    expect(firstDiff).toContain('notes/hello.txt');
    expect(firstDiff).not.toContain('src/app.txt');
    // The chat's tool writes a file: the watcher rescans and sends the new diff.
    provider.script.push(
      {
        toolCalls: [
          {
            id: 'call_edit',
            name: 'write_file',
            arguments: JSON.stringify({ path: 'src/app.txt', content: 'v1\n' }),
          },
        ],
      },
      { text: 'edited' },
    );
    await client.json(
      await client.api(alice.token, 'POST', `/api/experimental/chats/${chat.id}/messages`, {
        content: [{ type: 'text', text: 'edit' }],
      }),
      201,
    );
    const second = await waitFor(() => watcher.frames[1], 20_000, 'a snapshot after the edit');
    expect(second.type).toBe('changes');
    const repositories = second.repositories as Json[];
    expect(repositories).toHaveLength(1);
    expect(repositories[0].unified_diff).toContain('+v1');
    expect(repositories[0].unified_diff).toContain('src/app.txt');
    // Nothing changes: refreshes scan (at most one a second) and send nothing.
    const gateway = t.app.get(GitWatchGateway);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const before = gateway.scans;
    for (let i = 0; i < 5; i++) watcher.socket.send(JSON.stringify({ type: 'refresh' }));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(gateway.scans - before).toBeGreaterThanOrEqual(1);
    expect(gateway.scans - before).toBeLessThanOrEqual(2);
    expect(watcher.frames).toHaveLength(2);
    watcher.socket.send(JSON.stringify({ type: 'dance' }));
    const error = await waitFor(() => watcher.frames[2], 5_000, 'an error frame');
    expect(error).toEqual({ type: 'error', message: 'Unknown message type "dance".' });
    watcher.close();
  });

  it('git watch: a chat without a workspace is 400 before the upgrade; another user is 404; no credential 401', async () => {
    const plain = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        content: [{ type: 'text', text: 'plain' }],
      }),
      201,
    );
    const refused = new WatchClient(
      `${t.url!.replace('http', 'ws')}/api/experimental/chats/${plain.id}/git/watch`,
      {
        'Service-Session-Token': alice.token,
      },
    );
    await expect(refused.opened).rejects.toThrow();
    expect(refused.unexpected?.status).toBe(400);
    expect(JSON.parse(refused.unexpected!.body).message).toBe('Chat has no workspace.');
    // Coder's path for the same watch.
    const refusedAtCoderPath = new WatchClient(
      `${t.url!.replace('http', 'ws')}/api/experimental/chats/${plain.id}/stream/git`,
      { 'Service-Session-Token': alice.token },
    );
    await expect(refusedAtCoderPath.opened).rejects.toThrow();
    expect(refusedAtCoderPath.unexpected?.status).toBe(400);
    const bob = await t.factories.user({ username: 'toolbob' });
    const stranger = new WatchClient(
      `${t.url!.replace('http', 'ws')}/api/experimental/chats/${plain.id}/git/watch`,
      {
        'Service-Session-Token': bob.token,
      },
    );
    await expect(stranger.opened).rejects.toThrow();
    expect(stranger.unexpected?.status).toBe(404);
    // No or a bad credential: Coder's 401 before the upgrade (not devplane's upgrade-then-close 4401), on both
    // paths of the git watch and of the desktop.
    for (const path of ['git/watch', 'stream/git', 'desktop', 'stream/desktop'])
      for (const headers of [{}, { 'Service-Session-Token': 'bogus-token' }] as Record<string, string>[]) {
        const anonymous = new WatchClient(
          `${t.url!.replace('http', 'ws')}/api/experimental/chats/${plain.id}/${path}`,
          headers,
        );
        await expect(anonymous.opened).rejects.toThrow();
        expect([path, anonymous.unexpected?.status]).toEqual([path, 401]);
        expect(typeof JSON.parse(anonymous.unexpected!.body).message).toBe('string');
      }
  });

  it('commits in the workspace, pushes to a devplane repository and opens a real pull request linked to the chat', async () => {
    const gitea = (token: string, method: string, route: string, body?: unknown) =>
      fetch(`${t.url}/api/v1${route}`, {
        method,
        headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect(
      (
        await gitea(alice.token, 'POST', '/user/repos', {
          name: 'app',
          auto_init: true,
          default_branch: 'main',
        })
      ).status,
    ).toBe(201);
    // The documented URL inside the workspace (in a sandbox's network namespace the host's port is not reachable).
    const remote = `"$(echo "$DEVPLANE_URL" | sed "s#://#://toolalice:${alice.token}@#")toolalice/app.git"`;
    const identity = '-c user.email=bot@example.com -c user.name=Bot';
    provider.script.push(
      {
        toolCalls: [
          {
            id: 'call_clone',
            name: 'run_command',
            arguments: JSON.stringify({ command: `git clone -q ${remote} pr-app` }),
          },
          {
            id: 'call_change',
            name: 'write_file',
            arguments: JSON.stringify({ path: 'pr-app/feature.txt', content: 'one\ntwo\nthree\n' }),
          },
        ],
      },
      {
        toolCalls: [
          {
            id: 'call_commit',
            name: 'run_command',
            arguments: JSON.stringify({
              command: `cd pr-app && git checkout -q -b feature && git add feature.txt && git ${identity} commit -q -m "Add feature" && git push -q origin feature`,
            }),
          },
        ],
      },
      {
        toolCalls: [
          {
            id: 'call_pr',
            name: 'open_pull_request',
            arguments: JSON.stringify({
              repository: 'toolalice/app',
              head: 'feature',
              base: 'main',
              title: 'Add the feature',
              body: 'Opened by a chat.',
            }),
          },
        ],
      },
      {
        // The same pull request again: the repositories module refuses the duplicate, the model hears why.
        toolCalls: [
          {
            id: 'call_pr_again',
            name: 'open_pull_request',
            arguments: JSON.stringify({
              repository: 'toolalice/app',
              head: 'feature',
              base: 'main',
              title: 'x',
            }),
          },
        ],
      },
      { text: 'Pull request opened.' },
    );
    const chat = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        workspace_id: workspaceId,
        content: [{ type: 'text', text: 'add a feature and open a pull request' }],
      }),
      201,
    );
    await finished(chat.id);
    const { messages } = await client.json(
      await client.api(alice.token, 'GET', `/api/experimental/chats/${chat.id}/messages`),
      200,
    );
    const results = messages
      .filter((message: Json) => message.role === 'tool')
      .flatMap((message: Json) => message.content as Json[]);
    expect(results.find((part: Json) => part.tool_call_id === 'call_commit')).toMatchObject({ ok: true });
    const opened = results.find((part: Json) => part.tool_call_id === 'call_pr');
    expect(opened).toMatchObject({ ok: true });
    expect(JSON.parse(opened.output)).toEqual({
      number: 1,
      url: expect.stringMatching(/\/toolalice\/app\/pulls\/1$/),
      state: 'open',
      additions: 3,
      deletions: 0,
      changed_files: 1,
    });
    const again = results.find((part: Json) => part.tool_call_id === 'call_pr_again');
    expect(again.ok).toBe(false);
    expect(again.output).toContain('pull request already exists');
    // A real pull request of the repositories module, by the chat's owner, with its diff statistics.
    const pull = (await (await gitea(alice.token, 'GET', '/repos/toolalice/app/pulls/1')).json()) as Json;
    expect(pull).toMatchObject({
      number: 1,
      title: 'Add the feature',
      body: 'Opened by a chat.',
      state: 'open',
      user: { login: 'toolalice' },
      head: { ref: 'feature' },
      base: { ref: 'main' },
      additions: 3,
      deletions: 0,
      changed_files: 1,
      mergeable: true,
    });
    // Linked to the chat: the insights see it, then see it merged.
    const insights = async () =>
      client.json(
        await client.api(admin.token, 'GET', '/api/experimental/chats/insights/pull-requests'),
        200,
      );
    const before = await insights();
    expect(before.summary).toMatchObject({ total_prs_created: 1, total_prs_merged: 0, total_additions: 3 });
    expect(before.recent_prs[0]).toMatchObject({
      chat_id: chat.id,
      pr_title: 'Add the feature',
      pr_number: 1,
      state: 'open',
      base_branch: 'main',
      author_login: 'toolalice',
    });
    expect(
      (await gitea(alice.token, 'POST', '/repos/toolalice/app/pulls/1/merge', { Do: 'merge' })).status,
    ).toBe(200);
    const after = await insights();
    expect(after.summary).toMatchObject({ total_prs_created: 1, total_prs_merged: 1, merge_rate: 1 });
    expect(after.recent_prs[0].state).toBe('merged');
    expect(after.summary.total_cost_micros).toBeGreaterThan(0);
    expect(after.summary.cost_per_merged_pr_micros).toBe(after.summary.total_cost_micros);
  });

  it('spawns a subagent: a child chat of the spawning chat, in its workspace, run by the runners', async () => {
    provider.script.push(
      {
        toolCalls: [
          {
            id: 'call_spawn',
            name: 'spawn_subagent',
            arguments: JSON.stringify({ prompt: 'count the files', title: 'Counter' }),
          },
        ],
      },
      // The parent's next step and the child's first turn, in whichever order the runner takes them.
      { text: 'done here' },
      { text: 'done there' },
    );
    const parent = await client.json(
      await client.api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        workspace_id: workspaceId,
        content: [{ type: 'text', text: 'delegate' }],
      }),
      201,
    );
    const childId = await waitFor(
      async () => {
        const { messages } = await client.json(
          await client.api(alice.token, 'GET', `/api/experimental/chats/${parent.id}/messages`),
          200,
        );
        const result = messages
          .flatMap((message: Json) => message.content as Json[])
          .find((part: Json) => part.tool_call_id === 'call_spawn' && part.type === 'tool-result');
        return result ? (JSON.parse(result.output).chat_id as string) : undefined;
      },
      60_000,
      'the spawn result',
    );
    const child = await finished(childId);
    expect(child).toMatchObject({
      parent_chat_id: parent.id,
      root_chat_id: parent.id,
      workspace_id: workspaceId,
      title: 'Counter',
    });
    const childMessages = (
      await client.json(
        await client.api(alice.token, 'GET', `/api/experimental/chats/${childId}/messages`),
        200,
      )
    ).messages.reverse();
    expect(childMessages.map((message: Json) => message.role)).toEqual(['user', 'assistant']);
    expect(childMessages[0].content).toEqual([{ type: 'text', text: 'count the files' }]);
  });
});
