import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { DATABASE_RUNTIME, type DatabaseRuntime } from '../../../platform/database/database-runtime';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import type { MessageStatus } from '../entities/notification-message.entity';
import type { NotificationTemplate } from '../entities/notification-template.entity';
import { InboxService } from '../inbox/inbox.service';
import { NotificationSettingsService, SETTINGS_KEY } from '../notification-settings.service';
import { NotificationTemplatesService } from '../notification-templates.service';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../notifications.config';
import { markdownToPlaintext } from '../rendering/markdown';
import { fallbackIcon, NOTIFICATION_TEMPLATE_IDS } from '../template-ids';
import { DispatchWaker } from './dispatch-waker';
import { baseUrlOf, ENQUEUED_TOPIC } from './notification-enqueuer.service';
import { type MessagePayload, renderMarkdown } from './payload';
import { type RenderedMessage, SendError, SmtpSender, WebhookSender } from './senders';

interface InboxDelivery {
  row: LeasedRow;
  template: NotificationTemplate;
  message: RenderedMessage;
}

interface LeasedRow {
  id: string;
  template_id: string;
  user_id: string;
  method: string;
  payload: MessagePayload;
  attempt_count: number;
  targets: string[];
  /** The user turned this template off (or left a default-off template off). */
  disabled: boolean | null;
}

/** Rows of a raw query: TypeORM returns `[rows, count]` for UPDATE/DELETE. */
export function rowsOf<T>(result: unknown): T[] {
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}

/**
 * The delivery loop of one instance. Woken by enqueues (in-process and over the cluster bus) and
 * by a fallback timer; leases batches with FOR UPDATE SKIP LOCKED in one autocommit statement, so
 * instances share the queue; records each outcome fenced by its lease.
 */
