import { Inject, Injectable, Optional } from '@nestjs/common';
import { MetricsService } from '../../../platform/metrics/metrics.service';
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import {
  guardedLookup,
  isPrivateHost,
  PrivateAddressError,
  type Resolver,
  systemResolver,
} from '../../../platform/net/private-address';
import { redactUrlIn } from '../../../platform/net/safe-url';
import { WORKFLOWS_CONFIG, type WorkflowsConfig } from '../workflows.config';

export interface WebhookJob {
  url: string;
  secret?: string;
  /** The JSON body, or its exact serialisation (what the signature covers). */
  body: unknown;
}

export interface WebhookAttemptResult {
  delivered: boolean;
  attempts: number;
  status?: number;
  error?: string;
  /** A later attempt may succeed (network error, timeout, 5xx, 429); false for other 4xx and refused addresses. */
  retryable?: boolean;
}

/**
 * POSTs one rule event to a webhook URL: a timeout per attempt covering the whole exchange, no
 * redirects, `X-Devplane-Signature` (HMAC-SHA256 of the body) with a secret, and
 * `X-Devplane-Delivery` (the same id on every attempt of one delivery, so receivers can drop
 * repeats). Private, loopback and other non-unicast addresses are refused (literal hosts before
 * connecting, names at connect time: the platform's private-address check) unless
 * WORKFLOW_WEBHOOK_ALLOW_PRIVATE is set. Durable delivery and retries across restarts are the
 * job queue's (WebhookDeliveries); `deliver()` retries in process, for direct callers.
 */
@Injectable()
export class WebhookSender {
  constructor(
    @Inject(WORKFLOWS_CONFIG) private readonly config: WorkflowsConfig,
    @Optional() private readonly metrics?: MetricsService,
  ) {}

  /** DNS resolution (replaceable in tests to prove the connect-time refusal). */
  resolve: Resolver = systemResolver;

  private readonly lookup = guardedLookup({ allowPrivate: false, resolve: () => this.resolve });
  private readonly openLookup = guardedLookup({ allowPrivate: true, resolve: () => this.resolve });

  /** All attempts in process (first + WORKFLOW_WEBHOOK_RETRIES, exponential backoff). */
  async deliver(job: WebhookJob, deliveryId: string = randomUUID()): Promise<WebhookAttemptResult> {
    let last: WebhookAttemptResult = { delivered: false, attempts: 0 };
    for (let attempt = 0; attempt <= this.config.webhookRetries; attempt++) {
      if (attempt > 0)
        await new Promise((resolve) =>
          setTimeout(resolve, this.config.webhookBackoffMs * 2 ** (attempt - 1)),
        );
      const { retryable, ...result } = await this.attempt(job, deliveryId);
      last = { ...result, attempts: result.attempts === 0 ? 0 : attempt + 1 };
      if (result.delivered || !retryable) return last;
    }
    return last;
  }

  /** One attempt. `attempts` is 0 when nothing was sent (invalid URL, private literal address). */
  async attempt(job: WebhookJob, deliveryId: string, signal?: AbortSignal): Promise<WebhookAttemptResult> {
    const result = await this.attemptOnce(job, deliveryId, signal);
    this.metrics?.webhookDelivery('workflow', result.delivered ? 'success' : 'failure');
    return result;
  }

  private async attemptOnce(
    job: WebhookJob,
    deliveryId: string,
    signal?: AbortSignal,
  ): Promise<WebhookAttemptResult> {
    const payload = typeof job.body === 'string' ? job.body : JSON.stringify(job.body);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': 'devplane-workflows/1',
      'Content-Length': String(Buffer.byteLength(payload)),
      'X-Devplane-Delivery': deliveryId,
    };
    if (job.secret)
      headers['X-Devplane-Signature'] =
        `sha256=${createHmac('sha256', job.secret).update(payload).digest('hex')}`;
    let url: URL;
    try {
      url = new URL(job.url);
    } catch {
      return { delivered: false, attempts: 0, error: 'invalid URL', retryable: false };
    }
    if (!this.config.webhookAllowPrivate && isPrivateHost(url.hostname)) {
      return { delivered: false, attempts: 0, error: 'private address refused', retryable: false };
    }
    try {
      const status = await this.post(url, headers, payload, signal);
      const delivered = status >= 200 && status < 300;
      return { delivered, attempts: 1, status, retryable: !delivered && (status >= 500 || status === 429) };
    } catch (error) {
      // Node's errors name the host at most; the URL (user info, query) is redacted anyway.
      const message = redactUrlIn((error as Error).message, job.url);
      return {
        delivered: false,
        attempts: 1,
        error: message,
        retryable: !(error instanceof PrivateAddressError),
      };
    }
  }

  /** One POST. The timeout covers the whole attempt (connect, headers, body): a receiver that trickles bytes cannot hold it. */
  private post(
    url: URL,
    headers: Record<string, string>,
    payload: string,
    signal?: AbortSignal,
  ): Promise<number> {
    const transport = url.protocol === 'https:' ? https : http;
    const lookup = this.config.webhookAllowPrivate ? this.openLookup : this.lookup;
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | null, status = 0): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(status);
      };
      const req = transport.request(url, { method: 'POST', headers, lookup }, (res) => {
        res.resume();
        res.on('end', () => finish(null, res.statusCode ?? 0));
        res.on('error', (error) => finish(error));
        res.on('close', () => finish(new Error('connection closed before the response ended')));
      });
      const onAbort = (): void => {
        finish(new Error('aborted'));
        req.destroy();
      };
      // Created after the request, so a request that throws leaves no timer behind.
      const timer = setTimeout(() => {
        finish(new Error('timeout'));
        req.destroy();
      }, this.config.webhookTimeoutMs);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error) => finish(error));
      req.end(payload);
    });
  }
}
