import type { WebSocket } from 'ws';
import { closeReason, RealtimeConnection, type RealtimeFrame } from './realtime-connection';
import type { RealtimeIdentity } from './realtime-ports';

/** A WebSocket (`ws`) connection: text frames, ping/pong heartbeats, dropped when `bufferedAmount` exceeds the limit. */
export class WsConnection extends RealtimeConnection {
  private alive = true;
  /** Set when the client was dropped for being too slow (tests and logs). */
  droppedAsSlow = false;

  constructor(
    readonly socket: WebSocket,
    identity: RealtimeIdentity | undefined,
    maxBufferedBytes: number,
    readonly context: unknown,
  ) {
    super('websocket', identity, maxBufferedBytes);
    socket.on('pong', () => {
      this.alive = true;
    });
    socket.once('close', () => this.markClosed());
    socket.on('error', () => socket.terminate());
    if (socket.readyState === socket.CLOSED) this.markClosed();
  }

  send(frame: string | RealtimeFrame): boolean {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return false;
    const data = typeof frame === 'string' ? frame : frame.data;
    if (this.socket.bufferedAmount + Buffer.byteLength(data) > this.maxBufferedBytes) {
      // The client does not read: drop it rather than let its queue grow without bound.
      this.droppedAsSlow = true;
      this.socket.terminate();
      return false;
    }
    this.socket.send(data);
    return true;
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === this.socket.CLOSED || this.socket.readyState === this.socket.CLOSING)
      return;
    this.socket.close(code, closeReason(reason));
    // A peer that never answers the close handshake is cut off (ws would wait 30 s).
    const timer = setTimeout(() => this.socket.terminate(), 2_000);
    timer.unref();
    this.socket.once('close', () => clearTimeout(timer));
  }

  heartbeat(): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    if (!this.alive) {
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }
}
