import { chatWatchChanges } from '../../src/modules/chats/controllers/chats-watch.gateway';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { WatchClient } from '../notifications/helpers';
import { coderClient } from '../workspaces/helpers';

describe('chatWatchChanges (the kinds the chats watch sends)', () => {
  const seen = (status: string, title: string, archived = false) => ({ status, title, archived });
  it('new and unarchived chats are created; archived and gone ones deleted; status and title changes', () => {
    const before = new Map([
      ['a', seen('waiting', 'A')],
      ['b', seen('waiting', 'B')],
      ['c', seen('waiting', 'C', true)],
      ['d', seen('running', 'D')],
      ['e', seen('waiting', 'E')],
    ]);
    const after = new Map([
      ['a', seen('running', 'A2')],
      ['b', seen('waiting', 'B', true)],
      ['c', seen('waiting', 'C')],
      ['d', seen('running', 'D')],
      ['f', seen('pending', 'F')],
    ]);
    expect(chatWatchChanges(before, after)).toEqual([
      { id: 'a', kind: 'status_change' },
      { id: 'a', kind: 'title_change' },
      { id: 'b', kind: 'deleted' },
      { id: 'c', kind: 'created' },
      { id: 'f', kind: 'created' },
      { id: 'e', kind: 'deleted' },
    ]);
    expect(chatWatchChanges(before, before)).toEqual([]);
    expect(chatWatchChanges(new Map(), new Map([['x', seen('waiting', 'X', true)]]))).toEqual([]);
  });
});

/** Coder's `watchChats` (issue 33 item 9): `/api/experimental/chats/watch`, the caller's own chats only. */
describe('GET /api/experimental/chats/watch (WebSocket)', () => {
  let t: TestApp;
  let admin: CreatedUser;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let configId: string;
  const client = coderClient(() => t.url!);
  const { api, json } = client;
  const watchUrl = () => `${t.url!.replace('http', 'ws')}/api/experimental/chats/watch`;
  const until = async (check: () => boolean, what: string) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    if (!check()) throw new Error(`timed out waiting for ${what}`);
  };
  type Event = {
    type: string;
    data: { kind: string; chat: { id: string; title: string; owner_username?: string } };
  };

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        EXPERIMENTS: 'agents',
        CHAT_RUNNER_ENABLED: 'false',
        CHAT_WATCH_POLL_MS: '50',
        AI_GATEWAY_PROVIDERS: JSON.stringify([
          { name: 'openai-main', type: 'openai', base_url: 'http://127.0.0.1:9/v1', key: 'sk-x' },
        ]),
      },
    });
    await t.listen();
    admin = await t.factories.admin({ username: 'watchadmin' });
    alice = await t.factories.user({ username: 'watchalice' });
    bob = await t.factories.user({ username: 'watchbob' });
    configId = (
      await json(
        await api(admin.token, 'POST', '/api/experimental/chats/model-configs', {
          provider: 'openai-main',
          model: 'gpt-4.1',
        }),
        201,
      )
    ).id as string;
  });
  afterAll(async () => t.close());

  it("sends created and deleted hints for the caller's chats, in Coder's one-way envelope, and nothing of others'", async () => {
    const aliceWatch = new WatchClient(watchUrl(), { 'Service-Session-Token': alice.token });
    const bobWatch = new WatchClient(watchUrl(), { 'Service-Session-Token': bob.token });
    await aliceWatch.opened;
    await bobWatch.opened;
    // No initial snapshot: nothing is sent until something changes.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(aliceWatch.frames).toEqual([]);

    const chat = await json(
      await api(alice.token, 'POST', '/api/experimental/chats', {
        model_config_id: configId,
        content: [{ type: 'text', text: 'watch me' }],
      }),
      201,
    );
    const events = () => aliceWatch.frames as unknown as Event[];
    await until(
      () => events().some((e) => e.data.kind === 'created' && e.data.chat.id === chat.id),
      'created',
    );
    const created = events().find((e) => e.data.kind === 'created')!;
    expect(created.type).toBe('data');
    expect(created.data.chat).toMatchObject({ id: chat.id, owner_username: 'watchalice' });

    expect((await api(alice.token, 'POST', `/api/experimental/chats/${chat.id}/archive`)).status).toBe(204);
    await until(
      () => events().some((e) => e.data.kind === 'deleted' && e.data.chat.id === chat.id),
      'deleted',
    );
    expect(bobWatch.frames).toEqual([]);
    aliceWatch.close();
    bobWatch.close();
  });

  it('answers 401 before the upgrade without a credential', async () => {
    for (const headers of [{}, { 'Service-Session-Token': 'bogus-token' }] as Record<string, string>[]) {
      const anonymous = new WatchClient(watchUrl(), headers);
      await expect(anonymous.opened).rejects.toThrow();
      expect(anonymous.unexpected?.status).toBe(401);
    }
  });
});
