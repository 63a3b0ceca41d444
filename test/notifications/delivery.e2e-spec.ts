import { randomUUID } from 'node:crypto';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';
import { NotificationEnqueuer } from '../../src/modules/notifications/delivery/notification-enqueuer.service';
import { NOTIFICATION_TEMPLATE_IDS as IDS } from '../../src/modules/notifications/template-ids';
import { TransactionRunner } from '../../src/platform/database/transaction-runner.service';
import { EventBus } from '../../src/platform/events/event-bus.service';
import { DispatchWaker } from '../../src/modules/notifications/delivery/dispatch-waker';
import { NotificationDispatcher } from '../../src/modules/notifications/delivery/notification-dispatcher.service';
import {
  appEnv,
  EMBEDDED,
  fastQueueEnv,
  inboxCount,
  messagesOf,
  sleep,
  TestSmtpServer,
  TestWebhookReceiver,
  waitFor,
} from './helpers';

/**
 * The durable queue against real peers: an SMTP server (smtp-server) and an HTTP webhook receiver
 * in this process, two dispatchers on one database, retries, inhibition, dedupe, restart.
 * On embedded PGlite only one app runs at a time (see helpers.ts); on a PostgreSQL server the
 * two dispatchers are two app instances on one schema.
 */
describe('notification delivery', () => {
  const smtp = new TestSmtpServer();
  const hook = new TestWebhookReceiver();
  let env: Record<string, string>;
  /** Default method smtp; its fallback poll is slow, so delivery proves the enqueue wake-up. */
  let s: TestApp;
  /** Same schema, default method webhook (opened after `s` is closed). */
  let w: TestApp | undefined;
  /** The app in use for direct database checks. */
  let db: TestApp;
  let closed = false;
  let owner: CreatedUser;

  const as = (u: CreatedUser) => ({ 'Service-Session-Token': u.token });
  const setPaused = async (paused: boolean) => {
    await db.dataSource.query(
      `INSERT INTO site_configs (key, value, updated_at) VALUES ('notifications.settings', $1, now())
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [JSON.stringify({ notifier_paused: paused })],
    );
  };
  const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));
  const hooksFor = (userUuid: string) =>
    hook.received.filter((h) => (h.body.payload as { user_id: string }).user_id === userUuid);
  const statusOf = async (id: string) =>
    (
      (await db.dataSource.query(
        'SELECT status, attempt_count, status_reason FROM notification_messages WHERE id = $1',
        [id],
      )) as {
        status: string;
        attempt_count: number;
        status_reason: string | null;
      }[]
    )[0]!;

  beforeAll(async () => {
    env = {
      SMTP_URL: await smtp.start(),
      NOTIFICATIONS_WEBHOOK_URL: await hook.start(),
      SMTP_FROM: 'devplane <noreply@devplane.test>',
    };
    env = { ...fastQueueEnv({ NOTIFICATIONS_FETCH_INTERVAL_MS: '60000' }), ...env };
    s = await createTestApp({ env: appEnv({ ...env, NOTIFICATIONS_METHOD: 'smtp' }) });
    db = s;
    await db.dataSource.query(`DELETE FROM site_configs WHERE key = 'notifications.settings'`);
    owner = await s.factories.admin({ fullName: 'Olive Owner' });
  });
  afterAll(async () => {
    await db.dataSource.query(`DELETE FROM site_configs WHERE key = 'notifications.settings'`);
    await w?.close();
    if (!closed) await s.close();
    await smtp.stop();
    await hook.stop();
  });

  it('an enqueue wakes the dispatcher at once (the fallback poll is 60 s here)', async () => {
    const user = await s.factories.user();
    const res = await s
      .http()
      .post('/api/v2/notifications/custom')
      .set(as(user))
      .send({ content: { title: 'wake up' } });
    expect(res.status).toBe(204);
    await waitFor(() => mailsTo(user.user.email).length === 1, 15_000, 'mail');
    await waitFor(async () => (await inboxCount(db.dataSource, user.user.id)) === 1, 15_000, 'inbox');
    // The SMTP server has the mail before the dispatcher records it as sent: wait for that write too.
    await waitFor(
      async () => (await messagesOf(db.dataSource, user.user.id)).every((r) => r.status === 'sent'),
      15_000,
      'sent',
    );
    const rows = await messagesOf(db.dataSource, user.user.id);
    expect(rows.map((r) => [r.method, r.status, r.attempt_count]).sort()).toEqual([
      ['inbox', 'sent', 1],
      ['smtp', 'sent', 1],
    ]);
  });

  it('SMTP: the test notification reaches the SMTP server with subject, text, action and X-Message-Id', async () => {
    const res = await s.http().post('/api/v2/notifications/test').set(as(owner));
    expect(res.status).toBe(200);
    const [mail] = await waitFor(
      () => (mailsTo(owner.user.email).length > 0 ? mailsTo(owner.user.email) : undefined),
      15_000,
      'mail',
    );
    expect(mail!.subject).toBe('A test notification');
    expect(mail!.from).toBe('noreply@devplane.test');
    expect(mail!.raw).toContain('This is a test notification.');
    expect(mail!.raw).toContain('View notification settings');
    const messageId = /^X-Message-Id: (.*)$/im.exec(mail!.raw)?.[1]?.trim();
    await waitFor(async () => (await statusOf(messageId!)).status === 'sent', 15_000, 'sent status');
  });

  it('SMTP: the HTML part shows raw HTML of a custom message as text and drops javascript: links', async () => {
    const user = await s.factories.user();
    const res = await s
      .http()
      .post('/api/v2/notifications/custom')
      .set(as(user))
      .send({
        content: {
          title: 'html test',
          message:
            'see <script>alert(1)</script> and [this](javascript:alert(2)) or [that](https://ok.example/x)',
        },
      });
    expect(res.status).toBe(204);
    const [mail] = await waitFor(
      () => (mailsTo(user.user.email).length > 0 ? mailsTo(user.user.email) : undefined),
      15_000,
      'mail',
    );
    // quoted-printable soft breaks and =3D undone
    const raw = mail!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const at = raw.indexOf('Content-Type: text/html');
    expect(at).toBeGreaterThan(-1);
    const html = raw.slice(at);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('<a href="https://ok.example/x">that</a>');
  });

  it('SMTP: a 451 is retried (temporary failure, then sent after 2 attempts)', async () => {
    const user = await s.factories.user();
    smtp.failures = [451];
    await s.app
      .get(NotificationEnqueuer)
      .enqueue({ templateId: IDS.testNotification, userId: user.user.id, createdBy: 'test' });
    await waitFor(() => mailsTo(user.user.email).length === 1, 15_000, 'mail after retry');
    const [row] = (await messagesOf(db.dataSource, user.user.id)).filter((m) => m.method === 'smtp');
    await waitFor(async () => (await statusOf(row!.id)).status === 'sent', 15_000, 'sent');
    expect((await statusOf(row!.id)).attempt_count).toBe(2);
  });

  it('SMTP: a 550 is a permanent failure after one attempt', async () => {
    const user = await s.factories.user();
    smtp.failures = [550];
    await s.app
      .get(NotificationEnqueuer)
      .enqueue({ templateId: IDS.testNotification, userId: user.user.id, createdBy: 'test' });
    const [row] = (await messagesOf(db.dataSource, user.user.id)).filter((m) => m.method === 'smtp');
    await waitFor(
      async () => (await statusOf(row!.id)).status === 'permanent_failure',
      15_000,
      'permanent failure',
    );
    const final = await statusOf(row!.id);
    expect(final.attempt_count).toBe(1);
    expect(final.status_reason).toMatch(/550/);
    expect(mailsTo(user.user.email)).toHaveLength(0);
  });

  it('OTP: one mail with the passcode and the reset link; never an inbox row', async () => {
    const user = await s.factories.user();
    const passcode = randomUUID();
    await s.app.get(EventBus).emitAsync('auth.one_time_passcode_requested', {
      userId: user.user.id,
      email: user.user.email,
      username: user.user.name,
      passcode,
      expiresAt: new Date(Date.now() + 1_200_000).toISOString(),
    });
    const [mail] = await waitFor(
      () => (mailsTo(user.user.email).length > 0 ? mailsTo(user.user.email) : undefined),
      15_000,
      'otp mail',
    );
    expect(mail!.subject).toContain('Reset your password');
    const text = mail!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(text).toContain(passcode);
    expect(text).toContain(`otp=${passcode}`);
    expect(text).toContain('email=');
    const rows = await messagesOf(db.dataSource, user.user.id);
    expect(rows.map((r) => r.method)).toEqual(['smtp']);
    expect(await inboxCount(db.dataSource, user.user.id)).toBe(0);
  });

  it('enqueue inside a caller transaction: nothing on rollback; delivered after commit', async () => {
    const user = await s.factories.user();
    const runner = s.app.get(TransactionRunner);
    const enqueuer = s.app.get(NotificationEnqueuer);
    await expect(
      runner.run(async (tx) => {
        await enqueuer.enqueue(
          {
            templateId: IDS.customNotification,
            userId: user.user.id,
            labels: { custom_title: 'rolled back' },
            createdBy: 'test',
          },
          tx,
        );
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await messagesOf(db.dataSource, user.user.id)).toHaveLength(0);
    await runner.run(async (tx) => {
      await enqueuer.enqueue(
        {
          templateId: IDS.customNotification,
          userId: user.user.id,
          labels: { custom_title: 'committed' },
          createdBy: 'test',
        },
        tx,
      );
    });
    await waitFor(
      async () => (await inboxCount(db.dataSource, user.user.id)) === 1,
      15_000,
      'delivered after commit',
    );
  });

  it('dedupe: the same template, user, payload and targets twice a day → one row per method', async () => {
    const user = await s.factories.user();
    const enqueuer = s.app.get(NotificationEnqueuer);
    const request = {
      templateId: IDS.customNotification,
      userId: user.user.id,
      labels: { custom_title: 'same', custom_message: 'x' },
      createdBy: 'test',
    };
    const first = await enqueuer.enqueue(request);
    const second = await enqueuer.enqueue({
      ...request,
      labels: { custom_message: 'x', custom_title: 'same' },
    });
    expect(first).toHaveLength(2);
    expect(second).toHaveLength(0);
    const third = await enqueuer.enqueue({ ...request, targets: [randomUUID()] });
    expect(third).toHaveLength(2);
  });

  it('a template the user disabled is dropped at enqueue; disabled after enqueue → inhibited at dispatch', async () => {
    const user = await s.factories.user();
    const prefs = `/api/v2/users/me/notifications/preferences`;
    await s
      .http()
      .put(prefs)
      .set(as(user))
      .send({ template_disabled_map: { [IDS.testNotification]: true } });
    const enqueuer = s.app.get(NotificationEnqueuer);
    expect(
      await enqueuer.enqueue({ templateId: IDS.testNotification, userId: user.user.id, createdBy: 'test' }),
    ).toEqual([]);
    expect(await messagesOf(db.dataSource, user.user.id)).toHaveLength(0);

    await setPaused(true);
    const ids = await enqueuer.enqueue({
      templateId: IDS.customNotification,
      userId: user.user.id,
      labels: { custom_title: 'late' },
      createdBy: 'test',
    });
    expect(ids).toHaveLength(2);
    await s
      .http()
      .put(prefs)
      .set(as(user))
      .send({ template_disabled_map: { [IDS.customNotification]: true } });
    await setPaused(false);
    enqueuer.wake();
    await waitFor(
      async () => (await messagesOf(db.dataSource, user.user.id)).every((m) => m.status === 'inhibited'),
      15_000,
      'inhibited',
    );
    expect((await messagesOf(db.dataSource, user.user.id)).map((m) => m.status_reason)).toEqual([
      'disabled by user',
      'disabled by user',
    ]);
    expect(mailsTo(user.user.email)).toHaveLength(0);
    expect(await inboxCount(db.dataSource, user.user.id)).toBe(0);
  });

  it('user events: suspension and activation notify owners and the user; creation notifies owners; send_notify mails the new user', async () => {
    const events = s.app.get(EventBus);
    const member = await s.factories.user({ fullName: 'Mia Member' });
    await events.emitAsync('user.status_changed', {
      userId: member.user.id,
      from: 'active',
      to: 'suspended',
      actorId: owner.user.id,
    });
    await waitFor(
      async () => (await inboxCount(db.dataSource, member.user.id)) === 1,
      15_000,
      'member inbox',
    );
    const ownerItems = async () =>
      (await db.dataSource.query(
        'SELECT title, content, targets FROM inbox_notifications WHERE user_id = $1 ORDER BY created_at',
        [owner.user.id],
      )) as {
        title: string;
        content: string;
        targets: string[];
      }[];
    await waitFor(
      async () => (await ownerItems()).some((i) => i.title.includes('suspended')),
      15_000,
      'owner inbox',
    );
    const suspended = (await ownerItems()).find((i) => i.title.includes('suspended'))!;
    expect(suspended.title).toBe(`User account "${member.user.name.replace(/_/g, '&#95;')}" suspended`);
    expect(suspended.content).toContain('belongs to **Mia Member**');
    expect(suspended.content).toContain(`was suspended by **${owner.user.name}**`);
    expect(suspended.targets).toEqual([member.user.uuid]);
    await waitFor(
      () =>
        mailsTo(member.user.email).some(
          (m) => m.subject === `Your account "${member.user.name}" has been suspended`,
        ),
      15_000,
      'member mail',
    );

    await events.emitAsync('user.status_changed', {
      userId: member.user.id,
      from: 'suspended',
      to: 'active',
      actorId: owner.user.id,
    });
    await waitFor(
      async () => (await ownerItems()).some((i) => i.title.includes('activated')),
      15_000,
      'owner activated',
    );
    await waitFor(
      () => mailsTo(member.user.email).some((m) => m.subject.includes('has been activated')),
      15_000,
      'member activated mail',
    );
    // dormant → active (sign-in) sends nothing: no queue row for anyone (the listener is awaited, the
    // enqueue is synchronous, so a row would already be there)
    const queued = async () =>
      Number(
        (
          (await db.dataSource.query('SELECT count(*) AS n FROM notification_messages')) as { n: string }[]
        )[0]!.n,
      );
    const before = await queued();
    await events.emitAsync('user.status_changed', {
      userId: member.user.id,
      from: 'dormant',
      to: 'active',
      actorId: null,
    });
    expect(await queued()).toBe(before);

    const created = await s.factories.user({
      createdBy: owner.user.id,
      sendNotify: true,
      fullName: 'Nina New',
    });
    await waitFor(
      async () => (await ownerItems()).some((i) => i.title.includes('created')),
      15_000,
      'owner created',
    );
    await waitFor(
      () => mailsTo(created.user.email).some((m) => m.subject === 'Welcome to devplane'),
      15_000,
      'registration mail',
    );
    expect(await inboxCount(db.dataSource, created.user.id)).toBe(0);
  });

  it('workflow rule matched → an inbox item for the rule owner only, no mail', async () => {
    const ruleOwner = await s.factories.user();
    await s.app.get(EventBus).emitAsync('workflow.notify_owner', {
      ruleId: '7',
      ruleName: 'Watch uploads',
      ownerUserId: ruleOwner.user.id,
      entity: 'OCA\\WorkflowEngine\\Entity\\File',
      event: 'OCP\\Files\\Events\\Node\\NodeCreatedEvent',
      subject: 'report.pdf',
      message: 'A file was uploaded',
      actorUserId: owner.user.id,
    });
    await waitFor(
      async () => (await inboxCount(db.dataSource, ruleOwner.user.id)) === 1,
      15_000,
      'workflow item',
    );
    const list = await s.http().get('/api/v2/notifications/inbox').set(as(ruleOwner));
    expect(list.body.notifications[0].title).toBe('Workflow rule "Watch uploads" matched');
    expect(list.body.notifications[0].content).toContain('A file was uploaded');
    expect(list.body.notifications[0].template_id).toBe(IDS.workflowRuleMatched);
    expect((await messagesOf(db.dataSource, ruleOwner.user.id)).map((m) => m.method)).toEqual(['inbox']);
    await sleep(100);
    expect(mailsTo(ruleOwner.user.email)).toHaveLength(0);
  });

  it('user deleted: pending messages of the user are dropped', async () => {
    const user = await s.factories.user();
    await setPaused(true);
    await s.app
      .get(NotificationEnqueuer)
      .enqueue({ templateId: IDS.testNotification, userId: user.user.id, createdBy: 'test' });
    await s.app.get(EventBus).emitAsync('user.deleted', {
      userId: user.user.id,
      uuid: user.user.uuid,
      username: user.user.name,
      purge: false,
      actorId: owner.user.id,
    });
    await setPaused(false);
    const rows = await messagesOf(db.dataSource, user.user.id);
    expect(rows.map((r) => [r.method, r.status, r.status_reason]).sort()).toEqual([
      ['inbox', 'inhibited', 'user deleted'],
      ['smtp', 'inhibited', 'user deleted'],
    ]);
    expect(await inboxCount(db.dataSource, user.user.id)).toBe(0);
  });

  it('user deleted: when no administrator receives "User account created" any more, it is enabled for the actor', async () => {
    const admin = await db.factories.admin();
    const gone = await db.factories.admin();
    const admins: { id: string }[] = await db.dataSource.query(
      `SELECT id FROM users WHERE type = 'individual' AND (is_admin OR 'owner' = ANY(site_roles) OR 'user-admin' = ANY(site_roles))`,
    );
    const saved: unknown[] = await db.dataSource.query(
      'SELECT * FROM notification_preferences WHERE template_id = $1',
      [IDS.userAccountCreated],
    );
    try {
      for (const { id } of admins) {
        await db.dataSource.query(
          `INSERT INTO notification_preferences (user_id, template_id, disabled) VALUES ($1, $2, true)
           ON CONFLICT (user_id, template_id) DO UPDATE SET disabled = true`,
          [id, IDS.userAccountCreated],
        );
      }
      await db.app.get(EventBus).emitAsync('user.deleted', {
        userId: gone.user.id,
        uuid: gone.user.uuid,
        username: gone.user.name,
        purge: false,
        actorId: admin.user.id,
      });
      const prefs: { user_id: string; disabled: boolean }[] = await db.dataSource.query(
        'SELECT user_id, disabled FROM notification_preferences WHERE template_id = $1 AND user_id = ANY($2::bigint[])',
        [IDS.userAccountCreated, [admin.user.id, owner.user.id]],
      );
      expect(Object.fromEntries(prefs.map((p) => [String(p.user_id), p.disabled]))).toEqual({
        [admin.user.id]: false,
        [owner.user.id]: true,
      });
    } finally {
      await db.dataSource.query('DELETE FROM notification_preferences WHERE template_id = $1', [
        IDS.userAccountCreated,
      ]);
      for (const row of saved as { user_id: string; disabled: boolean }[]) {
        await db.dataSource.query(
          'INSERT INTO notification_preferences (user_id, template_id, disabled) VALUES ($1, $2, $3)',
          [row.user_id, IDS.userAccountCreated, row.disabled],
        );
      }
    }
  });

  describe('webhook (another instance on the same database)', () => {
    const open = () =>
      createTestApp({
        schema: s.schema,
        env: appEnv({ ...env, ...fastQueueEnv(), NOTIFICATIONS_METHOD: 'webhook' }),
      });
    beforeAll(async () => {
      // Embedded: one app at a time. Server: `s` stays up as one more dispatcher (closing it would drop the schema).
      if (EMBEDDED) {
        await s.close();
        closed = true;
      }
      w = await open();
      db = w;
    });

    it('dispatch-methods reports the configured default', async () => {
      const user = await w!.factories.user();
      const res = await w!.http().get('/api/v2/notifications/dispatch-methods').set(as(user));
      expect(res.body).toEqual([{ available: ['smtp', 'webhook'], default: 'webhook' }]);
    });

    it('delivers Coder’s WebhookPayload v1.1 with X-Message-Id', async () => {
      const user = await w!.factories.user({ fullName: 'Wendy Hook' });
      const res = await w!
        .http()
        .post('/api/v2/notifications/custom')
        .set(as(user))
        .send({ content: { title: '**Bold** title', message: 'Some _text_' } });
      expect(res.status).toBe(204);
      const [received] = await waitFor(
        () => (hooksFor(user.user.uuid).length > 0 ? hooksFor(user.user.uuid) : undefined),
        15_000,
        'webhook',
      );
      const body = received!.body as Record<string, unknown>;
      expect(received!.headers['x-message-id']).toBe(body.msg_id);
      expect(body).toMatchObject({
        _version: '1.1',
        title: 'Bold title',
        title_markdown: '**Bold** title',
        body: 'Some text',
        body_markdown: 'Some _text_',
        payload: {
          _version: '1.2',
          notification_name: 'Custom Notification',
          notification_template_id: IDS.customNotification,
          user_id: user.user.uuid,
          user_email: user.user.email,
          user_name: 'Wendy Hook',
          user_username: user.user.name,
          actions: [],
          labels: { custom_title: '**Bold** title', custom_message: 'Some _text_' },
          targets: null,
        },
      });
    });

    it('a failing receiver: 500, 500, then 200 → sent after 3 attempts', async () => {
      const user = await w!.factories.user();
      hook.statuses = [500, 500];
      await w!.app
        .get(NotificationEnqueuer)
        .enqueue({ templateId: IDS.testNotification, userId: user.user.id, createdBy: 'test' });
      const [row] = (await messagesOf(db.dataSource, user.user.id)).filter((m) => m.method === 'webhook');
      await waitFor(async () => (await statusOf(row!.id)).status === 'sent', 20_000, 'sent after retries');
      expect((await statusOf(row!.id)).attempt_count).toBe(3);
      expect(hooksFor(user.user.uuid)).toHaveLength(3);
    });

    it('a receiver that always fails → permanent failure after 5 attempts, exactly 5 requests', async () => {
      const user = await w!.factories.user();
      hook.defaultStatus = 500;
      try {
        await w!.app
          .get(NotificationEnqueuer)
          .enqueue({ templateId: IDS.testNotification, userId: user.user.id, createdBy: 'test' });
        const [row] = (await messagesOf(db.dataSource, user.user.id)).filter((m) => m.method === 'webhook');
        await waitFor(
          async () => (await statusOf(row!.id)).status === 'permanent_failure',
          15_000,
          'permanent failure',
        );
        expect((await statusOf(row!.id)).attempt_count).toBe(5);
        await sleep(300);
        expect(hooksFor(user.user.uuid)).toHaveLength(5);
      } finally {
        hook.defaultStatus = 200;
      }
    });

    it('two dispatchers never send a message twice (200 messages)', async () => {
      // Server: a second app instance on the same schema. Embedded: a second dispatcher in this
      // app (one connection; PGlite serializes anyway), so the lease race is still exercised.
      let second: TestApp | undefined;
      let extra: NotificationDispatcher | undefined;
      if (EMBEDDED) {
        const d = w!.app.get(NotificationDispatcher);
        const fields = d as unknown as Record<string, unknown>;
        extra = new (NotificationDispatcher as unknown as new (...args: unknown[]) => NotificationDispatcher)(
          fields.dataSource,
          fields.config,
          fields.settings,
          fields.templates,
          fields.inbox,
          new DispatchWaker(),
          fields.cluster,
          { url: '', embedded: true },
        );
        extra.onApplicationBootstrap();
      } else {
        second = await open();
      }
      try {
        const user = await w!.factories.user();
        const ids: string[] = [];
        for (let i = 0; i < 200; i += 1) {
          ids.push(
            ...(await w!.app.get(NotificationEnqueuer).enqueue({
              templateId: IDS.customNotification,
              userId: user.user.id,
              labels: { custom_title: `n${i}` },
              createdBy: 'test',
            })),
          );
          if (i % 20 === 0)
            (second ? second.app.get(NotificationEnqueuer) : w!.app.get(NotificationEnqueuer)).wake();
        }
        expect(ids).toHaveLength(400);
        await waitFor(
          async () => (await messagesOf(db.dataSource, user.user.id)).every((m) => m.status === 'sent'),
          30_000,
          'all sent',
        );
        const received = hooksFor(user.user.uuid).map((h) => h.body.msg_id as string);
        expect(received).toHaveLength(200);
        expect(new Set(received).size).toBe(200);
        expect(await inboxCount(db.dataSource, user.user.id)).toBe(200);
      } finally {
        await extra?.onModuleDestroy();
        await second?.close();
      }
    });

    it('a dispatcher that dies after leasing: the lease expires and another delivers it once', async () => {
      const user = await w!.factories.user();
      await setPaused(true);
      const ids = await w!.app.get(NotificationEnqueuer).enqueue({
        templateId: IDS.customNotification,
        userId: user.user.id,
        labels: { custom_title: 'orphan' },
        createdBy: 'test',
      });
      const inboxId = (await messagesOf(db.dataSource, user.user.id)).find((m) => m.method === 'inbox')!.id;
      expect(ids).toContain(inboxId);
      await db.dataSource.query(
        `UPDATE notification_messages SET status = 'leased', leased_by = $2, leased_until = now() + interval '1 second' WHERE id = ANY($1::uuid[])`,
        [ids, randomUUID()],
      );
      await setPaused(false);
      await waitFor(
        async () => (await messagesOf(db.dataSource, user.user.id)).every((m) => m.status === 'sent'),
        20_000,
        'redelivered',
      );
      expect(await inboxCount(db.dataSource, user.user.id)).toBe(1);
      expect(hooksFor(user.user.uuid)).toHaveLength(1);
    });

    it('nothing is lost across a restart', async () => {
      const user = await w!.factories.user();
      await setPaused(true);
      await w!.app.get(NotificationEnqueuer).enqueue({
        templateId: IDS.customNotification,
        userId: user.user.id,
        labels: { custom_title: 'survivor' },
        createdBy: 'test',
      });
      await w!.close();
      w = await open();
      db = w;
      await setPaused(false);
      w.app.get(NotificationEnqueuer).wake();
      await waitFor(
        async () => (await inboxCount(db.dataSource, user.user.id)) === 1,
        20_000,
        'delivered after restart',
      );
      await waitFor(() => hooksFor(user.user.uuid).length === 1, 15_000, 'webhook after restart');
    });
  });
});
