import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { ClusterBus } from '../events/cluster-bus.service';
import type { RealtimeConnection } from './realtime-connection';
import type { RealtimeCredentialChecker } from './realtime-ports';
import { REALTIME_SETTINGS, type RealtimeSettings } from './realtime.config';

/** ClusterBus topic: "the credentials of this user changed; re-check its connections". */
export const REALTIME_REVOKE_TOPIC = 'realtime.revoke';

/** Close code of a connection whose credential was revoked (same family as the 4401 of a refused upgrade). */
export const REVOKED_CLOSE_CODE = 4401;

/**
 * Connections pinged per event-loop turn. A ping is a socket write (a syscall); 1,000 of them in one
 * turn held the loop for 100-200 ms on a 2-core VM, the tail of every request that arrived meanwhile.
 */
const HEARTBEAT_CHUNK = 64;

interface RevokeMessage {
  userId: string;
}

/**
 * Every open realtime connection of this instance: heartbeats on one timer, revocation, close
 * at shutdown. Revocation is a re-check, not a blind close: a `realtime.revoke {userId}` on the
 * ClusterBus makes every instance ask the credential checker (auth, straight from the database)
 * about that user's connections and close those no longer valid (token deleted, user suspended
 * or deleted). So a message from another deployment on the same database, or a spurious one,
 * can cost a query but never close a valid connection.
 */
@Injectable()
export class RealtimeConnections implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RealtimeConnections.name);
  private readonly all = new Set<RealtimeConnection>();
  private readonly byUser = new Map<string, Set<RealtimeConnection>>();
  private checker: RealtimeCredentialChecker | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;
  private shuttingDown = false;
  private beating = false;

  constructor(
    private readonly cluster: ClusterBus,
    @Inject(REALTIME_SETTINGS) readonly settings: RealtimeSettings,
  ) {}

  onModuleInit(): void {
    this.stopListening = this.cluster.subscribe(REALTIME_REVOKE_TOPIC, (message) => {
      const userId = (message as Partial<RevokeMessage> | undefined)?.userId;
      if (typeof userId === 'string') void this.recheckUser(userId);
    });
    this.timer = setInterval(() => void this.beat(), this.settings.heartbeatMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    this.shuttingDown = true;
    this.stopListening?.();
    clearInterval(this.timer);
    for (const connection of [...this.all]) connection.close(1001, 'server shutting down');
  }

  /** The auth module plugs its credential checker in at start (the platform imports no module). */
  useCredentialChecker(checker: RealtimeCredentialChecker): void {
    this.checker = checker;
  }

  register(connection: RealtimeConnection): void {
    if (connection.closed) return;
    if (this.shuttingDown) {
      connection.close(1001, 'server shutting down');
      return;
    }
    this.all.add(connection);
    const userId = connection.identity?.userId;
    if (userId !== undefined) {
      let set = this.byUser.get(userId);
      if (!set) this.byUser.set(userId, (set = new Set()));
      set.add(connection);
    }
    connection.onClose(() => {
      this.all.delete(connection);
      if (userId === undefined) return;
      const set = this.byUser.get(userId);
      set?.delete(connection);
      if (set?.size === 0) this.byUser.delete(userId);
    });
  }

  count(kind?: RealtimeConnection['kind']): number {
    if (!kind) return this.all.size;
    let n = 0;
    for (const connection of this.all) if (connection.kind === kind) n += 1;
    return n;
  }

  /** Open connections held by the user on this instance. */
  countForUser(userId: string): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  /**
   * The user's credentials changed (logout, token deleted, suspended, deleted...): every instance
   * re-checks that user's connections and closes the ones that lost their right.
   */
  async revokeUser(userId: string): Promise<void> {
    await this.cluster.publish(REALTIME_REVOKE_TOPIC, { userId } satisfies RevokeMessage);
  }

  private async recheckUser(userId: string): Promise<void> {
    const connections = [...(this.byUser.get(userId) ?? [])];
    if (connections.length === 0) return;
    if (!this.checker) {
      // No checker means nobody can vouch for these credentials any more: fail closed.
      for (const connection of connections) connection.close(REVOKED_CLOSE_CODE, 'Credentials revoked.');
      return;
    }
    try {
      const reasons = await this.checker.recheck(connections.map((connection) => connection.identity!));
      connections.forEach((connection, i) => {
        const reason = reasons[i];
        if (reason) connection.close(REVOKED_CLOSE_CODE, reason);
      });
    } catch (error) {
      this.logger.error({ err: error, userId }, 'realtime credential re-check failed');
    }
  }

  /**
   * One heartbeat round: every connection open at its start, HEARTBEAT_CHUNK per event-loop turn so
   * requests are served between chunks. A round still running when the next tick comes is not doubled.
   */
  async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      const connections = [...this.all];
      for (let start = 0; start < connections.length; start += HEARTBEAT_CHUNK) {
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        if (this.shuttingDown) return;
        for (const connection of connections.slice(start, start + HEARTBEAT_CHUNK)) {
          if (connection.closed) continue;
          try {
            connection.heartbeat();
          } catch (error) {
            this.logger.warn({ err: error }, 'realtime heartbeat failed');
          }
        }
      }
    } finally {
      this.beating = false;
    }
  }
}
