import { MetricsService } from '../../../platform/metrics/metrics.service';
import { Inject, Injectable, Logger, type OnModuleInit, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import { type JobContext, JobQueue } from '../../../platform/jobs/job-queue.service';
import { PermanentJobError } from '../../../platform/jobs/permanent-job-error';
import { type AllowedHostList, parseAllowedHostList } from '../../../platform/net/allowed-host-list';
import type { Resolver } from '../../../platform/net/private-address';
import { safeUrl } from '../../../platform/net/safe-url';
import type { Repository } from '../entities/repository.entity';
import { compileBranchFilter } from './branch-filter';
import { DELIVERED_HOOK_TYPES, type HookEventType, hookWants } from './webhook-events';
import { sendHook } from './webhook-sender';
import type { Webhook } from './webhook.entity';
import { WEBHOOKS_CONFIG, type WebhooksConfig } from './webhooks.config';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

export const WEBHOOK_DELIVERY_JOB = 'repositories.webhook-delivery';

/** What one event asks to deliver. */
export interface HookEvent {
  type: HookEventType;
  /** The event's idempotency key (one delivery per hook and key). */
  key: string;
  /** For push, create and delete: the branch the hook's `branch_filter` is matched against. */
  branch?: string;
  /** Built only when at least one hook takes the event. */
  payload: () => Promise<object | null>;
}

/**
 * Queues and sends deliveries (Gitea's PrepareWebhooks and Deliver). `queue` finds the active hooks
 * of the repository and of its owner that take the event (type, branch filter), builds the payload
 * once and, in ONE transaction, inserts a delivery row per hook (unique per hook and event key: a
 * repeated event queues nothing) and a durable `repositories.webhook-delivery` job for each. The job
 * signs and posts it; a failure (network, non-2xx) is retried with backoff up to WEBHOOK_MAX_ATTEMPTS,
 * each attempt recorded on the row; an address the allowed-host list refuses fails at once.
 */
@Injectable()
export class WebhookDeliveries implements OnModuleInit {
  private readonly logger = new Logger(WebhookDeliveries.name);
  private readonly list: AllowedHostList;
  /** DNS resolution (replaceable in tests to prove the connect-time check). */
  resolve?: Resolver;

  constructor(
    private readonly rows: WebhooksRepository,
    private readonly hooks: WebhooksService,
    private readonly jobs: JobQueue,
    private readonly transactions: TransactionRunner,
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksConfig,
    @Optional() private readonly metrics?: MetricsService,
  ) {
    this.list = parseAllowedHostList(config.allowedHostList);
  }

  onModuleInit(): void {
    this.jobs.register<{ deliveryId: string }>(WEBHOOK_DELIVERY_JOB, (job) => this.deliver(job), {
      maxAttempts: this.config.maxAttempts,
      backoffMs: this.config.retryBackoffMs,
      maxBackoffMs: 3_600_000,
      leaseMs: this.config.deliverTimeoutSeconds * 1000 + 30_000,
    });
  }

  private takes(hook: Webhook, event: HookEvent): boolean {
    if (!DELIVERED_HOOK_TYPES.includes(hook.type) || !hookWants(hook.events, event.type)) return false;
    if (event.branch === undefined) return true;
    return compileBranchFilter(hook.branchFilter)?.(event.branch) ?? false;
  }

  /** Queues the deliveries of one event of `repo` (with its owner); the number queued. */
  async queue(repo: Repository, event: HookEvent): Promise<number> {
    const hooks = (await this.rows.activeFor(repo.id, repo.ownerId)).filter((hook) =>
      this.takes(hook, event),
    );
    return this.queueTo(hooks, event);
  }

  /** Queues one event to the given hooks (the test route: one hook). */
  async queueTo(hooks: Webhook[], event: HookEvent): Promise<number> {
    if (hooks.length === 0) return 0;
    const payload = await event.payload();
    if (!payload) return 0;
    const body = JSON.stringify(payload, null, 2);
    return this.transactions.run(async (tx) => {
      let queued = 0;
      for (const hook of hooks) {
        const id = await this.rows.insertDelivery(tx.manager, {
          hookId: hook.id,
          uuid: randomUUID(),
          eventKey: `${event.key}:${event.type}`,
          eventType: event.type,
          payload: body,
          status: 'pending',
        });
        if (id === null) continue; // already queued for this key
        await this.jobs.enqueue(tx.manager, WEBHOOK_DELIVERY_JOB, { deliveryId: id });
        queued++;
      }
      return queued;
    });
  }

  /** The job: one attempt; throws to be retried. */
  private async deliver(job: JobContext<{ deliveryId: string }>): Promise<void> {
    const delivery = await this.rows.findDelivery(job.payload.deliveryId);
    if (!delivery || delivery.status === 'delivered' || delivery.status === 'failed') return;
    const hook = delivery.hook;
    if (!hook.active) {
      await this.rows.recordAttempt(delivery.id, {
        status: 'skipped',
        attempts: delivery.attempts,
        responseStatus: null,
        responseBody: 'the hook is not active',
      });
      return;
    }
    const { secret, authorization } = this.hooks.secretsOf(hook);
    const response = await sendHook(
      {
        url: hook.url,
        contentType: hook.contentType,
        secret,
        authorization,
        uuid: delivery.uuid,
        eventType: delivery.eventType as HookEventType,
        payload: delivery.payload,
      },
      {
        list: this.list,
        timeoutMs: this.config.deliverTimeoutSeconds * 1000,
        resolve: this.resolve ? () => this.resolve! : undefined,
        signal: job.signal,
      },
    );
    const succeeded = response.status !== null && response.status >= 200 && response.status < 300;
    this.metrics?.webhookDelivery('repository', succeeded ? 'success' : 'failure');
    const last = response.permanent || job.attempt >= job.maxAttempts;
    await this.rows.recordAttempt(delivery.id, {
      status: succeeded ? 'delivered' : last ? 'failed' : 'pending',
      attempts: delivery.attempts + 1,
      responseStatus: response.status,
      responseBody: response.body,
    });
    if (succeeded || last) await this.rows.setLastStatus(hook.id, succeeded ? 'succeed' : 'fail');
    if (succeeded) return;
    const reason = `webhook ${hook.id} to ${safeUrl(hook.url)}: ${response.status ?? response.body}`;
    this.logger.warn(
      { deliveryId: delivery.id, hookId: hook.id, attempt: job.attempt },
      `delivery failed: ${reason}`,
    );
    if (response.permanent) throw new PermanentJobError(reason);
    throw new Error(reason);
  }
}
