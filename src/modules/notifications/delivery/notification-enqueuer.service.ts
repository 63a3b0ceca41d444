import { IdentityDirectory } from '../../identity/identity-directory.service';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import type { Transaction } from '../../../platform/database/transaction-runner.service';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import { GroupCommit } from '../../../platform/database/group-commit';
import type { NotificationMethod, NotificationTemplate } from '../entities/notification-template.entity';
import { NotificationTemplatesService } from '../notification-templates.service';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../notifications.config';
import { renderTemplate } from '../rendering/go-template';
import { fallbackIcon, NOTIFICATION_TEMPLATE_IDS } from '../template-ids';
import { DispatchWaker } from './dispatch-waker';
import { NotificationMessagesRepository } from './notification-messages.repository';
import { wellFormed } from '../../../platform/text/well-formed';
import { dedupeHash, escapeLabels, type MessagePayload, renderMarkdown, templateContext } from './payload';
import { type InboxNotificationView, InboxService } from '../inbox/inbox.service';
import { NotificationSettingsService, SETTINGS_KEY } from '../notification-settings.service';

export interface EnqueueRequest {
  templateId: string;
  /** Numeric id of the recipient. */
  userId: string;
  /** The recipient when the caller already holds it (saves a lookup); must be the user of `userId`. */
  recipient?: Recipient;
  labels?: Record<string, string>;
  data?: Record<string, unknown> | null;
  targets?: string[];
  createdBy: string;
}

/** What a message needs of its recipient (an individual user). */
export interface Recipient {
  id: string;
  uuid: string;
  email: string;
  name: string;
  fullName: string;
}

/** One row of `notification_messages` before it is written. */
interface QueueRow {
  id: string;
  templateId: string;
  userId: string;
  method: NotificationMethod;
  createdBy: string;
  payload: string;
  /** PostgreSQL array literal of the target uuids. */
  targets: string;
  dedupeHash: string;
  enabledByDefault: boolean;
  /** An inbox row's item, rendered; delivered in the same statement unless notifications are paused. */
  inboxItem: InboxNotificationView | null;
}

/** What one request's rows became. */
interface Written {
  ids: string[];
  /** Inbox items written with the messages, to announce to watchers once committed. */
  delivered: { notification: InboxNotificationView; unreadBefore: number }[];
  /** Rows left for the dispatcher (e-mail, webhook, or everything while paused). */
  pending: boolean;
}

export const ENQUEUED_TOPIC = 'notifications.enqueued';

/** Public base URL without the trailing slash (`{{ base_url }}`). */
export function baseUrlOf(config: AppConfig): string {
  return config.publicUrl.replace(/\/+$/, '');
}

/**
 * Turns a request into queue rows, one per delivery method. Drops (returns []) when the user
 * disabled the template; duplicates of the same day are dropped by the unique dedupe hash.
 */
