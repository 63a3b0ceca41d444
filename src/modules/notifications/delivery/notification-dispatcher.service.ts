import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { DATABASE_RUNTIME, type DatabaseRuntime } from '../../../platform/database/database-runtime';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import { LeaseLoop } from '../../../platform/jobs/lease-loop';
import type { MessageStatus } from '../entities/notification-message.entity';
import type { NotificationTemplate } from '../entities/notification-template.entity';
import { InboxService } from '../inbox/inbox.service';
import { NotificationSettingsService, SETTINGS_KEY } from '../notification-settings.service';
import { NotificationTemplatesService } from '../notification-templates.service';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../notifications.config';
import { markdownToPlaintext } from '../rendering/markdown';
import { fallbackIcon, NOTIFICATION_TEMPLATE_IDS } from '../template-ids';
import { DispatchWaker } from './dispatch-waker';
import { type LeasedRow, NotificationDispatchRepository } from './notification-dispatch.repository';
import { baseUrlOf, ENQUEUED_TOPIC } from './notification-enqueuer.service';
import { renderMarkdown } from './payload';
import { type RenderedMessage, SendError, SmtpSender, WebhookSender } from './senders';

interface InboxDelivery {
  row: LeasedRow;
  template: NotificationTemplate;
  message: RenderedMessage;
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
  private readonly loop = new LeaseLoop(
    async () => (await this.dispatchRound()).more,
    (error) => this.logger.error({ err: error }, 'notification dispatch round failed'),
  );
  private poller: NodeJS.Timeout | undefined;
  private housekeeper: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /**
   * The dispatcher's statements. Its own (not a shared provider): with a PostgreSQL server and a
   * pool of 4 or more it keeps one pooled connection for this dispatcher (issue 10 item 14).
   */
  private readonly messages: NotificationDispatchRepository;

  constructor(
    // Kept as a field: a second dispatcher is built from these fields in the delivery e2e test.
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
    this.messages = new NotificationDispatchRepository(
      dataSource,
      !runtime.embedded && config.databasePoolSize >= 4,
    );
  }

  onApplicationBootstrap(): void {
    this.stopped = false;
    this.messages.startReserving();
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
    this.messages.stopReserving();
    clearInterval(this.poller);
    clearInterval(this.housekeeper);
    this.unsubscribe?.();
    await this.loop.stop();
    await this.messages.releaseReserved();
    this.smtp.close();
  }

  /** Runs a dispatch round now (or right after the one in progress). */
  kick(): void {
    if (!this.stopped) this.loop.kick();
  }

  /**
   * One round: lease, render, send, record. Returns how many messages were leased. Two statements
   * for a batch of inbox messages: the lease (which also reads the pause switch and each message's
   * preference) and the inbox insert.
   */
  async round(): Promise<number> {
    return (await this.dispatchRound()).leased;
  }

  /** A round, and whether more work may be due (a full batch, or a message given back for lack of lease). */
  private async dispatchRound(): Promise<{ leased: number; more: boolean }> {
    // A send must end before the lease does, or another dispatcher could send it again.
    const leaseDeadline = Date.now() + this.settings.leasePeriodMs;
    let gaveBack = false;
    const rows = await this.messages.lease(this.dispatcherId, {
      leaseSeconds: this.settings.leasePeriodMs / 1000,
      maxAttempts: this.settings.maxSendAttempts,
      count: this.settings.leaseCount,
      pauseKey: SETTINGS_KEY,
      pausedValue: NotificationSettingsService.canonical(true),
    });
    if (rows.length === 0) return { leased: 0, more: false };
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
            gaveBack = true;
            continue;
          }
          await this.deliver(row, disabled).catch((error: unknown) =>
            this.logger.error({ err: error, messageId: row!.id }, 'recording a notification outcome failed'),
          );
        }
      },
    );
    await Promise.all(workers);
    return { leased: rows.length, more: rows.length >= this.settings.leaseCount || gaveBack };
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
    const created = await this.messages.writeInbox(
      this.dispatcherId,
      items.map((i) => ({
        id: i.row.id,
        userId: i.row.user_id,
        templateId: i.row.template_id,
        targets: i.row.targets ?? [],
        title: i.message.titleMarkdown,
        content: i.message.bodyMarkdown,
        icon: i.icon,
        actions: i.actions,
      })),
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
    await this.messages.release(this.dispatcherId, row.id);
  }

  private async fail(row: LeasedRow, error: SendError): Promise<void> {
    const attempts = row.attempt_count + 1;
    if (error.retryable && attempts < this.settings.maxSendAttempts) {
      const base = this.settings.retryIntervalMs * 2 ** (attempts - 1);
      const delay = Math.min(base, this.settings.retryMaxMs) * (0.9 + Math.random() * 0.2);
      await this.messages.retryLater(this.dispatcherId, row.id, error.message, delay / 1000);
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
    await this.messages.finish(this.dispatcherId, row.id, { status, reason, attempted, scrub });
  }

  /** Coder's retention: finished rows older than the retention period go. */
  async purge(): Promise<void> {
    if (this.stopped) return;
    await this.messages
      .purge(this.settings.retentionDays)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'notification purge failed'));
  }
}
