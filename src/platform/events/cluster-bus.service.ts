import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DATABASE_RUNTIME, type DatabaseRuntime } from '../database/database-runtime';

/**
 * Topics that subscribers on other instances must see (inbox items, reinit, build updates).
 * With a PostgreSQL server: LISTEN/NOTIFY on one dedicated connection. Embedded (PGlite): in
 * process only, because NOTIFY through pglite-socket is delivered to the sender.
 * Payloads must stay below PostgreSQL's 8000-byte NOTIFY limit: send ids, not documents.
 */
export type ClusterHandler = (payload: unknown) => void;

const CHANNEL = 'devplane_events';

interface Envelope {
  origin: string;
  topic: string;
  payload: unknown;
}

@Injectable()
export class ClusterBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ClusterBus.name);
  private readonly instanceId = randomUUID();
  /** How a batch this instance sent begins (see flush). */
  private readonly ownBatchPrefix = `[${JSON.stringify(this.instanceId)},`;
  private readonly handlers = new Map<string, Set<ClusterHandler>>();
  private listener: Client | undefined;
  private publisher: Client | undefined;

  constructor(@Inject(DATABASE_RUNTIME) private readonly runtime: DatabaseRuntime) {}

  get crossInstance(): boolean {
    return !this.runtime.embedded;
  }

  async onModuleInit(): Promise<void> {
    if (this.runtime.embedded) return;
    this.listener = new Client({ connectionString: this.runtime.url });
    this.listener.on('error', (error) => this.logger.error({ err: error }, 'cluster bus connection failed'));
    this.listener.on('notification', (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      // This instance's own batches come back too: skipped before parsing (they were delivered here).
      if (message.payload.startsWith(this.ownBatchPrefix)) return;
      try {
        // A batch (`[origin, [[topic, payload], ...]]`) or, from older instances, one envelope.
        const parsed = JSON.parse(message.payload) as Envelope | [string, [string, unknown][]];
        if (Array.isArray(parsed)) {
          if (parsed[0] !== this.instanceId)
            for (const [topic, payload] of parsed[1]) this.deliver(topic, payload);
        } else if (parsed.origin !== this.instanceId) this.deliver(parsed.topic, parsed.payload);
      } catch (error) {
        this.logger.warn({ err: error }, 'dropped an unreadable cluster message');
      }
    });
    await this.listener.connect();
    await this.listener.query(`LISTEN ${CHANNEL}`);
    this.publisher = new Client({ connectionString: this.runtime.url });
    await this.publisher.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    // Messages still waiting for their NOTIFY leave before the connection closes.
    await this.drained();
    await this.listener?.end().catch(() => undefined);
    await this.publisher?.end().catch(() => undefined);
  }

  /** Resolves once the outbox is empty and no NOTIFY is on its way. */
  private async drained(): Promise<void> {
    for (let rounds = 0; (this.flushing || this.outbox.length > 0) && rounds < 200; rounds++)
      await new Promise((resolve) => setTimeout(resolve, 5));
  }

  subscribe(topic: string, handler: ClusterHandler): () => void {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Delivers locally at once and to other instances through PostgreSQL. */
  async publish(topic: string, payload: unknown): Promise<void> {
    this.deliver(topic, payload);
    if (!this.publisher) return;
    const message = JSON.stringify([topic, payload]);
    return new Promise<void>((resolve, reject) => {
      this.outbox.push({ message, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /**
   * Messages of one tick leave in as few NOTIFYs as fit under PostgreSQL's payload limit: every
   * NOTIFY serializes on the server's notification queue, and one connection sends them in turn,
   * so one per write made every write wait for all the others' announcements under load.
   */
  private readonly outbox: { message: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing = false;

  private async flush(): Promise<void> {
    while (this.outbox.length > 0) {
      const batch: typeof this.outbox = [];
      let size = this.instanceId.length + 10;
      while (
        this.outbox.length > 0 &&
        (batch.length === 0 || size + this.outbox[0]!.message.length + 1 < 7_500)
      ) {
        const next = this.outbox.shift()!;
        size += next.message.length + 1;
        batch.push(next);
      }
      const text = `[${JSON.stringify(this.instanceId)},[${batch.map((entry) => entry.message).join(',')}]]`;
      try {
        await this.publisher!.query('SELECT pg_notify($1, $2)', [CHANNEL, text]);
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.flushing = false;
  }

  private deliver(topic: string, payload: unknown): void {
    for (const handler of this.handlers.get(topic) ?? []) {
      try {
        handler(payload);
      } catch (error) {
        this.logger.error({ err: error, topic }, 'cluster subscriber failed');
      }
    }
  }
}
