import type { RenderedError } from '../rendered-error';

/**
 * The last frame of an event stream that failed after it started: `event: error` with the error
 * body of the route's API as JSON data (a status can no longer be sent; the body carries the message).
 */
export function sseErrorFrame(rendered: RenderedError): string {
  const data = typeof rendered.body === 'string' ? rendered.body.trimEnd() : JSON.stringify(rendered.body);
  return `event: error\n${data
    .split(/\r\n|\r|\n/) // every line break SSE parsers know, so text cannot forge fields
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}
