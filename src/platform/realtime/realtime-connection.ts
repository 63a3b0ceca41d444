import type { RealtimeIdentity } from './realtime-ports';

export type ConnectionKind = 'websocket' | 'sse';

/** A frame on an SSE stream (`event:`, `id:`, `data:` lines); a WebSocket sends `data` as text. */
export interface RealtimeFrame {
  data: string;
  event?: string;
  id?: string;
}

let nextId = 0;

/**
 * One open WebSocket or SSE stream, as the hub and the registry see it: bounded (a client whose
 * unsent bytes exceed the limit is dropped, so memory stays bounded), heartbeated, closable by
 * revocation. Subscriptions taken through it end with it.
 */
export abstract class RealtimeConnection {
  readonly id = ++nextId;
  private closeCallbacks: (() => void)[] = [];
  private ended = false;

  protected constructor(
    readonly kind: ConnectionKind,
    readonly identity: RealtimeIdentity | undefined,
    protected readonly maxBufferedBytes: number,
  ) {}

  get closed(): boolean {
    return this.ended;
  }

  /** Queues a frame; returns false (and drops the client) when it is too slow to take it. */
  abstract send(frame: string | RealtimeFrame): boolean;

  /** Ends the connection: a WebSocket close code and reason; an SSE stream just ends. */
  abstract close(code: number, reason: string): void;

  /** Called by the registry on every heartbeat tick: ping, and drop a peer that did not answer the last one. */
  abstract heartbeat(): void;

  /** Runs when the connection ends, however it ends (at once if it already has). */
  onClose(callback: () => void): void {
    if (this.ended) callback();
    else this.closeCallbacks.push(callback);
  }

  /** Subclasses call this exactly when the transport is gone. */
  protected markClosed(): void {
    if (this.ended) return;
    this.ended = true;
    const callbacks = this.closeCallbacks.splice(0);
    for (const callback of callbacks) {
      try {
        callback();
      } catch {
        // A failing clean-up must not keep the others from running.
      }
    }
  }
}

/** WebSocket close reasons are limited to 123 bytes. */
export function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}
