import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ClusterBus } from '../events/cluster-bus.service';
import type { RealtimeConnection } from './realtime-connection';
import type { RealtimeSubject } from './realtime-subjects';

export type RealtimeSubscriber = (payload: unknown) => void;

/** ClusterBus topic of hub messages; payloads stay below NOTIFY's 8000 bytes (send ids, not documents). */
export const REALTIME_PUBLISH_TOPIC = 'realtime.publish';

interface HubMessage {
  subject: string;
  payload: unknown;
}

/**
 * Subscriptions per subject (typed: `realtimeSubject('inbox', userUuid)`, see realtime-subjects.ts): `publish`
 * delivers to this instance's subscribers at once and to the other instances through the
 * ClusterBus (PostgreSQL LISTEN/NOTIFY; in process only on the embedded database). A subject
 * nobody here listens to costs one map lookup.
 */
@Injectable()
export class RealtimeHub implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RealtimeHub.name);
  private readonly subjects = new Map<string, Set<RealtimeSubscriber>>();
  private stopListening: (() => void) | undefined;

  constructor(private readonly cluster: ClusterBus) {}

  onModuleInit(): void {
    this.stopListening = this.cluster.subscribe(REALTIME_PUBLISH_TOPIC, (message) => {
      const { subject, payload } = (message ?? {}) as Partial<HubMessage>;
      if (typeof subject === 'string') this.deliver(subject, payload);
    });
  }

  onModuleDestroy(): void {
    this.stopListening?.();
    this.subjects.clear();
  }

  /** Adds a subscriber; call the returned function to remove it. */
  subscribe<P>(subject: RealtimeSubject<P>, subscriber: (payload: P) => void): () => void {
    // The subject's type is the publishers' contract (publish takes the same P).
    const untyped = subscriber as RealtimeSubscriber;
    let set = this.subjects.get(subject);
    if (!set) this.subjects.set(subject, (set = new Set()));
    set.add(untyped);
    return () => {
      const current = this.subjects.get(subject);
      if (!current) return;
      current.delete(untyped);
      if (current.size === 0) this.subjects.delete(subject);
    };
  }

  /** A subscription that ends when the connection does. */
  subscribeFor<P>(
    connection: RealtimeConnection,
    subject: RealtimeSubject<P>,
    subscriber: (payload: P) => void,
  ): void {
    const unsubscribe = this.subscribe(subject, subscriber);
    connection.onClose(unsubscribe);
  }

  hasSubscribers(subject: string): boolean {
    return this.subjects.has(subject);
  }

  /** Subscribers of the subject on this instance. */
  subscriberCount(subject?: string): number {
    if (subject !== undefined) return this.subjects.get(subject)?.size ?? 0;
    let count = 0;
    for (const set of this.subjects.values()) count += set.size;
    return count;
  }

  /** Delivers locally at once, then to the other instances. */
  async publish<P>(subject: RealtimeSubject<P>, payload: P): Promise<void> {
    await this.cluster.publish(REALTIME_PUBLISH_TOPIC, { subject, payload } satisfies HubMessage);
  }

  private deliver(subject: string, payload: unknown): void {
    const set = this.subjects.get(subject);
    if (!set) return;
    for (const subscriber of [...set]) {
      try {
        subscriber(payload);
      } catch (error) {
        this.logger.error({ err: error, subject }, 'realtime subscriber failed');
      }
    }
  }
}
