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
      try {
        const envelope = JSON.parse(message.payload) as Envelope;
        if (envelope.origin !== this.instanceId) this.deliver(envelope.topic, envelope.payload);
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
    await this.listener?.end().catch(() => undefined);
    await this.publisher?.end().catch(() => undefined);
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
    const envelope: Envelope = { origin: this.instanceId, topic, payload };
    await this.publisher.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(envelope)]);
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