@Injectable()
export class NotificationDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(NotificationDispatcher.name);
  readonly dispatcherId = randomUUID();
  private readonly smtp: SmtpSender;
  private readonly webhook: WebhookSender;
  private stopped = true;
  private busy = false;
  private again = false;
  private current: Promise<void> = Promise.resolve();
  private poller: NodeJS.Timeout | undefined;
  private housekeeper: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /**
   * With a PostgreSQL server and a pool of 4 or more: one pooled connection kept for the
   * dispatcher, so its statements never queue behind request traffic in the pool (under 50
   * concurrent writers each round's statements waited ~100 ms there; issue 10 item 14).
   */
  private readonly reserveConnection: boolean;
  private reserved: QueryRunner | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NOTIFICATIONS_CONFIG) private readonly settings: NotificationsConfig,
    private readonly templates: NotificationTemplatesService,
    private readonly inbox: InboxService,
    private readonly waker: DispatchWaker,
    private readonly cluster: ClusterBus,
    @Inject(DATABASE_RUNTIME) runtime: DatabaseRuntime,
  ) {
    this.smtp = new SmtpSender(config, settings);
    this.webhook = new WebhookSender(config, settings);
    this.reserveConnection = !runtime.embedded && config.databasePoolSize >= 4;
  }

  /** A statement of the dispatcher: on its reserved connection when it has one. */
  private async query<T = unknown>(sql: string, parameters: unknown[]): Promise<T> {
    if (!this.reserveConnection || this.stopped) return this.dataSource.query(sql, parameters) as Promise<T>;
    if (!this.reserved || this.reserved.isReleased) {
      const runner = this.dataSource.createQueryRunner('master');
      await runner.connect();
      this.reserved = runner;
    }
    // A connection that fails is released by TypeORM itself (`isReleased`): the next statement reserves another.
    return (await this.reserved.query(sql, parameters)) as T;
  }

  onApplicationBootstrap(): void {
    this.stopped = false;
    this.waker.onWake(() => this.kick());
    this.unsubscribe = this.cluster.subscribe(ENQUEUED_TOPIC, () => this.kick());
    this.poller = setInterval(() => this.kick(), this.settings.fetchIntervalMs);
    this.poller.unref();
    this.housekeeper = setInterval(() => void this.purge(), 3_600_000);
    this.housekeeper.unref();
    this.kick();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poller);
    clearInterval(this.housekeeper);
    this.unsubscribe?.();
    await this.current.catch(() => undefined);
    await this.reserved?.release().catch(() => undefined);
    this.reserved = undefined;
    this.smtp.close();
  }

  /** Runs a dispatch round now (or right after the one in progress). */
  kick(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.current = this.rounds()
      .catch((error: unknown) => {
        if (!this.stopped) this.logger.error({ err: error }, 'notification dispatch round failed');
      })
      .finally(() => {
        this.busy = false;
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async rounds(): Promise<void> {
    do {
      this.again = false;
      const leased = await this.round();
      if (leased >= this.settings.leaseCount) this.again = true;
    } while (this.again && !this.stopped);
  }

  /**
   * One round: lease, render, send, record. Returns how many messages were leased. Two statements
   * for a batch of inbox messages: the lease (which also reads the pause switch and each message's
   * preference) and the inbox insert.
   */
  async round(): Promise<number> {
    // A send must end before the lease does, or another dispatcher could send it again.
    const leaseDeadline = Date.now() + this.settings.leasePeriodMs;
    const rows = rowsOf<LeasedRow>(
      await this.query(
        `UPDATE notification_messages m
            SET status = 'leased', leased_by = $1, updated_at = now(),
                leased_until = now() + make_interval(secs => $2),
                status_reason = NULL,
                queued_seconds = GREATEST(0, EXTRACT(EPOCH FROM now() - m.updated_at))
          WHERE m.id IN (
            SELECT id FROM notification_messages
             WHERE (status IN ('pending', 'temporary_failure') OR (status = 'leased' AND leased_until < now()))
               AND attempt_count < $3
               AND (next_retry_after IS NULL OR next_retry_after <= now())
               AND NOT EXISTS (SELECT 1 FROM site_configs WHERE key = $5 AND value = $6)
             ORDER BY created_at
             LIMIT $4
             FOR UPDATE SKIP LOCKED)
        RETURNING m.id, m.template_id, m.user_id, m.method, m.payload, m.attempt_count, m.targets,
                  COALESCE(
                    (SELECT p.disabled FROM notification_preferences p WHERE p.user_id = m.user_id AND p.template_id = m.template_id),
                    (SELECT NOT t.enabled_by_default FROM notification_templates t WHERE t.id = m.template_id)) AS disabled`,
        [
          this.dispatcherId,
          this.settings.leasePeriodMs / 1000,
          this.settings.maxSendAttempts,
          this.settings.leaseCount,
          SETTINGS_KEY,
          NotificationSettingsService.canonical(true),
        ],
      ),
    );
    if (rows.length === 0) return 0;
    const disabled = new Set(
      rows.filter((r) => r.disabled === true).map((r) => `${r.user_id}:${r.template_id}`),
    );
    const inbox: InboxDelivery[] = [];
    const queue: LeasedRow[] = [];
    for (const row of rows) {
      if (row.method === 'inbox' && !disabled.has(`${row.user_id}:${row.template_id}`)) {
        const prepared = await this.prepare(row);
        if (prepared) inbox.push(prepared);
      } else {
        queue.push(row);
      }
    }
    if (inbox.length > 0) {
      await this.toInbox(inbox).catch(async (error: unknown) => {
        for (const { row } of inbox)
          await this.fail(row, new SendError(`inbox: ${String(error)}`, true)).catch(() => undefined);
      });
    }
    const workers = Array.from(
      { length: Math.min(this.settings.sendConcurrency, queue.length) },
      async () => {
        for (let row = queue.shift(); row; row = queue.shift()) {
          if (Date.now() + this.settings.dispatchTimeoutMs >= leaseDeadline) {
            await this.release(row).catch(() => undefined);
            this.again = true;
            continue;
          }
          await this.deliver(row, disabled).catch((error: unknown) =>
            this.logger.error({ err: error, messageId: row!.id }, 'recording a notification outcome failed'),
          );
        }
      },
    );
    await Promise.all(workers);
    return rows.length;
  }

  /** Renders a leased message; a missing template or a render error is a permanent failure. */
  private async prepare(row: LeasedRow): Promise<InboxDelivery | undefined> {
    try {
      const template = await this.templates.find(row.template_id);
      if (!template) throw new Error(`template ${row.template_id} not found`);
      return { row, template, message: this.render(row, template) };
    } catch (error) {
      await this.fail(
        row,
        new SendError(`render: ${error instanceof Error ? error.message : String(error)}`, false),
      );
      return undefined;
    }
  }

  private async deliver(row: LeasedRow, disabled: Set<string>): Promise<void> {
    if (disabled.has(`${row.user_id}:${row.template_id}`)) {
      await this.finish(row, 'inhibited', 'disabled by user', false);
      return;
    }
    const prepared = await this.prepare(row);
    if (!prepared) return;
    const rendered = prepared.message;
    try {
      switch (row.method) {
        case 'smtp':
          await this.smtp.send(rendered);
          break;
        case 'webhook':
          await this.webhook.send(rendered);
          break;
        case 'inbox':
          await this.toInbox([prepared]);
          return; // marked sent in the same statement
        default:
          throw new SendError(`unknown method ${row.method}`, false);
      }
    } catch (error) {
      await this.fail(row, error instanceof SendError ? error : new SendError(String(error), true));
      return;
    }
    await this.finish(row, 'sent', null, true);
  }

  private render(row: LeasedRow, template: NotificationTemplate): RenderedMessage {
    const { titleMarkdown, bodyMarkdown } = renderMarkdown(row.payload, template, baseUrlOf(this.config));
    return {
      id: row.id,
      payload: row.payload,
      titleMarkdown,
      bodyMarkdown,
      title: markdownToPlaintext(titleMarkdown),
      body: markdownToPlaintext(bodyMarkdown),
    };
  }

  /**
   * Inbox items and their `sent` marks for a whole batch in one statement (atomic, one round trip).
   * The item id is the message id, so a redelivery after a lost lease never makes a second item.
   */
  private async toInbox(batch: InboxDelivery[]): Promise<void> {
    const items = batch.map(({ row, message, template }) => ({
      row,
      icon: template.icon || fallbackIcon(template.id),
      actions: row.payload.actions ?? [],
      message,
    }));
    const created: { id: string; created_at: Date; unread_before: string }[] = await this.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
           AS t(id, user_id, template_id, targets, title, content, icon, actions)
       ), created AS (
         INSERT INTO inbox_notifications (id, user_id, template_id, targets, title, content, icon, actions, created_at)
         SELECT id, user_id, template_id, ARRAY(SELECT jsonb_array_elements_text(targets::jsonb))::uuid[], title, content, icon,
                actions::jsonb, now()
           FROM input
         ON CONFLICT (id) DO NOTHING RETURNING id, user_id, created_at
       ), unread AS (
         -- The statement's snapshot: unread items before this batch (for the watchers' unread_count).
         SELECT user_id, count(*) AS n FROM inbox_notifications
          WHERE user_id IN (SELECT DISTINCT user_id FROM input) AND read_at IS NULL
          GROUP BY user_id
       ), marked AS (
         UPDATE notification_messages m
            SET status = 'sent', attempt_count = m.attempt_count + 1, updated_at = now(), leased_until = NULL,
                leased_by = NULL, next_retry_after = NULL, status_reason = NULL
           FROM input
          WHERE m.id = input.id AND m.leased_by = $9
          RETURNING m.id
       )
       SELECT c.id, c.created_at, COALESCE(u.n, 0) AS unread_before FROM created c LEFT JOIN unread u ON u.user_id = c.user_id`,
      [
        items.map((i) => i.row.id),
        items.map((i) => i.row.user_id),
        items.map((i) => i.row.template_id),
        items.map((i) => JSON.stringify(i.row.targets ?? [])),
        items.map((i) => i.message.titleMarkdown),
        items.map((i) => i.message.bodyMarkdown),
        items.map((i) => i.icon),
        items.map((i) => JSON.stringify(i.actions)),
        this.dispatcherId,
      ],
    );
    const written = new Map(created.map((c) => [c.id, c]));
    this.inbox.announceWritten(
      items.flatMap((item) => {
        const row = written.get(item.row.id);
        if (!row) return []; // delivered before (redelivery after a lost lease)
        return [
          {
            notification: {
              id: item.row.id,
              user_id: item.row.payload.user_id,
              template_id: item.row.template_id,
              targets: item.row.targets ?? [],
              title: item.message.titleMarkdown,
              content: item.message.bodyMarkdown,
              icon: item.icon,
              actions: item.actions,
              read_at: null,
              created_at: new Date(row.created_at).toISOString(),
            },
            unreadBefore: Number(row.unread_before),
          },
        ];
      }),
    );
  }

  /** Gives a leased message back untouched (not enough lease left to send it safely). */
  private async release(row: LeasedRow): Promise<void> {
    await this.query(
      `UPDATE notification_messages
          SET status = CASE WHEN attempt_count = 0 THEN 'pending' ELSE 'temporary_failure' END,
              leased_until = NULL, leased_by = NULL, status_reason = NULL
        WHERE id = $1 AND leased_by = $2`,
      [row.id, this.dispatcherId],
    );
  }

  private async fail(row: LeasedRow, error: SendError): Promise<void> {
    const attempts = row.attempt_count + 1;
    if (error.retryable && attempts < this.settings.maxSendAttempts) {
      const base = this.settings.retryIntervalMs * 2 ** (attempts - 1);
      const delay = Math.min(base, this.settings.retryMaxMs) * (0.9 + Math.random() * 0.2);
      await this.query(
        `UPDATE notification_messages
            SET status = 'temporary_failure', attempt_count = attempt_count + 1, updated_at = now(), leased_until = NULL,
                leased_by = NULL, status_reason = $3, next_retry_after = now() + make_interval(secs => $4)
          WHERE id = $1 AND leased_by = $2`,
        [row.id, this.dispatcherId, error.message, delay / 1000],
      );
      const timer = setTimeout(() => this.kick(), delay + 5);
      timer.unref();
      return;
    }
    this.logger.warn(
      { messageId: row.id, method: row.method, reason: error.message },
      'notification permanently failed',
    );
    await this.finish(row, 'permanent_failure', error.message, true);
  }

  private async finish(
    row: LeasedRow,
    status: MessageStatus,
    reason: string | null,
    attempted: boolean,
  ): Promise<void> {
    // A one-time passcode stays in the row only while it may still be sent: once the message is
    // finished, its labels and actions (the reset link) are dropped, so the code does not wait in
    // the table for the retention purge.
    const scrub =
      row.template_id === NOTIFICATION_TEMPLATE_IDS.oneTimePasscode &&
      (status === 'sent' || status === 'permanent_failure');
    await this.query(
      `UPDATE notification_messages
          SET status = $3, attempt_count = attempt_count + $5, updated_at = now(), leased_until = NULL,
              leased_by = NULL, next_retry_after = NULL, status_reason = $4,
              payload = CASE WHEN $6::boolean THEN payload || '{"labels": {}, "actions": []}'::jsonb ELSE payload END
        WHERE id = $1 AND leased_by = $2`,
      [row.id, this.dispatcherId, status, reason, attempted ? 1 : 0, scrub],
    );
  }

  /** Coder's retention: finished rows older than the retention period go. */
  async purge(): Promise<void> {
    if (this.stopped) return;
    await this.dataSource
      .query(
        `DELETE FROM notification_messages
          WHERE status IN ('sent', 'permanent_failure', 'inhibited') AND updated_at < now() - make_interval(days => $1)`,
        [this.settings.retentionDays],
      )
      .catch((error: unknown) => this.logger.warn({ err: error }, 'notification purge failed'));
  }
}
