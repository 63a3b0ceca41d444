import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import type { Transaction } from '../../../platform/database/transaction-runner.service';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import type { NotificationMethod } from '../entities/notification-template.entity';
import { NotificationTemplatesService } from '../notification-templates.service';
import { NOTIFICATIONS_CONFIG, type NotificationsConfig } from '../notifications.config';
import { renderTemplate } from '../rendering/go-template';
import { NOTIFICATION_TEMPLATE_IDS } from '../template-ids';
import { DispatchWaker } from './dispatch-waker';
import { wellFormed } from '../../../platform/text/well-formed';
import { dedupeHash, escapeLabels, type MessagePayload, templateContext } from './payload';

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
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NOTIFICATIONS_CONFIG) private readonly settings: NotificationsConfig,
    private readonly templates: NotificationTemplatesService,
    private readonly waker: DispatchWaker,
    private readonly cluster: ClusterBus,
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
   * caller's transaction, or in one of its own (issue 11.8: never an e-mail row without its inbox row).
   */
  async enqueue(request: EnqueueRequest, tx?: Transaction): Promise<string[]> {
    // One multi-row INSERT is atomic on its own, so outside a caller's transaction no BEGIN/COMMIT
    // is needed: two round trips hold a pooled connection instead of six (issue 10 item 14).
    const ids = await this.insert(request, tx?.manager ?? this.dataSource.manager);
    if (ids.length > 0) {
      const wake = () => this.wake();
      if (tx) tx.afterCommit(wake);
      else wake();
    }
    return ids;
  }

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

  private async insert(request: EnqueueRequest, manager: EntityManager): Promise<string[]> {
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
    if (rowsFor.length === 0) return [];
    const now = new Date();
    const payloadJson = JSON.stringify(payload);
    // Every method's row in one statement: never an e-mail row without its inbox row (issue 11.8).
    // None when the user turned the template off (or left a default-off template off).
    const rows: { id: string }[] = await manager.query(
      `INSERT INTO notification_messages (id, template_id, user_id, method, status, created_by, payload, targets, dedupe_hash, created_at, updated_at)
       SELECT m.id, $1, $2, m.method, 'pending', $3, $4::jsonb, $5::uuid[], m.dedupe_hash, now(), now()
         FROM unnest($6::uuid[], $7::text[], $8::text[]) AS m(id, method, dedupe_hash)
        WHERE NOT COALESCE(
          (SELECT disabled FROM notification_preferences WHERE user_id = $2 AND template_id = $1), NOT $9::boolean)
       ON CONFLICT (dedupe_hash) DO NOTHING RETURNING id`,
      [
        template.id,
        user.id,
        request.createdBy,
        payloadJson,
        targets,
        rowsFor.map(() => randomUUID()),
        rowsFor,
        rowsFor.map((method) => dedupeHash(template.id, user.uuid, method, payload, targets, now)),
        template.enabledByDefault,
      ],
    );
    return rows.map((row) => row.id);
  }

  private async findRecipient(userId: string, manager: EntityManager): Promise<Recipient | undefined> {
    const rows: { id: string; uuid: string; email: string; name: string; full_name: string }[] =
      await manager.query(
        `SELECT id, uuid, email, name, full_name FROM users WHERE id = $1 AND type = 'individual'`,
        [userId],
      );
    const row = rows[0];
    return (
      row && { id: String(row.id), uuid: row.uuid, email: row.email, name: row.name, fullName: row.full_name }
    );
  }
}