@Injectable()
export class NotificationEnqueuer {
  private readonly logger = new Logger(NotificationEnqueuer.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NOTIFICATIONS_CONFIG) private readonly settings: NotificationsConfig,
    private readonly templates: NotificationTemplatesService,
    private readonly waker: DispatchWaker,
    private readonly cluster: ClusterBus,
    private readonly inbox: InboxService,
    private readonly messages: NotificationMessagesRepository,
    private readonly directory: IdentityDirectory,
  ) {}

  /** The configured default method (NOTIFICATIONS_METHOD), whether or not its transport is set. */
  configuredDefault(): NotificationMethod {
    return this.config.notifications.method;
  }

  /** Methods the deployment can deliver by default (the transport must be configured). */
  defaultMethod(): NotificationMethod | undefined {
    const method = this.config.notifications.method;
    if (method === 'smtp' && this.config.smtp.url) return 'smtp';
    if (method === 'webhook' && this.config.notifications.webhookUrl) return 'webhook';
    return undefined;
  }

  /**
   * Writes the rows of one request (one per method: e-mail or webhook, inbox) atomically: in the
   * caller's transaction, or in one statement of its own shared with concurrent requests (issue 11.8:
   * never an e-mail row without its inbox row; issue 10 item 14: one round trip for many requests).
   */
  async enqueue(request: EnqueueRequest, tx?: Transaction): Promise<string[]> {
    const manager = tx?.manager;
    const rows = await this.prepare(request, manager);
    if (rows.length === 0) return [];
    const written = tx ? (await this.write([rows], manager))[0]! : await this.groupCommit.submit(rows);
    const after = () => {
      if (written.delivered.length > 0) this.inbox.announceWritten(written.delivered);
      if (written.pending) this.wake();
    };
    if (tx) tx.afterCommit(after);
    else after();
    return written.ids;
  }

  /**
   * Requests enqueued outside a transaction: each a single statement, so they may share one. Two
   * statements may run at once (a request arriving during a write does not wait for its commit), but
   * never two for the same recipient: each statement computes its recipients' unread counts, which
   * must include their earlier items.
   */
  private readonly groupCommit = new GroupCommit<QueueRow[], Written>(
    (requests) => this.write(requests, undefined),
    { concurrency: 2, key: (rows) => rows[0]?.userId ?? '' },
  );

  /**
   * Wakes this instance's dispatcher at once and the others through the cluster bus. Cluster
   * wake-ups are coalesced: at most one NOTIFY in flight, plus one more if enqueues happened meanwhile.
   */
  wake(): void {
    this.waker.wake();
    if (this.clusterWake === 'idle') void this.publishWake();
    else this.clusterWake = 'again';
  }

  private clusterWake: 'idle' | 'busy' | 'again' = 'idle';

  private async publishWake(): Promise<void> {
    this.clusterWake = 'busy';
    try {
      await this.cluster.publish(ENQUEUED_TOPIC, {});
    } catch (error) {
      this.logger.warn({ err: error }, 'wake publish failed');
    }
    const again = (this.clusterWake as string) === 'again'; // changed by wake() while publishing
    this.clusterWake = 'idle';
    if (again) void this.publishWake();
  }

  /** The queue rows of one request, one per delivery method; none for an unknown recipient. */
  private async prepare(request: EnqueueRequest, manager: EntityManager | undefined): Promise<QueueRow[]> {
    const template = await this.templates.find(request.templateId, manager);
    if (!template) throw new Error(`unknown notification template ${request.templateId}`);
    const user = request.recipient ?? (await this.findRecipient(request.userId, manager));
    if (!user) {
      this.logger.warn(
        { userId: request.userId, templateId: request.templateId },
        'notification for an unknown user dropped',
      );
      return [];
    }

    const targets = (request.targets ?? []).map((target) => target.toLowerCase());
    const payload: MessagePayload = {
      _version: '1.2',
      notification_name: template.name,
      notification_template_id: template.id,
      user_id: user.uuid,
      user_email: user.email,
      user_name: user.fullName || user.name,
      user_username: user.name,
      actions: [],
      labels: escapeLabels(request.labels ?? {}),
      data: request.data ? wellFormed(request.data) : null,
      targets: targets.length > 0 ? targets : null,
    };
    const context = templateContext(payload, baseUrlOf(this.config));
    payload.actions = template.actions.map((action) => ({
      label: renderTemplate(action.label, context),
      url: renderTemplate(action.url, context),
    }));

    const methods: NotificationMethod[] = [];
    const primary = template.method ?? this.defaultMethod();
    if (primary) methods.push(primary);
    if (
      this.settings.inboxEnabled &&
      template.toInbox &&
      template.id !== NOTIFICATION_TEMPLATE_IDS.oneTimePasscode &&
      !methods.includes('inbox')
    ) {
      methods.push('inbox');
    }
    const rowsFor = methods.filter((method) => method !== 'smtp' || user.email !== '');
    const now = new Date();
    const payloadJson = JSON.stringify(payload);
    return rowsFor.map((method) => {
      const id = randomUUID();
      return {
        id,
        templateId: template.id,
        userId: user.id,
        method,
        createdBy: request.createdBy,
        payload: payloadJson,
        targets: arrayLiteral(targets),
        dedupeHash: dedupeHash(template.id, user.uuid, method, payload, targets, now),
        enabledByDefault: template.enabledByDefault,
        inboxItem: method === 'inbox' ? this.inboxItem(id, payload, template, targets) : null,
      };
    });
  }

  /**
   * The inbox item of a message, rendered now so the row can be written with the message (no
   * dispatcher round between a POST and the watchers' frame). A template that does not render is
   * left to the dispatcher, which records the failure.
   */
  private inboxItem(
    id: string,
    payload: MessagePayload,
    template: NotificationTemplate,
    targets: string[],
  ): InboxNotificationView | null {
    try {
      const { titleMarkdown, bodyMarkdown } = renderMarkdown(payload, template, baseUrlOf(this.config));
      return {
        id,
        user_id: payload.user_id,
        template_id: template.id,
        targets,
        title: titleMarkdown,
        content: bodyMarkdown,
        icon: template.icon || fallbackIcon(template.id),
        actions: payload.actions,
        read_at: null,
        created_at: '',
      };
    } catch {
      return null;
    }
  }

  /**
   * Inserts the rows of several requests in one statement, with the inbox items of inbox rows
   * (unless notifications are paused: then every row waits for the dispatcher). Rows are skipped
   * when the user turned the template off (or left a default-off template off) and for a duplicate
   * of the same day (the unique dedupe hash).
   */
  private async write(requests: QueueRow[][], manager: EntityManager | undefined): Promise<Written[]> {
    const rows = requests.flat();
    const result = await this.messages.insertQueued(manager, rows, {
      key: SETTINGS_KEY,
      pausedValue: NotificationSettingsService.canonical(true),
    });
    const byId = new Map(result.map((row) => [row.id, row]));
    // unread_before is each recipient's count before the statement: a recipient's items from earlier
    // requests of the same statement count too.
    const earlierInStatement = new Map<string, number>();
    return requests.map((request) => {
      const written: Written = { ids: [], delivered: [], pending: false };
      for (const row of request) {
        const outcome = byId.get(row.id);
        if (!outcome) continue;
        written.ids.push(row.id);
        if (outcome.status !== 'sent') written.pending = true;
        else if (outcome.created_at && row.inboxItem) {
          const earlier = earlierInStatement.get(row.userId) ?? 0;
          earlierInStatement.set(row.userId, earlier + 1);
          written.delivered.push({
            notification: { ...row.inboxItem, created_at: new Date(outcome.created_at).toISOString() },
            unreadBefore: Number(outcome.unread_before) + earlier,
          });
        }
      }
      return written;
    });
  }

  private async findRecipient(
    userId: string,
    manager: EntityManager | undefined,
  ): Promise<Recipient | undefined> {
    return this.directory.contactOf(userId, manager);
  }
}

/** A PostgreSQL array literal (`{"a","b"}`): unnest cannot take an array of arrays of differing lengths. */
function arrayLiteral(values: string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}
