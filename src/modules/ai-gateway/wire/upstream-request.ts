import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';

/**
 * Keep-alive connections to the providers, shared by every request. `fetch` was the client before:
 * its WHATWG streams cost a promise round per chunk and its request setup about half a millisecond,
 * both on the proxy's path to the first byte (issue 18 item 8).
 */
const AGENTS = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 512 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 512 }),
};

export interface UpstreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as a Node stream of Buffers, read as it arrives. */
  body: IncomingMessage;
}

/** One request to a provider, answered when its status and headers arrive (redirects are not followed). */
export function upstreamRequest(
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: Buffer; signal: AbortSignal },
): Promise<UpstreamResponse> {
  const target = url;
  const transport = target.protocol === 'https:' ? https : http;
  const agent = target.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'];
  return new Promise((resolve, reject) => {
    const request = transport.request(
      target,
      {
        method: init.method,
        headers: init.body ? { ...init.headers, 'content-length': String(init.body.length) } : init.headers,
        agent,
        signal: init.signal,
      },
      (response) =>
        resolve({ status: response.statusCode ?? 502, headers: response.headers, body: response }),
    );
    request.once('error', reject);
    request.end(init.body);
  });
}
