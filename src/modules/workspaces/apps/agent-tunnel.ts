import http from 'node:http';
import { Duplex } from 'node:stream';
import type { AgentStream } from '../agent-streams.service';

/** How long a pooled connection to an app stays open unused. */
const IDLE_MS = 3_000;

/**
 * A TCP connection inside the workspace (the agent's `tcp` stream) as a Node byte stream. Writes go out
 * as binary frames and complete when the agent's socket flushed them (backpressure); reads pause the
 * agent's socket while this stream's buffer is full. When the agent's socket reached another instance
 * (relayed over the ClusterBus), frames travel without backpressure.
 */
export class AgentTunnel extends Duplex {
  private ended = false;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly stream: AgentStream) {
    // 1 MiB each way before backpressure: fewer pauses of the agent's socket (each one stops its reads).
    super({ allowHalfOpen: false, highWaterMark: 1024 * 1024 });
    stream.onMessage((data) => {
      if (!this.push(data)) stream.socket?.pause();
    });
    stream.onClose(() => {
      this.ended = true;
      this.push(null);
      // A pooled connection nobody reads: gone now (the pool drops it on 'close'); else after its last bytes.
      if (this.readableLength === 0) this.destroy();
      else this.once('end', () => this.destroy());
    });
  }

  override _read(): void {
    this.stream.socket?.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.ended) {
      callback(new Error('the workspace connection closed'));
      return;
    }
    const socket = this.stream.socket;
    if (socket) {
      if (socket.readyState !== socket.OPEN) callback(new Error('the workspace connection closed'));
      else socket.send(chunk, { binary: true }, (error) => callback(error ?? null));
      return;
    }
    this.stream.send(chunk, true);
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.stream.close();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.idle);
    this.stream.close();
    callback(error);
  }

  // What http.Agent and http.ClientRequest call on a net.Socket.
  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
  /** http.Agent takes a pooled connection back into use. */
  ref(): this {
    clearTimeout(this.idle);
    return this;
  }
  /**
   * http.Agent puts the connection in its pool: closed after IDLE_MS unused, before the app's own
   * keep-alive timeout (Node's 5 s) would close it under a request.
   */
  unref(): this {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.destroy(), IDLE_MS);
    this.idle.unref();
    return this;
  }
}

/**
 * Keep-alive connections to one address inside one workspace, each an AgentTunnel: the first request
 * pays the agent's round trip to open the stream, the following ones reuse it (Node's http.Agent pool).
 */
export class TunnelAgent extends http.Agent {
  constructor(private readonly openTunnel: () => Promise<AgentTunnel>) {
    super({ keepAlive: true, maxSockets: 64, maxFreeSockets: 8, timeout: 60_000 });
  }

  override createConnection(
    _options: http.ClientRequestArgs,
    callback?: (error: Error | null, stream: Duplex) => void,
  ): Duplex | undefined {
    this.openTunnel().then(
      (tunnel) => callback?.(null, tunnel),
      (error: unknown) =>
        callback?.(error instanceof Error ? error : new Error(String(error)), undefined as unknown as Duplex),
    );
    return undefined;
  }
}
