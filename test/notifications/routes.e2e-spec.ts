import { randomUUID } from 'node:crypto';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../../src/modules/notifications/template-ids';
import { EventBus } from '../../src/platform/events/event-bus.service';
import { appEnv, fastQueueEnv, inboxCount, messagesOf, waitFor } from './helpers';

const SIGNED_OUT = 'You are signed out or your session has expired. Please sign in again to continue.';
const NOT_FOUND = 'Resource not found or you do not have access to this resource';
const FORBIDDEN_DETAIL =
  "You don't have permission to view this content. If you believe this is a mistake, please contact your administrator or try signing in with different credentials.";
const BAD_JSON = 'Request body must be valid JSON.';
/**
 * Embedded PGlite ignores the per-connection search_path, so every test app shares one schema:
 * tests that break a table run only against a PostgreSQL server (DATABASE_URL).
 */
const onServer = process.env.DATABASE_EMBEDDED !== 'true';
const itOnServer = onServer ? it : it.skip;

/** Every route of spec 2 table B with its statuses and messages (the WebSocket side is in watch.e2e-spec). */
describe('notifications routes (Coder dialect)', () => {
  let t: TestApp;
  let owner: CreatedUser;
  let member: CreatedUser;
  let other: CreatedUser;
  const as = (u: CreatedUser) => ({ 'Service-Session-Token': u.token });

  beforeAll(async () => {
    t = await createTestApp({ env: appEnv(fastQueueEnv()) });
    owner = await t.factories.admin();
    member = await t.factories.user();
    other = await t.factories.user();
  });
  afterAll(async () => {
    await t.dataSource.query(`DELETE FROM site_configs WHERE key = 'notifications.settings'`);
    await t.close();
  });

  /** Puts an inbox item for `user` through the real queue (custom notification, distinct text). */
  async function notify(
    user: CreatedUser,
    title: string,
    targets: string[] = [],
    templateId: string = IDS.customNotification,
  ) {
    const before = await inboxCount(t.dataSource, user.user.id);
    await t.app.get(EventBus).emitAsync('notification.requested', {
      templateId,
      userId: user.user.id,
      labels: { custom_title: title, custom_message: `${title} body` },
      targets,
      createdBy: 'test',
    });
    await waitFor(async () => (await inboxCount(t.dataSource, user.user.id)) > before, 20_000, 'inbox item');
  }

  describe('authentication', () => {
    const ROUTES = [
      ['get', '/api/v2/notifications/dispatch-methods'],
      ['get', '/api/v2/notifications/templates/system'],
      ['get', '/api/v2/notifications/templates/custom'],
      ['get', '/api/v2/notifications/settings'],
      ['put', '/api/v2/notifications/settings'],
      ['post', '/api/v2/notifications/test'],
      ['post', '/api/v2/notifications/custom'],
      ['get', '/api/v2/notifications/inbox'],
      ['get', '/api/v2/notifications/inbox/watch'],
      ['put', '/api/v2/notifications/inbox/mark-all-as-read'],
      ['put', `/api/v2/notifications/inbox/${randomUUID()}/read-status`],
      ['get', '/api/v2/users/me/notifications/preferences'],
      ['put', '/api/v2/users/me/notifications/preferences'],
    ] as const;

    it.each(ROUTES)('%s %s without credentials → 401', async (method, path) => {
      const res = await t.http()[method](path);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        message: SIGNED_OUT,
        detail: 'Cookie "service_session_token" or query parameter must be provided.',
      });
    });

    it.each(ROUTES)('%s %s with an unknown token → 401 API key is invalid.', async (method, path) => {
      const http = t.http();
      const res = await http[method](path).set('Service-Session-Token', 'AAAAAAAAAA-BBBBBBBBBBBBBBBBBBBBBB');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: SIGNED_OUT, detail: 'API key is invalid.' });
    });

    it.each(ROUTES)(
      '%s %s with a wrong secret of a real key → 401 API key secret is invalid.',
      async (method, path) => {
        const wrong = `${member.token.split('-')[0]!}-${'x'.repeat(22)}`;
        const res = await t.http()[method](path).set('Authorization', `Bearer ${wrong}`);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ message: SIGNED_OUT, detail: 'API key secret is invalid.' });
      },
    );

    it('a wrong password in Basic → 401; the side effects of the routes did not happen', async () => {
      const res = await t
        .http()
        .post('/api/v2/notifications/custom')
        .set('Authorization', `Basic ${Buffer.from(`${member.user.name}:wrong-password`).toString('base64')}`)
        .send({ content: { title: 'must not be sent' } });
      expect(res.status).toBe(401);
      expect(
        (await messagesOf(t.dataSource, member.user.id)).filter(
          (m) => m.template_id === IDS.customNotification,
        ),
      ).toHaveLength(0);
    });
  });

  describe('GET /notifications/dispatch-methods', () => {
    it('200 an array with the methods and the default', async () => {
      const res = await t.http().get('/api/v2/notifications/dispatch-methods').set(as(member));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ available: ['smtp', 'webhook'], default: 'smtp' }]);
    });
    // The webhook default is checked in delivery.e2e-spec (an app configured for webhooks).
  });

  describe('GET /notifications/templates/{system,custom}', () => {
    it('system: every seeded system template, sorted by name', async () => {
      const res = await t.http().get('/api/v2/notifications/templates/system').set(as(member));
      expect(res.status).toBe(200);
      const ids = res.body.map((x: { id: string }) => x.id);
      for (const [key, id] of Object.entries(IDS))
        if (key !== 'customNotification') expect(ids).toContain(id);
      expect(ids).not.toContain(IDS.customNotification);
      const names = res.body.map((x: { name: string }) => x.name);
      expect(names).toEqual([...names].sort());
      const test = res.body.find((x: { id: string }) => x.id === IDS.testNotification);
      expect(test).toEqual({
        id: IDS.testNotification,
        name: 'Test Notification',
        title_template: 'A test notification',
        body_template: 'This is a test notification.',
        actions: JSON.stringify([
          {
            label: 'View notification settings',
            url: '{{ base_url }}/deployment/notifications?tab=settings',
          },
        ]),
        group: 'Notification Events',
        method: '',
        kind: 'system',
        enabled_by_default: true,
      });
      const workflow = res.body.find((x: { id: string }) => x.id === IDS.workflowRuleMatched);
      expect(workflow.method).toBe('inbox');
    });

    it('custom: the Custom Notification template', async () => {
      const res = await t.http().get('/api/v2/notifications/templates/custom').set(as(member));
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
      expect(res.body[0]).toMatchObject({
        id: IDS.customNotification,
        name: 'Custom Notification',
        kind: 'custom',
      });
    });

    itOnServer('a database failure → 500 with the route message', async () => {
      const broken = await createTestApp();
      try {
        await broken.dataSource.query(
          'ALTER TABLE notification_templates RENAME TO notification_templates_gone',
        );
        const admin = await broken.factories.admin();
        const system = await broken.http().get('/api/v2/notifications/templates/system').set(as(admin));
        expect(system.status).toBe(500);
        expect(system.body.message).toBe('Failed to retrieve system notifications templates.');
        expect(system.body.detail).toBeUndefined(); // the cause is logged, not sent
        const custom = await broken.http().get('/api/v2/notifications/templates/custom').set(as(admin));
        expect(custom.status).toBe(500);
        expect(custom.body.message).toBe('Failed to retrieve custom notifications templates.');
      } finally {
        await broken.close();
      }
    });
  });

  describe('GET/PUT /notifications/settings', () => {
    it('fresh → notifier_paused false; first PUT false is a change (200), the repeat is 304', async () => {
      await t.dataSource.query(`DELETE FROM site_configs WHERE key = 'notifications.settings'`);
      expect((await t.http().get('/api/v2/notifications/settings').set(as(member))).body).toEqual({
        notifier_paused: false,
      });
      const first = await t
        .http()
        .put('/api/v2/notifications/settings')
        .set(as(owner))
        .send({ notifier_paused: false });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ notifier_paused: false });
      const again = await t.http().put('/api/v2/notifications/settings').set(as(owner)).send({});
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
    });

    it('a member changing it → 403; a member re-sending the stored value → 304', async () => {
      const res = await t
        .http()
        .put('/api/v2/notifications/settings')
        .set(as(member))
        .send({ notifier_paused: true });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'Forbidden.', detail: FORBIDDEN_DETAIL });
      const same = await t
        .http()
        .put('/api/v2/notifications/settings')
        .set(as(member))
        .send({ notifier_paused: false });
      expect(same.status).toBe(304);
    });

    it('bad JSON or a non-boolean → 400', async () => {
      const bad = await t
        .http()
        .put('/api/v2/notifications/settings')
        .set(as(owner))
        .set('Content-Type', 'application/json')
        .send('{bad');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe(BAD_JSON);
      const yes = await t
        .http()
        .put('/api/v2/notifications/settings')
        .set(as(owner))
        .send({ notifier_paused: 'yes' });
      expect(yes.status).toBe(400);
      expect(yes.body.message).toBe(BAD_JSON);
    });

    it('not paused: the inbox item is written with the message, before the 204', async () => {
      const user = await t.factories.user();
      const res = await t
        .http()
        .post('/api/v2/notifications/custom')
        .set(as(user))
        .send({ content: { title: 'at once', message: 'no dispatcher round' } });
      expect(res.status).toBe(204);
      const rows = await messagesOf(t.dataSource, user.user.id);
      expect(rows.map((r) => [r.method, r.status])).toEqual([['inbox', 'sent']]);
      expect(await inboxCount(t.dataSource, user.user.id)).toBe(1);
      const inbox = await t.http().get('/api/v2/notifications/inbox').set(as(user));
      expect(inbox.body.unread_count).toBe(1);
      expect(inbox.body.notifications[0]).toMatchObject({ id: rows[0]!.id, title: 'at once' });
    });

    it('pausing holds messages (enqueue still works); resuming delivers them', async () => {
      const paused = await t
        .http()
        .put('/api/v2/notifications/settings')
        .set(as(owner))
        .send({ notifier_paused: true });
      expect(paused.status).toBe(200);
      expect((await t.http().get('/api/v2/notifications/settings').set(as(member))).body).toEqual({
        notifier_paused: true,
      });
      const user = await t.factories.user();
      const res = await t
        .http()
        .post('/api/v2/notifications/custom')
        .set(as(user))
        .send({ content: { title: 'held', message: '' } });
      expect(res.status).toBe(204);
      const rows = await messagesOf(t.dataSource, user.user.id);
      expect(rows.map((r) => [r.method, r.status])).toEqual([['inbox', 'pending']]);
      await new Promise((r) => setTimeout(r, 400)); // two fallback polls: still nothing
      expect((await messagesOf(t.dataSource, user.user.id))[0]!.status).toBe('pending');
      expect(await inboxCount(t.dataSource, user.user.id)).toBe(0);
      expect(
        (await t.http().put('/api/v2/notifications/settings').set(as(owner)).send({ notifier_paused: false }))
          .status,
      ).toBe(200);
      await waitFor(
        async () => (await inboxCount(t.dataSource, user.user.id)) === 1,
        15_000,
        'delivery after resume',
      );
      expect((await messagesOf(t.dataSource, user.user.id))[0]!.status).toBe('sent');
    });
  });

  describe('POST /notifications/test', () => {
    it('a member → 403, nothing enqueued', async () => {
      const res = await t.http().post('/api/v2/notifications/test').set(as(member));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'Forbidden.', detail: FORBIDDEN_DETAIL });
      expect(
        (await messagesOf(t.dataSource, member.user.id)).filter(
          (m) => m.template_id === IDS.testNotification,
        ),
      ).toHaveLength(0);
    });

    it('an owner, twice → 200 empty each; two inbox items', async () => {
      const admin = await t.factories.admin();
      for (let i = 0; i < 2; i += 1) {
        const res = await t.http().post('/api/v2/notifications/test').set(as(admin));
        expect(res.status).toBe(200);
        expect(res.text).toBe('');
        await new Promise((r) => setTimeout(r, 2));
      }
      await waitFor(
        async () => (await inboxCount(t.dataSource, admin.user.id)) === 2,
        15_000,
        'two test items',
      );
      const list = await t.http().get('/api/v2/notifications/inbox').set(as(admin));
      expect(list.body.notifications[0]).toMatchObject({
        title: 'A test notification',
        content: 'This is a test notification.',
        icon: 'DEFAULT_ICON_OTHER',
      });
      expect(list.body.notifications[0].actions).toEqual([
        {
          label: 'View notification settings',
          url: `${t.config.publicUrl.replace(/\/$/, '')}/deployment/notifications?tab=settings`,
        },
      ]);
    });
  });

  describe('POST /notifications/custom', () => {
    const post = (u: CreatedUser, body: unknown) =>
      t
        .http()
        .post('/api/v2/notifications/custom')
        .set(as(u))
        .send(body as object);

    it.each([
      [{}, 'content is required'],
      [{ content: null }, 'content is required'],
      [
        { content: { title: '  ', message: ' ' } },
        "provide a non-empty 'content.title' or 'content.message'",
      ],
      [{ content: { title: 'x'.repeat(121) } }, "'content.title' must be less than 120 characters"],
      [{ content: { title: 'é'.repeat(61) } }, "'content.title' must be less than 120 characters"],
      [{ content: { message: 'x'.repeat(2001) } }, "'content.message' must be less than 2000 characters"],
    ])('%j → 400 Invalid request body', async (body, detail) => {
      const res = await post(member, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Invalid request body', detail });
    });

    it('bad JSON and non-string fields → 400 Request body must be valid JSON.', async () => {
      const bad = await t
        .http()
        .post('/api/v2/notifications/custom')
        .set(as(member))
        .set('Content-Type', 'application/json')
        .send('{"content":');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe(BAD_JSON);
      const typed = await post(member, { content: { title: 5 } });
      expect(typed.status).toBe(400);
      expect(typed.body.message).toBe(BAD_JSON);
    });

    it('a system user (service account) → 403', async () => {
      const bot = await t.factories.user({ isServiceAccount: true, email: '' });
      const res = await post(bot, { content: { title: 'hi', message: 'there' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: 'Forbidden',
        detail: 'System users cannot send custom notifications.',
      });
    });

    it('title only, message only, exact limits → 204; items for the sender only; same content twice → one item', async () => {
      const user = await t.factories.user();
      expect((await post(user, { content: { title: 'only a title' } })).status).toBe(204);
      expect((await post(user, { content: { message: 'only a message' } })).status).toBe(204);
      expect(
        (await post(user, { content: { title: 't'.repeat(120), message: 'm'.repeat(2000) } })).status,
      ).toBe(204);
      expect((await post(user, { content: { title: 'only a title' } })).status).toBe(204); // duplicate within the minute
      await waitFor(async () => (await inboxCount(t.dataSource, user.user.id)) >= 3, 15_000, 'custom items');
      await new Promise((r) => setTimeout(r, 300));
      expect(await inboxCount(t.dataSource, user.user.id)).toBe(3);
      const messages = await messagesOf(t.dataSource, user.user.id);
      expect(messages.every((m) => m.method === 'inbox')).toBe(true);
    });

    it('lone UTF-16 surrogates (valid JSON escapes) → 204, stored as U+FFFD, not a 500', async () => {
      const user = await t.factories.user();
      const res = await t
        .http()
        .post('/api/v2/notifications/custom')
        .set(as(user))
        .set('Content-Type', 'application/json')
        .send('{"content":{"title":"odd \\ud800 title","message":"\\udc00 and a pair \\ud83d\\ude00"}}');
      expect(res.status).toBe(204);
      await waitFor(async () => (await inboxCount(t.dataSource, user.user.id)) === 1, 15_000, 'inbox item');
      const [item] = (await t.http().get('/api/v2/notifications/inbox').set(as(user))).body.notifications;
      expect(item).toMatchObject({ title: 'odd \ufffd title', content: '\ufffd and a pair \u{1F600}' });
    });

    it('the sender disabled the Custom template → 204, no item', async () => {
      const user = await t.factories.user();
      const pref = await t
        .http()
        .put('/api/v2/users/me/notifications/preferences')
        .set(as(user))
        .send({ template_disabled_map: { [IDS.customNotification]: true } });
      expect(pref.status).toBe(200);
      expect((await post(user, { content: { title: 'muted' } })).status).toBe(204);
      expect(await messagesOf(t.dataSource, user.user.id)).toHaveLength(0);
    });

    itOnServer('the queue table failing → 500 Failed to send custom notification', async () => {
      const broken = await createTestApp();
      try {
        const user = await broken.factories.user();
        await broken.dataSource.query(
          'ALTER TABLE notification_messages RENAME TO notification_messages_gone',
        );
        const res = await broken
          .http()
          .post('/api/v2/notifications/custom')
          .set(as(user))
          .send({ content: { title: 'x' } });
        expect(res.status).toBe(500);
        expect(res.body.message).toBe('Failed to send custom notification');
        expect(res.body.detail).toBeUndefined();
      } finally {
        await broken.close();
      }
    });
  });

  describe('GET/PUT /users/{user}/notifications/preferences', () => {
    const url = (ref: string) => `/api/v2/users/${ref}/notifications/preferences`;

    it('fresh → []; set two, flip one; the untouched one stays', async () => {
      const user = await t.factories.user();
      expect((await t.http().get(url('me')).set(as(user))).body).toEqual([]);
      const set = await t
        .http()
        .put(url('me'))
        .set(as(user))
        .send({ template_disabled_map: { [IDS.testNotification]: true, [IDS.userAccountCreated]: true } });
      expect(set.status).toBe(200);
      expect(set.body).toHaveLength(2);
      expect(
        set.body.every((p: { disabled: boolean; updated_at: string }) => p.disabled && p.updated_at),
      ).toBe(true);
      const flip = await t
        .http()
        .put(url(user.user.name))
        .set(as(user))
        .send({ template_disabled_map: { [IDS.testNotification]: false } });
      expect(flip.status).toBe(200);
      const byId = Object.fromEntries(
        flip.body.map((p: { id: string; disabled: boolean }) => [p.id, p.disabled]),
      );
      expect(byId).toEqual({ [IDS.testNotification]: false, [IDS.userAccountCreated]: true });
      const nothing = await t.http().put(url('me')).set(as(user)).send({});
      expect(nothing.status).toBe(200);
      expect(nothing.body).toHaveLength(2);
    });

    it('bad keys and values → 400', async () => {
      const nope = await t
        .http()
        .put(url('me'))
        .set(as(member))
        .send({ template_disabled_map: { nope: true } });
      expect(nope.status).toBe(400);
      expect(nope.body).toEqual({
        message: 'Unable to parse notification template UUID.',
        detail: 'invalid UUID length: 4',
      });
      const unknown = randomUUID();
      const missing = await t
        .http()
        .put(url('me'))
        .set(as(member))
        .send({ template_disabled_map: { [unknown]: true } });
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ message: 'Unknown notification template.', detail: unknown });
      const yes = await t
        .http()
        .put(url('me'))
        .set(as(member))
        .send({ template_disabled_map: { [IDS.testNotification]: 'yes' } });
      expect(yes.status).toBe(400);
      expect(yes.body.message).toBe(BAD_JSON);
      const bad = await t
        .http()
        .put(url('me'))
        .set(as(member))
        .set('Content-Type', 'application/json')
        .send('{');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe(BAD_JSON);
    });

    it("a member on another member's preferences → 404; an owner → 200 and the member sees it", async () => {
      expect((await t.http().get(url(other.user.uuid)).set(as(member))).status).toBe(404);
      const put = await t
        .http()
        .put(url(other.user.name))
        .set(as(member))
        .send({ template_disabled_map: {} });
      expect(put.status).toBe(404);
      expect(put.body.message).toBe(NOT_FOUND);
      const byOwner = await t
        .http()
        .put(url(other.user.uuid))
        .set(as(owner))
        .send({ template_disabled_map: { [IDS.testNotification]: true } });
      expect(byOwner.status).toBe(200);
      expect((await t.http().get(url(other.user.uuid)).set(as(owner))).status).toBe(200);
      const mine = await t.http().get(url('me')).set(as(other));
      expect(mine.body).toEqual([expect.objectContaining({ id: IDS.testNotification, disabled: true })]);
    });

    it('an unknown user → 404', async () => {
      const res = await t.http().get(url('nobody-here')).set(as(owner));
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(NOT_FOUND);
    });
  });

  describe('inbox REST', () => {
    it('fresh → empty list, unread 0', async () => {
      const user = await t.factories.user();
      const res = await t.http().get('/api/v2/notifications/inbox').set(as(user));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ notifications: [], unread_count: 0 });
    });

    it('30 items: 25 newest first, starting_before pages; foreign or unknown cursor = no cursor', async () => {
      const user = await t.factories.user();
      for (let i = 0; i < 30; i += 1) await notify(user, `item ${i}`);
      const page = await t.http().get('/api/v2/notifications/inbox').set(as(user));
      expect(page.status).toBe(200);
      expect(page.body.unread_count).toBe(30);
      expect(page.body.notifications).toHaveLength(25);
      expect(page.body.notifications[0].title).toBe('item 29');
      expect(page.body.notifications[24].title).toBe('item 5');
      const next = await t
        .http()
        .get('/api/v2/notifications/inbox')
        .query({ starting_before: page.body.notifications[24].id })
        .set(as(user));
      expect(next.body.notifications.map((n: { title: string }) => n.title)).toEqual([
        'item 4',
        'item 3',
        'item 2',
        'item 1',
        'item 0',
      ]);
      const unknown = await t
        .http()
        .get('/api/v2/notifications/inbox')
        .query({ starting_before: randomUUID() })
        .set(as(user));
      expect(unknown.body.notifications[0].title).toBe('item 29');
      expect(unknown.body.notifications).toHaveLength(25);
      // other users never see these
      const foreign = await t
        .http()
        .get('/api/v2/notifications/inbox')
        .query({ starting_before: page.body.notifications[0].id })
        .set(as(other));
      expect(
        foreign.body.notifications.every((n: { user_id: string }) => n.user_id === other.user.uuid),
      ).toBe(true);
    });

    it('filters: targets (all of), templates (any of), read_status; unread_count ignores filters', async () => {
      const user = await t.factories.user();
      const [a, b] = [randomUUID(), randomUUID()];
      await notify(user, 'both', [a, b]);
      await notify(user, 'only a', [a]);
      await notify(user, 'test template', [], IDS.testNotification);
      const titles = async (query: Record<string, string>) => {
        const res = await t.http().get('/api/v2/notifications/inbox').query(query).set(as(user));
        expect(res.status).toBe(200);
        expect(res.body.unread_count).toBe(3);
        return res.body.notifications.map((n: { title: string }) => n.title).sort();
      };
      expect(await titles({ targets: `${a},${b}` })).toEqual(['both']);
      expect(await titles({ targets: a })).toEqual(['both', 'only a']);
      expect(await titles({ templates: `${IDS.testNotification},${IDS.customNotification}` })).toEqual([
        'A test notification',
        'both',
        'only a',
      ]);
      expect(await titles({ templates: IDS.testNotification })).toEqual(['A test notification']);
      const list = await t.http().get('/api/v2/notifications/inbox').set(as(user));
      const target = list.body.notifications.find((n: { title: string }) => n.title === 'only a');
      const read = await t
        .http()
        .put(`/api/v2/notifications/inbox/${target.id}/read-status`)
        .set(as(user))
        .send({ is_read: true });
      expect(read.status).toBe(200);
      expect(read.body.message).toBe('Notification read status updated.');
      expect(read.body.unread_count).toBe(2);
      expect(read.body.notification.read_at).toEqual(expect.any(String));
      const readOnly = await t
        .http()
        .get('/api/v2/notifications/inbox')
        .query({ read_status: 'read' })
        .set(as(user));
      expect(readOnly.body.notifications.map((n: { title: string }) => n.title)).toEqual(['only a']);
      expect(readOnly.body.unread_count).toBe(2);
      const unread = await t
        .http()
        .get('/api/v2/notifications/inbox')
        .query({ read_status: 'unread' })
        .set(as(user));
      expect(unread.body.notifications).toHaveLength(2);
      const all = await t
        .http()
        .get('/api/v2/notifications/inbox')
        .query({ read_status: 'all' })
        .set(as(user));
      expect(all.body.notifications).toHaveLength(3);
      const back = await t
        .http()
        .put(`/api/v2/notifications/inbox/${target.id}/read-status`)
        .set(as(user))
        .send({});
      expect(back.status).toBe(200);
      expect(back.body.notification.read_at).toBeNull();
      expect(back.body.unread_count).toBe(3);
    });

    it.each([
      [{ targets: 'abc' }, [{ field: 'targets', detail: 'Query param "targets" has invalid values: abc' }]],
      [
        { templates: 'x, y' },
        [{ field: 'templates', detail: 'Query param "templates" has invalid values: x, y' }],
      ],
      [
        { starting_before: 'zzz' },
        [{ field: 'starting_before', detail: 'Query param "starting_before" must be a valid uuid' }],
      ],
      [{ foo: '1' }, [{ field: 'foo', detail: 'Query param "foo" is not a valid query param' }]],
      [
        { format: 'plaintext' },
        [{ field: 'format', detail: 'Query param "format" is not a valid query param' }],
      ],
    ])('bad query %j → 400 with validations', async (query, validations) => {
      const res = await t.http().get('/api/v2/notifications/inbox').query(query).set(as(member));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Query parameters have invalid values.', validations });
    });

    it('read_status=bogus → 400 (Coder text)', async () => {
      const res = await t
        .http()
        .get('/api/v2/notifications/inbox')
        .query({ read_status: 'bogus' })
        .set(as(member));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: "starting_before query parameter should be any of 'all', 'read', 'unread'.",
      });
    });

    it('the session token in the query string is accepted', async () => {
      const res = await t
        .http()
        .get('/api/v2/notifications/inbox')
        .query({ service_session_token: member.token });
      expect(res.status).toBe(200);
    });

    it('read-status: bad id → 400, bad JSON → 400, unknown or foreign → 404', async () => {
      const bad = await t
        .http()
        .put('/api/v2/notifications/inbox/abc/read-status')
        .set(as(member))
        .send({ is_read: true });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({ message: 'Invalid UUID "abc".', detail: 'invalid UUID length: 3' });
      const json = await t
        .http()
        .put(`/api/v2/notifications/inbox/${randomUUID()}/read-status`)
        .set(as(member))
        .set('Content-Type', 'application/json')
        .send('{x');
      expect(json.status).toBe(400);
      expect(json.body.message).toBe(BAD_JSON);
      const typed = await t
        .http()
        .put(`/api/v2/notifications/inbox/${randomUUID()}/read-status`)
        .set(as(member))
        .send({ is_read: 'yes' });
      expect(typed.status).toBe(400);
      const unknown = await t
        .http()
        .put(`/api/v2/notifications/inbox/${randomUUID()}/read-status`)
        .set(as(member))
        .send({ is_read: true });
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toBe(NOT_FOUND);
      await notify(other, 'not yours');
      const item = (await t.http().get('/api/v2/notifications/inbox').set(as(other))).body.notifications[0];
      const foreign = await t
        .http()
        .put(`/api/v2/notifications/inbox/${item.id}/read-status`)
        .set(as(member))
        .send({ is_read: true });
      expect(foreign.status).toBe(404);
    });

    it('mark-all-as-read → 204; only the caller’s items', async () => {
      const mine = await t.factories.user();
      const theirs = await t.factories.user();
      for (let i = 0; i < 3; i += 1) await notify(mine, `m${i}`);
      for (let i = 0; i < 2; i += 1) await notify(theirs, `t${i}`);
      const res = await t.http().put('/api/v2/notifications/inbox/mark-all-as-read').set(as(mine));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect((await t.http().get('/api/v2/notifications/inbox').set(as(mine))).body.unread_count).toBe(0);
      expect((await t.http().get('/api/v2/notifications/inbox').set(as(theirs))).body.unread_count).toBe(2);
    });

    it('GET inbox/watch without an upgrade → 426 (after query validation)', async () => {
      const res = await t.http().get('/api/v2/notifications/inbox/watch').set(as(member));
      expect(res.status).toBe(426);
      expect(res.body).toEqual({
        message: 'Failed to upgrade connection to websocket.',
        detail: 'Expected a WebSocket upgrade request.',
      });
      const bad = await t
        .http()
        .get('/api/v2/notifications/inbox/watch')
        .query({ targets: 'abc' })
        .set(as(member));
      expect(bad.status).toBe(400);
    });
  });
});
