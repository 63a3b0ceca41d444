import { randomUUID } from 'node:crypto';
import type { CreatedUser } from '../helpers/factories';
import { basic, createTestApp, type TestApp } from '../helpers/test-app';
import { NotificationDispatcher } from '../../src/modules/notifications/delivery/notification-dispatcher.service';
import { InboxWatchGateway } from '../../src/modules/notifications/inbox/inbox-watch.gateway';
import { NotificationEnqueuer } from '../../src/modules/notifications/delivery/notification-enqueuer.service';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../../src/modules/notifications/template-ids';
import { EventBus } from '../../src/platform/events/event-bus.service';
import { appEnv, EMBEDDED, fastQueueEnv, inboxCount, sleep, waitFor, WatchClient } from './helpers';

const PATH = '/api/v2/notifications/inbox/watch';

/** GET /api/v2/notifications/inbox/watch over a real WebSocket (`ws` client). */
describe('inbox watch (WebSocket)', () => {
  let t: TestApp;
  let base: string;
  let alice: CreatedUser;
  let bob: CreatedUser;
  const clients: WatchClient[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env: appEnv(fastQueueEnv()) });
    base = (await t.listen()).replace(/^http/, 'ws');
    alice = await t.factories.user();
    bob = await t.factories.user();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await waitFor(() => watchers() === 0, 15_000, 'watchers gone').catch(() => undefined);
  });
  afterAll(() => t.close());

  const watchers = () => t.app.get(InboxWatchGateway).watcherCount();

  async function connect(
    query = '',
    headers: Record<string, string> = {},
    app = t,
    url = base,
  ): Promise<WatchClient> {
    const before = app.app.get(InboxWatchGateway).watcherCount();
    const client = new WatchClient(`${url}${PATH}${query}`, headers);
    clients.push(client);
    await client.opened;
    await waitFor(
      () => app.app.get(InboxWatchGateway).watcherCount() > before || client.closed,
      15_000,
      'registered watcher',
    );
    return client;
  }

  async function notify(
    user: CreatedUser,
    title: string,
    options: { targets?: string[]; templateId?: string; message?: string; app?: TestApp } = {},
  ) {
    const app = options.app ?? t;
    const before = await inboxCount(app.dataSource, user.user.id);
    await app.app.get(EventBus).emitAsync('notification.requested', {
      templateId: options.templateId ?? IDS.customNotification,
      userId: user.user.id,
      labels: { custom_title: title, custom_message: options.message ?? `${title} body` },
      targets: options.targets,
      createdBy: 'test',
    });
    await waitFor(
      async () => (await inboxCount(app.dataSource, user.user.id)) > before,
      15_000,
      'inbox item',
    );
  }

  it.each([
    ['Service-Session-Token header', '', (u: CreatedUser) => ({ 'Service-Session-Token': u.token })],
    ['Authorization: Bearer', '', (u: CreatedUser) => ({ Authorization: `Bearer ${u.token}` })],
    ['cookie', '', (u: CreatedUser) => ({ Cookie: `other=1; service_session_token=${u.token}` })],
    ['query service_session_token', 'token', () => ({})],
    ['Basic password', '', (u: CreatedUser) => ({ Authorization: basic(u.user.name, u.password) })],
    ['Authorization: token', '', (u: CreatedUser) => ({ Authorization: `token ${u.token}` })],
    ['query access_token', 'access_token', () => ({})],
    ['query token', 'gitea_token', () => ({})],
  ])('authenticates with %s and sends one frame per new item', async (_name, mode, headers) => {
    const query =
      {
        token: `?service_session_token=${alice.token}`,
        access_token: `?access_token=${alice.token}`,
        gitea_token: `?token=${alice.token}`,
      }[mode] ?? '';
    const client = await connect(query, headers(alice));
    expect(client.closed).toBeUndefined();
    await notify(alice, `hello ${_name}`);
    await waitFor(() => client.frames.length === 1, 15_000, 'frame');
    expect(client.rawFrames[0]!.endsWith('\n')).toBe(true);
    const frame = client.frames[0] as { notification: Record<string, unknown>; unread_count: number };
    expect(frame.notification).toMatchObject({
      user_id: alice.user.uuid,
      template_id: IDS.customNotification,
      title: `hello ${_name}`,
      read_at: null,
    });
    const list = await t.http().get('/api/v2/notifications/inbox').set('Service-Session-Token', alice.token);
    expect(frame.unread_count).toBe(list.body.unread_count);
    expect(frame.notification).toEqual(list.body.notifications[0]);
  });

  it.each([
    ['no credential', {}, 'Cookie "service_session_token" or query parameter must be provided.'],
    [
      'an unknown token',
      { 'Service-Session-Token': 'AAAAAAAAAA-BBBBBBBBBBBBBBBBBBBBBB' },
      'API key is invalid.',
    ],
    ['an expired token', 'expired', /^API key expired at "/],
  ])('%s → closes with 4401 and the reason', async (_name, headers, reason) => {
    let set = headers as Record<string, string>;
    if (headers === 'expired')
      set = { 'Service-Session-Token': await t.factories.token(alice.user, { lifetimeSeconds: -60 }) };
    const client = new WatchClient(`${base}${PATH}`, set);
    clients.push(client);
    await waitFor(() => client.closed, 15_000, 'close');
    expect(client.closed!.code).toBe(4401);
    if (typeof reason === 'string') expect(client.closed!.reason).toBe(reason);
    else expect(client.closed!.reason).toMatch(reason);
  });

  it.each([
    [
      '?targets=abc',
      {
        message: 'Query parameters have invalid values.',
        validations: [{ field: 'targets', detail: 'Query param "targets" has invalid values: abc' }],
      },
    ],
    [
      '?read_status=bogus',
      { message: "starting_before query parameter should be any of 'all', 'read', 'unread'." },
    ],
    [
      `?starting_before=${randomUUID()}`,
      {
        message: 'Query parameters have invalid values.',
        validations: [
          { field: 'starting_before', detail: 'Query param "starting_before" is not a valid query param' },
        ],
      },
    ],
  ])('bad query %s → HTTP 400 before the upgrade', async (query, body) => {
    const client = new WatchClient(`${base}${PATH}${query}`, { 'Service-Session-Token': alice.token });
    clients.push(client);
    await expect(client.opened).rejects.toThrow(/unexpected response 400/);
    await waitFor(() => client.unexpected, 15_000, 'response');
    expect(client.unexpected!.status).toBe(400);
    expect(JSON.parse(client.unexpected!.body)).toEqual(body);
  });

  it('no backlog; other users’ items never arrive', async () => {
    await notify(bob, 'before connecting');
    const client = await connect('', { 'Service-Session-Token': bob.token });
    await notify(alice, 'for alice only');
    await notify(bob, 'after connecting');
    await waitFor(() => client.frames.length >= 1, 15_000, 'frame');
    await sleep(200);
    expect(client.frames.map((f) => (f.notification as { title: string }).title)).toEqual([
      'after connecting',
    ]);
  });

  it('filters: targets (all of), templates (any of), read_status=read gets nothing', async () => {
    const user = await t.factories.user();
    const [a, b] = [randomUUID(), randomUUID()];
    const h = { 'Service-Session-Token': user.token };
    const byTargets = await connect(`?targets=${a},${b}`, h);
    const byTemplate = await connect(`?templates=${IDS.testNotification}`, h);
    const readOnly = await connect('?read_status=read', h);
    const unread = await connect('?read_status=unread&format=markdown', h);
    expect(watchers()).toBeGreaterThanOrEqual(4);
    await notify(user, 'both targets', { targets: [a, b] });
    await notify(user, 'one target', { targets: [a] });
    await notify(user, 'test template', { templateId: IDS.testNotification });
    await waitFor(() => unread.frames.length === 3, 15_000, 'unread frames');
    await sleep(200);
    const titles = (c: WatchClient) => c.frames.map((f) => (f.notification as { title: string }).title);
    expect(titles(byTargets)).toEqual(['both targets']);
    expect(titles(byTemplate)).toEqual(['A test notification']);
    expect(readOnly.frames).toEqual([]);
    expect(unread.frames.map((f) => f.unread_count)).toEqual([1, 2, 3]);
  });

  it('unread_count of items enqueued together (one statement) counts each other', async () => {
    const user = await t.factories.user();
    const client = await connect('', { 'Service-Session-Token': user.token });
    const enqueuer = t.app.get(NotificationEnqueuer);
    const ids = await Promise.all(
      ['one', 'two', 'three', 'four'].map((title) =>
        enqueuer.enqueue({
          templateId: IDS.customNotification,
          userId: user.user.id,
          labels: { custom_title: title, custom_message: `${title} body` },
          createdBy: 'test',
        }),
      ),
    );
    expect(ids.flat()).toHaveLength(4);
    await waitFor(() => client.frames.length === 4, 15_000, 'four frames');
    expect(client.frames.map((f) => f.unread_count).sort()).toEqual([1, 2, 3, 4]);
  });

  it('unread_count counts the unread items already there (read ones not)', async () => {
    const user = await t.factories.user();
    const h = { 'Service-Session-Token': user.token };
    for (const title of ['one', 'two', 'three']) await notify(user, title);
    const list = await t.http().get('/api/v2/notifications/inbox').set(h);
    const read = await t
      .http()
      .put(`/api/v2/notifications/inbox/${list.body.notifications[0].id}/read-status`)
      .set(h)
      .send({ is_read: true });
    expect(read.status).toBe(200);
    const client = await connect('', h);
    await notify(user, 'four');
    await waitFor(() => client.frames.length === 1, 15_000, 'frame');
    expect(client.frames[0]!.unread_count).toBe(3);
  });

  it('an item too large to travel inline in the fan-out event is loaded by id and sent whole', async () => {
    const user = await t.factories.user();
    const client = await connect('', { 'Service-Session-Token': user.token });
    const message = 'long '.repeat(2_000); // 10,000 bytes: above the inline limit and PostgreSQL's NOTIFY limit
    await notify(user, 'big one', { message });
    await waitFor(() => client.frames.length === 1, 15_000, 'frame of a large item');
    expect(client.frames[0]!.notification).toMatchObject({ title: 'big one', content: message });
    expect(client.frames[0]!.unread_count).toBe(1);
  });

  it('format=plaintext turns Markdown title and content into text', async () => {
    const user = await t.factories.user();
    const client = await connect('?format=plaintext', { 'Service-Session-Token': user.token });
    const markdown = await connect('', { 'Service-Session-Token': user.token });
    await notify(user, '# Notification Title', {
      message: 'This is the __content__.\n\n- one\n- [two](https://example.com/x)',
    });
    await waitFor(() => client.frames.length === 1 && markdown.frames.length === 1, 15_000, 'frames');
    expect(client.frames[0]!.notification).toMatchObject({
      title: 'Notification Title',
      content: 'This is the content.\n\n- one\n- two (https://example.com/x)',
    });
    expect(markdown.frames[0]!.notification).toMatchObject({ title: '# Notification Title' });
  });

  (EMBEDDED ? it.skip : it)(
    'an item created on another instance reaches the watcher (PostgreSQL LISTEN/NOTIFY)',
    async () => {
      const other = await createTestApp({ schema: t.schema, env: appEnv(fastQueueEnv()) });
      try {
        const user = await t.factories.user();
        const client = await connect('', { 'Service-Session-Token': user.token });
        // Stop this instance's dispatcher, so the item is certainly created (and published) by the other one.
        await t.app.get(NotificationDispatcher).onModuleDestroy();
        await notify(user, 'from the other instance', { app: other });
        await waitFor(() => client.frames.length === 1, 15_000, 'cross-instance frame');
        expect((client.frames[0]!.notification as { title: string }).title).toBe('from the other instance');
      } finally {
        await other.close();
      }
    },
  );

  it('the server closes watchers with 1001 on shutdown', async () => {
    const app = await createTestApp({ schema: t.schema, env: appEnv(fastQueueEnv()) });
    if (EMBEDDED) await t.app.close().catch(() => undefined);
    const url = (await app.listen()).replace(/^http/, 'ws');
    const user = await app.factories.user();
    const client = await connect('', { 'Service-Session-Token': user.token }, app, url);
    await app.close();
    await waitFor(() => client.closed, 15_000, 'close on shutdown');
    expect(client.closed!.code).toBe(1001);
  });
});
