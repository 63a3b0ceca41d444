import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import type { MessageStatus } from '../entities/notification-message.entity';
import type { NotificationTemplate } from '../entities/notification-template.entity';
import { InboxService } from '../inbox/inbox.service';
import { NotificationSettingsService } from '../notification-settings.service';
import { NotificationTemplatesService } from '../notification-templates.service';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../notifications.config';
import { renderTemplate } from '../rendering/go-template';
import { markdownToPlaintext } from '../rendering/markdown';
import { fallbackIcon } from '../template-ids';
import { DispatchWaker } from './dispatch-waker';
import { baseUrlOf, ENQUEUED_TOPIC } from './notification-enqueuer.service';
import { type MessagePayload, templateContext } from './payload';
import { type RenderedMessage, SendError, SmtpSender, WebhookSender } from './senders';

interface LeasedRow {
  id: string;
  template_id: string;
  user_id: string;
  method: string;
  payload: MessagePayload;
  attempt_count: number;
  targets: string[];
}

/** Rows of a raw query: TypeORM returns `[rows, count]` for UPDATE/DELETE. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
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

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NOTIFICATIONS_CONFIG) private readonly settings: NotificationsConfig,
    private readonly templates: NotificationTemplatesService,
    private readonly notifierSettings: NotificationSettingsService,
    private readonly inbox: InboxService,
    private readonly waker: DispatchWaker,
    private readonly cluster: ClusterBus,
  ) {
    this.smtp = new SmtpSender(config, settings);
    this.webhook = new WebhookSender(config, settings);
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

  /** One round: lease, render, send, record. Returns how many messages were leased. */
  async round(): Promise<number> {
    if (await this.notifierSettings.isPaused()) return 0;
    const rows = rowsOf<LeasedRow>(
      await this.dataSource.query(
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
             ORDER BY created_at
             LIMIT $4
             FOR UPDATE SKIP LOCKED)
        RETURNING m.id, m.template_id, m.user_id, m.method, m.payload, m.attempt_count, m.targets`,
        [this.dispatcherId, this.settings.leasePeriodMs / 1000, this.settings.maxSendAttempts, this.settings.leaseCount],
      ),
    );
    if (rows.length === 0) return 0;
    const disabled = await this.disabledPairs(rows);
    const queue = [...rows];
    const workers = Array.from({ length: Math.min(this.settings.sendConcurrency, queue.length) }, async () => {
      for (let row = queue.shift(); row; row = queue.shift()) {
        await this.deliver(row, disabled).catch((error: unknown) =>
          this.logger.error({ err: error, messageId: row!.id }, 'recording a notification outcome failed'),
        );
      }
    });
    await Promise.all(workers);
    return rows.length;
  }

  private async disabledPairs(rows: LeasedRow[]): Promise<Set<string>> {
    const result: { user_id: string; template_id: string }[] = await this.dataSource.query(
      `SELECT m.user_id, m.template_id
         FROM unnest($1::bigint[], $2::uuid[]) AS m(user_id, template_id)
         JOIN notification_templates t ON t.id = m.template_id
         LEFT JOIN notification_preferences p ON p.user_id = m.user_id AND p.template_id = m.template_id
        WHERE COALESCE(p.disabled, NOT t.enabled_by_default)`,
      [rows.map((r) => r.user_id), rows.map((r) => r.template_id)],
    );
    return new Set(result.map((r) => `${r.user_id}:${r.template_id}`));
  }

  private async deliver(row: LeasedRow, disabled: Set<string>): Promise<void> {
    if (disabled.has(`${row.user_id}:${row.template_id}`)) {
      await this.finish(row, 'inhibited', 'disabled by user', false);
      return;
    }
    const template = await this.templates.find(row.template_id);
    let rendered: RenderedMessage;
    try {
      if (!template) throw new Error(`template ${row.template_id} not found`);
      rendered = this.render(row, template);
    } catch (error) {
      await this.fail(row, new SendError(`render: ${error instanceof Error ? error.message : String(error)}`, false));
      return;
    }
    try {
      switch (row.method) {
        case 'smtp':
          await this.smtp.send(rendered);
          break;
        case 'webhook':
          await this.webhook.send(rendered);
          break;
        case 'inbox':
          await this.toInbox(row, rendered, template!);
          return; // marked sent inside its transaction
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
    const context = templateContext(row.payload, baseUrlOf(this.config));
    const titleMarkdown = renderTemplate(template.titleTemplate, context);
    const bodyMarkdown = renderTemplate(template.bodyTemplate, context);
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
   * The inbox item and the `sent` mark in one statement (atomic, one round trip); the item id is the
   * message id, so a redelivery after a crash never creates a second item.
   */
  private async toInbox(row: LeasedRow, message: RenderedMessage, template: NotificationTemplate): Promise<void> {
    const icon = template.icon || fallbackIcon(template.id);
    const actions = row.payload.actions ?? [];
    const result: { created_at: Date | null }[] = await this.dataSource.query(
      `WITH created AS (
         INSERT INTO inbox_notifications (id, user_id, template_id, targets, title, content, icon, actions, created_at)
         VALUES ($1, $2, $3, $4::uuid[], $5, $6, $7, $8::jsonb, now())
         ON CONFLICT (id) DO NOTHING RETURNING id, created_at
       ), marked AS (
         UPDATE notification_messages
            SET status = 'sent', attempt_count = attempt_count + 1, updated_at = now(), leased_until = NULL,
                leased_by = NULL, next_retry_after = NULL, status_reason = NULL
          WHERE id = $1 AND leased_by = $9
          RETURNING id
       )
       SELECT (SELECT created_at FROM created) AS created_at, (SELECT count(*) FROM marked) AS marked`,
      [
        row.id,
        row.user_id,
        row.template_id,
        row.targets ?? [],
        message.titleMarkdown,
        message.bodyMarkdown,
        icon,
        JSON.stringify(actions),
        this.dispatcherId,
      ],
    );
    const createdAt = result[0]?.created_at;
    if (!createdAt) return; // delivered before (redelivery after a lost lease)
    await this.inbox.announce({
      id: row.id,
      user_id: row.payload.user_id,
      template_id: row.template_id,
      targets: row.targets ?? [],
      title: message.titleMarkdown,
      content: message.bodyMarkdown,
      icon,
      actions,
      read_at: null,
      created_at: new Date(createdAt).toISOString(),
    });
  }

  private async fail(row: LeasedRow, error: SendError): Promise<void> {
    const attempts = row.attempt_count + 1;
    if (error.retryable && attempts < this.settings.maxSendAttempts) {
      const base = this.settings.retryIntervalMs * 2 ** (attempts - 1);
      const delay = Math.min(base, this.settings.retryMaxMs) * (0.9 + Math.random() * 0.2);
      await this.dataSource.query(
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
    this.logger.warn({ messageId: row.id, method: row.method, reason: error.message }, 'notification permanently failed');
    await this.finish(row, 'permanent_failure', error.message, true);
  }

  private async finish(row: LeasedRow, status: MessageStatus, reason: string | null, attempted: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE notification_messages
          SET status = $3, attempt_count = attempt_count + $5, updated_at = now(), leased_until = NULL,
              leased_by = NULL, next_retry_after = NULL, status_reason = $4
        WHERE id = $1 AND leased_by = $2`,
      [row.id, this.dispatcherId, status, reason, attempted ? 1 : 0],
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
