import type { ServerResponse } from 'node:http';
import { RealtimeConnection, type RealtimeFrame } from './realtime-connection';
import type { RealtimeIdentity } from './realtime-ports';

/** One field value per line: SSE has no escaping, so CR/LF split a value into several `data:` lines. */
function lines(field: string, value: string): string {
  return value
    .split(/\r\n|\r|\n/)
    .map((line) => `${field}: ${line}\n`)
    .join('');
}

/** `event:`/`id:`/`data:` framing of one server-sent event. */
export function sseFrame(frame: RealtimeFrame): string {
  let out = '';
  if (frame.event !== undefined) out += `event: ${frame.event.replace(/[\r\n]/g, '')}\n`;
  if (frame.id !== undefined) out += `id: ${frame.id.replace(/[\r\n\0]/g, '')}\n`;
  return `${out}${lines('data', frame.data)}\n`;
}

/**
 * A `text/event-stream` response: events with `event:`/`id:`/`data:` lines, a comment line as
 * heartbeat, dropped (socket destroyed) when the unsent bytes exceed the limit.
 */
export class SseConnection extends RealtimeConnection {
  droppedAsSlow = false;

  constructor(
    readonly res: ServerResponse,
    identity: RealtimeIdentity | undefined,
    maxBufferedBytes: number,
    /** The client's `Last-Event-ID` (a reconnect), for the route to resume from. */
    readonly lastEventId: string | undefined,
  ) {
    super('sse', identity, maxBufferedBytes);
    res.once('close', () => this.markClosed());
    if (res.destroyed || res.writableEnded) this.markClosed();
  }

  send(frame: string | RealtimeFrame): boolean {
    return this.write(sseFrame(typeof frame === 'string' ? { data: frame } : frame));
  }

  /** A comment line; clients ignore it. Also keeps proxies from timing the stream out. */
  comment(text: string): boolean {
    return this.write(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`);
  }

  close(_code: number, _reason: string): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    this.res.end();
  }

  heartbeat(): void {
    this.comment('ping');
  }

  private write(chunk: string): boolean {
    if (this.closed || this.res.writableEnded || this.res.destroyed) return false;
    if (this.res.writableLength + Buffer.byteLength(chunk) > this.maxBufferedBytes) {
      this.droppedAsSlow = true;
      this.res.destroy();
      return false;
    }
    this.res.write(chunk);
    return true;
  }
}
