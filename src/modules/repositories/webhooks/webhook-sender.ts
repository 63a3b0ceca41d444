import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import {
  type AllowedHostList,
  allowedHostLookup,
  assertLiteralHostAllowed,
  DisallowedHostError,
} from '../../../platform/net/allowed-host-list';
import type { Resolver } from '../../../platform/net/private-address';
import { redactUrlIn } from '../../../platform/net/safe-url';
import { type HookEventType, hookEventHeader } from './webhook-events';
import type { HookContentType } from './webhook.entity';

export const ALLOWED_HOST_SETTING = 'WEBHOOK_ALLOWED_HOST_LIST';
const RESPONSE_KEPT_BYTES = 4096;

export interface HookRequest {
  url: string;
  contentType: HookContentType;
  secret: string;
  authorization: string;
  uuid: string;
  eventType: HookEventType;
  /** The JSON payload: what the signature covers (also for form bodies, as Gitea signs). */
  payload: string;
}

export interface HookResponse {
  /** The receiver's status, or null when nothing came back. */
  status: number | null;
  /** The start of the answer, or the error (URL redacted). */
  body: string;
  /** A later attempt cannot do better (the address is not allowed, the URL is invalid). */
  permanent: boolean;
}

/** Gitea's delivery headers (services/webhook/deliver.go addDefaultHeaders). */
export function deliveryHeaders(request: HookRequest, body: string): Record<string, string> {
  const sha256 = request.secret
    ? createHmac('sha256', request.secret).update(request.payload).digest('hex')
    : '';
  const sha1 = request.secret ? createHmac('sha1', request.secret).update(request.payload).digest('hex') : '';
  const event = hookEventHeader(request.eventType);
  const headers: Record<string, string> = {
    'Content-Type': request.contentType === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    'User-Agent': 'devplane-webhooks/1',
    'X-Gitea-Delivery': request.uuid,
    'X-Gitea-Event': event,
    'X-Gitea-Event-Type': request.eventType,
    'X-Gitea-Signature': sha256,
    'X-Gogs-Delivery': request.uuid,
    'X-Gogs-Event': event,
    'X-Gogs-Event-Type': request.eventType,
    'X-Gogs-Signature': sha256,
    'X-Hub-Signature': `sha1=${sha1}`,
    'X-Hub-Signature-256': `sha256=${sha256}`,
    'X-GitHub-Delivery': request.uuid,
    'X-GitHub-Event': event,
    'X-GitHub-Event-Type': request.eventType,
  };
  if (request.authorization) headers.Authorization = request.authorization;
  return headers;
}

/**
 * One delivery attempt: POST, no redirects followed, the timeout covering the whole exchange. The
 * outbound address rule (`WEBHOOK_ALLOWED_HOST_LIST`) is applied to literal addresses before
 * connecting and to the DNS answer at connect time (a rebinding name cannot pass a check and then
 * connect elsewhere). Never throws.
 */
export async function sendHook(
  request: HookRequest,
  options: { list: AllowedHostList; timeoutMs: number; resolve?: () => Resolver; signal?: AbortSignal },
): Promise<HookResponse> {
  let url: URL;
  try {
    url = new URL(request.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    return { status: null, body: 'invalid URL', permanent: true };
  }
  try {
    assertLiteralHostAllowed(options.list, url.hostname, ALLOWED_HOST_SETTING);
  } catch (error) {
    return { status: null, body: (error as Error).message, permanent: true };
  }
  const body =
    request.contentType === 'form'
      ? new URLSearchParams({ payload: request.payload }).toString()
      : request.payload;
  const headers = deliveryHeaders(request, body);
  const lookup = allowedHostLookup({
    list: () => options.list,
    setting: ALLOWED_HOST_SETTING,
    resolve: options.resolve,
  });
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<HookResponse>((resolve) => {
    let settled = false;
    const finish = (response: HookResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(response);
    };
    const failed = (error: Error): void =>
      finish({
        status: null,
        body: redactUrlIn(error.message, request.url),
        permanent: error instanceof DisallowedHostError,
      });
    let req: http.ClientRequest;
    try {
      req = transport.request(url, { method: 'POST', headers, lookup }, (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_KEPT_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
        });
        res.on('end', () =>
          finish({
            status: res.statusCode ?? null,
            body: Buffer.concat(chunks).subarray(0, RESPONSE_KEPT_BYTES).toString('utf8'),
            permanent: false,
          }),
        );
        res.on('error', failed);
        res.on('close', () => failed(new Error('connection closed before the response ended')));
      });
    } catch (error) {
      resolve({ status: null, body: redactUrlIn((error as Error).message, request.url), permanent: true });
      return;
    }
    const onAbort = (): void => {
      failed(new Error('aborted'));
      req.destroy();
    };
    const timer = setTimeout(() => {
      failed(new Error(`timeout after ${options.timeoutMs} ms`));
      req.destroy();
    }, options.timeoutMs);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', failed);
    req.end(body);
  });
}
