import { chatStreamEvents, parseAfterId } from '../../src/modules/chats/controllers/chat-stream.gateway';
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

describe('chatStreamEvents (what the chat stream sends)', () => {
  const row = (id: number) =>
    ({ id: String(id), chatId: 'c', role: 'user', content: [], createdAt: new Date(0) }) as never;
  it('the snapshot is messages, queue_update, status and the error; later only changes', () => {
    const state = { lastMessageId: 0, status: undefined, lastError: undefined };
    const first = chatStreamEvents(state, { id: 'c', status: 'error', lastError: 'boom' }, [row(1), row(2)]);
    expect(first.map((e) => e.type)).toEqual(['message', 'message', 'queue_update', 'status', 'error']);
    const later = { lastMessageId: 2, status: 'error', lastError: 'boom' };
    expect(chatStreamEvents(later, { id: 'c', status: 'error', lastError: 'boom' }, [])).toEqual([]);
    expect(
      chatStreamEvents(later, { id: 'c', status: 'pending', lastError: null }, [row(3)]).map((e) => e.type),
    ).toEqual(['message', 'status']);
  });
  it('after_id is a non-negative integer', () => {
    expect(parseAfterId(null)).toBe(0);
    expect(parseAfterId('7')).toBe(7);
    expect(() => parseAfterId('-1')).toThrow();
    expect(() => parseAfterId('x')).toThrow();
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
  /** Coder's ChatWatchEvent: the frame itself (no envelope). */
  type Event = { kind: string; chat: { id: string; title: string; owner_username?: string } };

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

  it("sends created and deleted hints for the caller's chats, one bare event per frame as Coder sends it, and nothing of others'", async () => {
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
    await until(() => events().some((e) => e.kind === 'created' && e.chat.id === chat.id), 'created');
    const created = events().find((e) => e.kind === 'created')!;
    expect(Object.keys(created).sort()).toEqual(['chat', 'kind']);
    expect(created.chat).toMatchObject({ id: chat.id, owner_username: 'watchalice' });

    expect((await api(alice.token, 'POST', `/api/experimental/chats/${chat.id}/archive`)).status).toBe(204);
    await until(() => events().some((e) => e.kind === 'deleted' && e.chat.id === chat.id), 'deleted');
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

  describe("GET /api/experimental/chats/{chat}/stream (Coder's watchChat)", () => {
    const streamUrl = (id: string, query = '') =>
      `${t.url!.replace('http', 'ws')}/api/experimental/chats/${id}/stream${query}`;
    type Frame = { type: string; chat_id: string; message?: { id: number }; status?: { status: string } }[];

    it('sends the snapshot after after_id, then new messages; others 404, no credential 401, before the upgrade', async () => {
      const chat = await json(
        await api(alice.token, 'POST', '/api/experimental/chats', {
          model_config_id: configId,
          content: [{ type: 'text', text: 'first' }],
        }),
        201,
      );
      const firstId = (
        (await json(await api(alice.token, 'GET', `/api/experimental/chats/${chat.id}/messages`), 200))
          .messages as {
          id: number;
        }[]
      )[0].id;
      await json(
        await api(alice.token, 'POST', `/api/experimental/chats/${chat.id}/messages`, {
          content: [{ type: 'text', text: 'second' }],
        }),
        201,
      );

      const full = new WatchClient(streamUrl(chat.id), { 'Service-Session-Token': alice.token });
      await full.opened;
      const after = new WatchClient(streamUrl(chat.id, `?after_id=${firstId}`), {
        'Service-Session-Token': alice.token,
      });
      await after.opened;
      const events = (client: WatchClient) => (client.frames as unknown as Frame[]).flat();
      await until(() => events(full).some((e) => e.type === 'status'), 'snapshot');
      await until(() => events(after).some((e) => e.type === 'status'), 'snapshot after_id');
      expect(Array.isArray(full.frames[0])).toBe(true);
      const snapshot = events(full);
      expect(snapshot.filter((e) => e.type === 'message')).toHaveLength(2);
      expect(snapshot.map((e) => e.type).slice(-2)).toEqual(['queue_update', 'status']);
      expect(snapshot.every((e) => e.chat_id === chat.id)).toBe(true);
      const afterMessages = events(after).filter((e) => e.type === 'message');
      expect(afterMessages).toHaveLength(1);
      expect(afterMessages[0].message!.id).toBeGreaterThan(firstId);

      const posted = await json(
        await api(alice.token, 'POST', `/api/experimental/chats/${chat.id}/messages`, {
          content: [{ type: 'text', text: 'third' }],
        }),
        201,
      );
      const newId = (posted.message as { id: number }).id;
      await until(
        () => events(full).some((e) => e.type === 'message' && e.message!.id === newId),
        'the new message',
      );
      full.close();
      after.close();

      const foreign = new WatchClient(streamUrl(chat.id), { 'Service-Session-Token': bob.token });
      await expect(foreign.opened).rejects.toThrow();
      expect(foreign.unexpected?.status).toBe(404);
      const anonymous = new WatchClient(streamUrl(chat.id));
      await expect(anonymous.opened).rejects.toThrow();
      expect(anonymous.unexpected?.status).toBe(401);
      const bad = new WatchClient(streamUrl(chat.id, '?after_id=x'), {
        'Service-Session-Token': alice.token,
      });
      await expect(bad.opened).rejects.toThrow();
      expect(bad.unexpected?.status).toBe(400);
    });
  });
});
