import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { JobQueue, type JobContext } from '../../../platform/jobs/job-queue.service';
import { PermanentJobError } from '../../../platform/jobs/permanent-job-error';
import { safeUrl } from '../../../platform/net/safe-url';
import { WORKFLOWS_CONFIG, type WorkflowsConfig } from '../workflows.config';
import { WebhookSender } from './webhook-sender.service';

export const WEBHOOK_JOB_TYPE = 'workflows.webhook';

/** The job's payload: the body is stored serialised, so every attempt sends (and signs) the same bytes. */
export interface WebhookJobPayload {
  url: string;
  secret?: string;
  body: string;
}

/**
 * Webhook deliveries as durable jobs (`workflows.webhook` in the `jobs` table): one job per
 * matched rule and event, one HTTP attempt per run. Attempts = 1 + WORKFLOW_WEBHOOK_RETRIES,
 * backoff WORKFLOW_WEBHOOK_BACKOFF_MS doubled per retry; 4xx (except 429) and refused addresses
 * fail at once. The job id is the `X-Devplane-Delivery` header: the same on every attempt, also
 * after a restart. A job recorded as succeeded is never sent again.
 */
@Injectable()
export class WebhookDeliveries implements OnModuleInit {
  private readonly logger = new Logger(WebhookDeliveries.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly sender: WebhookSender,
    @Inject(WORKFLOWS_CONFIG) private readonly config: WorkflowsConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register<WebhookJobPayload>(WEBHOOK_JOB_TYPE, (job) => this.run(job), {
      maxAttempts: this.config.webhookRetries + 1,
      backoffMs: this.config.webhookBackoffMs,
      maxBackoffMs: 3_600_000,
      // One attempt per run, bounded by its timeout; the margin covers recording the outcome. A job
      // whose worker died is taken over once this lease has expired.
      leaseMs: this.config.webhookTimeoutMs * 2 + 5_000,
    });
  }

  /** Adds a delivery with the caller's EntityManager (inside its transaction: commits or rolls back with it). */
  enqueue(
    manager: EntityManager,
    delivery: { url: string; secret?: string; body: unknown },
  ): Promise<string | null> {
    const payload: WebhookJobPayload = { url: delivery.url, body: JSON.stringify(delivery.body) };
    if (delivery.secret) payload.secret = delivery.secret;
    return this.jobs.enqueue(manager, WEBHOOK_JOB_TYPE, payload);
  }

  private async run(job: JobContext<WebhookJobPayload>): Promise<void> {
    const result = await this.sender.attempt(job.payload, job.id, job.signal);
    if (result.delivered) return;
    const reason = result.error ?? `HTTP ${result.status}`;
    if (!result.retryable || job.attempt >= job.maxAttempts) {
      this.logger.warn(
        {
          url: safeUrl(job.payload.url),
          deliveryId: job.id,
          attempts: job.attempt,
          status: result.status,
          error: result.error,
        },
        'webhook delivery failed',
      );
    }
    if (!result.retryable) throw new PermanentJobError(reason);
    throw new Error(reason);
  }
}
