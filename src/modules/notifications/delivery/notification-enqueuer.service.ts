import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import type { Transaction } from '../../../platform/database/transaction-runner.service';
import { ClusterBus } from '../../../platform/events/cluster-bus.service';
import { GroupCommit } from '../../../platform/database/group-commit';
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
   * caller's transaction, or in one statement of its own shared with concurrent requests (issue 11.8:
   * never an e-mail row without its inbox row; issue 10 item 14: one round trip for many requests).
   */
  async enqueue(request: EnqueueRequest, tx?: Transaction): Promise<string[]> {
    const manager = tx?.manager ?? this.dataSource.manager;
    const rows = await this.prepare(request, manager);
    if (rows.length === 0) return [];
    const ids = tx ? (await this.write([rows], manager))[0]! : await this.groupCommit.submit(rows);
    if (ids.length > 0) {
      const wake = () => this.wake();
      if (tx) tx.afterCommit(wake);
      else wake();
    }
    return ids;
  }

  /** Requests enqueued outside a transaction: each a single statement, so they may share one. */
  private readonly groupCommit = new GroupCommit<QueueRow[], string[]>((requests) =>
    this.write(requests, this.dataSource.manager),
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
  private async prepare(request: EnqueueRequest, manager: EntityManager): Promise<QueueRow[]> {
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
    return rowsFor.map((method) => ({
      id: randomUUID(),
      templateId: template.id,
      userId: user.id,
      method,
      createdBy: request.createdBy,
      payload: payloadJson,
      targets: arrayLiteral(targets),
      dedupeHash: dedupeHash(template.id, user.uuid, method, payload, targets, now),
      enabledByDefault: template.enabledByDefault,
    }));
  }

  /**
   * Inserts the rows of several requests in one statement and answers, per request, the ids of the
   * rows written: none when the user turned the template off (or left a default-off template off),
   * none for a duplicate of the same day (the unique dedupe hash).
   */
  private async write(requests: QueueRow[][], manager: EntityManager): Promise<string[][]> {
    const rows = requests.flat();
    const column = <K extends keyof QueueRow>(key: K) => rows.map((row) => row[key]);
    const written: { id: string }[] = await manager.query(
      `INSERT INTO notification_messages (id, template_id, user_id, method, status, created_by, payload, targets, dedupe_hash, created_at, updated_at)
       SELECT m.id, m.template_id, m.user_id, m.method, 'pending', m.created_by, m.payload::jsonb, m.targets::uuid[], m.dedupe_hash, clock_timestamp(), clock_timestamp()
         FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::boolean[])
              AS m(id, template_id, user_id, method, created_by, payload, targets, dedupe_hash, enabled_by_default)
        WHERE NOT COALESCE(
          (SELECT p.disabled FROM notification_preferences p WHERE p.user_id = m.user_id AND p.template_id = m.template_id),
          NOT m.enabled_by_default)
       ON CONFLICT (dedupe_hash) DO NOTHING RETURNING id`,
      [
        column('id'),
        column('templateId'),
        column('userId'),
        column('method'),
        column('createdBy'),
        column('payload'),
        column('targets'),
        column('dedupeHash'),
        column('enabledByDefault'),
      ],
    );
    const ids = new Set(written.map((row) => row.id));
    return requests.map((request) => request.filter((row) => ids.has(row.id)).map((row) => row.id));
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

/** A PostgreSQL array literal (`{"a","b"}`): unnest cannot take an array of arrays of differing lengths. */
function arrayLiteral(values: string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}
