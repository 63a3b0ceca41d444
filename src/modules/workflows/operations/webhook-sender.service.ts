import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateHost, isPublicAddress } from '../workflow-registry';
import { WORKFLOWS_CONFIG, type WorkflowsConfig } from '../workflows.config';

export interface WebhookJob {
  url: string;
  secret?: string;
  body: unknown;
}

export interface WebhookAttemptResult {
  delivered: boolean;
  attempts: number;
  status?: number;
  error?: string;
}

const CONCURRENCY = 4;
const QUEUE_LIMIT = 10_000;

class PrivateAddressError extends Error {
  code = 'EPRIVATEADDRESS';
}

/**
 * POSTs rule events to webhook URLs off the request path: a timeout per attempt, retries with
 * exponential backoff on network errors, 5xx and 429 (none on other 4xx), no redirects. Private,
 * loopback and other non-unicast addresses are refused at connect time (custom DNS lookup, safe
 * against rebinding) unless WORKFLOW_WEBHOOK_ALLOW_PRIVATE is set.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly logger = new Logger(WebhookSender.name);
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly queue: WebhookJob[] = [];
  private active = 0;
  private closing = false;

  constructor(@Inject(WORKFLOWS_CONFIG) private readonly config: WorkflowsConfig) {}

  /** Queues a delivery; at most `CONCURRENCY` run at once, the queue holds at most `QUEUE_LIMIT` (oldest dropped). */
  enqueue(job: WebhookJob): void {
    if (this.closing) return;
    if (this.queue.length >= QUEUE_LIMIT) {
      const dropped = this.queue.shift()!;
      this.logger.warn({ url: dropped.url }, 'webhook queue full: dropped the oldest delivery');
    }
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.active < CONCURRENCY && this.queue.length > 0) {
      const job = this.queue.shift()!;
      this.active++;
      const promise = this.deliver(job)
        .then((result) => {
          if (!result.delivered) this.logger.warn({ url: job.url, ...result }, 'webhook delivery failed');
        })
        .catch((error: unknown) => this.logger.error({ err: error, url: job.url }, 'webhook delivery crashed'))
        .finally(() => {
          this.active--;
          this.inFlight.delete(promise);
          this.pump();
        });
      this.inFlight.add(promise);
    }
  }

  /** Waits until the queue is empty and every delivery finished (tests, shutdown). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0 || this.queue.length > 0) {
      if (this.inFlight.size === 0) this.pump();
      await Promise.allSettled([...this.inFlight]);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    await this.drain();
  }

  async deliver(job: WebhookJob): Promise<WebhookAttemptResult> {
    const payload = JSON.stringify(job.body);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': 'devplane-workflows/1',
      'Content-Length': String(Buffer.byteLength(payload)),
    };
    if (job.secret) headers['X-Devplane-Signature'] = `sha256=${createHmac('sha256', job.secret).update(payload).digest('hex')}`;
    let url: URL;
    try {
      url = new URL(job.url);
    } catch {
      return { delivered: false, attempts: 0, error: 'invalid URL' };
    }
    if (!this.config.webhookAllowPrivate && isPrivateHost(url.hostname)) {
      return { delivered: false, attempts: 0, error: 'private address refused' };
    }
    let last: WebhookAttemptResult = { delivered: false, attempts: 0 };
    for (let attempt = 0; attempt <= this.config.webhookRetries; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, this.config.webhookBackoffMs * 2 ** (attempt - 1)));
      try {
        const status = await this.post(url, headers, payload);
        last = { delivered: status >= 200 && status < 300, attempts: attempt + 1, status };
        if (last.delivered) return last;
        if (status < 500 && status !== 429) return last;
      } catch (error) {
        last = { delivered: false, attempts: attempt + 1, error: (error as Error).message };
        if (error instanceof PrivateAddressError) return last;
      }
    }
    return last;
  }

  /** DNS resolution (replaceable in tests to prove the connect-time refusal). */
  resolve: (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void = (hostname, callback) =>
    dnsLookup(hostname, { all: true }, callback);

  private readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname, (error, addresses) => {
      if (!error && options.family) addresses = addresses.filter((a) => a.family === options.family);
      if (error) return callback(error, '', 0);
      const allowed = this.config.webhookAllowPrivate ? addresses : addresses.filter((a) => isPublicAddress(a.address));
      if (allowed.length === 0) return callback(new PrivateAddressError(`${hostname} resolves to a private address`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };

  /** One attempt. The timeout covers the whole attempt (connect, headers, body): a receiver that trickles bytes cannot hold it. */
  private post(url: URL, headers: Record<string, string>, payload: string): Promise<number> {
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | null, status = 0): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(status);
      };
      const req = transport.request(url, { method: 'POST', headers, lookup: this.lookup }, (res) => {
        res.resume();
        res.on('end', () => finish(null, res.statusCode ?? 0));
        res.on('error', (error) => finish(error));
        res.on('close', () => finish(new Error('connection closed before the response ended')));
      });
      // Created after the request, so a request that throws leaves no timer behind.
      const timer = setTimeout(() => {
        finish(new Error('timeout'));
        req.destroy();
      }, this.config.webhookTimeoutMs);
      req.on('error', (error) => finish(error));
      req.end(payload);
    });
  }
}
