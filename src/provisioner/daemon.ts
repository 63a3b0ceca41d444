import { randomUUID } from 'node:crypto';
import type { Provisioner } from './builtin-provisioner';
import { type AcquiredJob, type JobLog, LeaseLostError, type ProvisionerTransport } from './protocol';

export interface DaemonOptions {
  name: string;
  /** Long-poll length of one acquire. */
  acquireWaitMs?: number;
  log?: (message: string) => void;
}

/**
 * A provisioner daemon: acquire a job, apply it with the provisioner while renewing the lease,
 * complete or fail it; repeat until stopped. A daemon that dies leaves its job to lease expiry,
 * after which another daemon picks it up.
 */
export class ProvisionerDaemon {
  readonly workerId = randomUUID();
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly transport: ProvisionerTransport,
    private readonly provisioner: Provisioner,
    private readonly options: DaemonOptions,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops acquiring and waits for the current job to finish. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private say(message: string): void {
    this.options.log?.(message);
  }

  private async loop(): Promise<void> {
    let backoff = 250;
    while (!this.stopping.signal.aborted) {
      let job: AcquiredJob | null;
      try {
        job = await this.transport.acquire(
          this.workerId,
          this.options.name,
          this.options.acquireWaitMs ?? 20_000,
          this.stopping.signal,
        );
        backoff = 250;
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        this.say(`acquire failed: ${String(error)}; retrying in ${backoff} ms`);
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, 10_000);
        continue;
      }
      if (job) await this.run(job);
    }
  }

  private async run(job: AcquiredJob): Promise<void> {
    this.say(
      `job ${job.job_id} (${job.type}${job.workspace_build ? ` ${job.workspace_build.transition}` : ''}) acquired`,
    );
    let lost = false;
    const renew = setInterval(
      () => {
        this.transport.report(this.workerId, job.job_id, []).catch((error: unknown) => {
          if (error instanceof LeaseLostError) lost = true;
        });
      },
      Math.max(100, Math.floor(job.lease_ms / 3)),
    );
    // Lines are sent in order, batched: the lines a build writes while a report is on its way go in the
    // next one (a claim build's few lines cost one or two round trips, not one each). A failed report is
    // the build's error at the next line or at the end; a long queue waits for its report (back-pressure).
    let queue: JobLog[] = [];
    let failure: unknown;
    let sending: Promise<void> | null = null;
    const send = async (): Promise<void> => {
      while (queue.length > 0 && failure === undefined) {
        const lines = queue;
        queue = [];
        try {
          await this.transport.report(this.workerId, job.job_id, lines);
        } catch (error) {
          if (error instanceof LeaseLostError) lost = true;
          failure = error;
        }
      }
    };
    const flush = async (): Promise<void> => {
      while (sending) await sending;
      if (failure !== undefined) throw failure;
    };
    const log = async (line: JobLog): Promise<void> => {
      if (lost) throw new LeaseLostError('lease lost');
      if (failure !== undefined) throw failure;
      queue.push(line);
      sending ??= send().finally(() => (sending = null));
      if (queue.length >= 100) await flush();
    };
    try {
      await this.provisioner.apply(job, log);
      await flush();
      if (lost) throw new LeaseLostError('lease lost');
      await this.transport.complete(this.workerId, job.job_id);
      this.say(`job ${job.job_id} succeeded`);
    } catch (error) {
      if (error instanceof LeaseLostError) {
        this.say(`job ${job.job_id}: lease lost, abandoned`);
      } else {
        this.say(`job ${job.job_id} failed: ${String(error)}`);
        while (sending) await sending; // the build's last lines before its failure
        await this.transport
          .fail(this.workerId, job.job_id, error instanceof Error ? error.message : String(error))
          .catch(() => undefined);
      }
    } finally {
      clearInterval(renew);
    }
  }
}
