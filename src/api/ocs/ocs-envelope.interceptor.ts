import {
  type CallHandler,
  type ExecutionContext,
  HttpStatus,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import { weakEtag } from '../../platform/http/weak-etag';
import { ocsEnvelope, ocsToXml, ocsWantsJson } from './ocs-envelope';

interface RenderedEnvelope {
  body: string;
  etag: string;
}

/**
 * Envelopes of frozen results, rendered once per format. A service freezes what it serves from a
 * cache to many callers (the workflow rule index of a scope, until the next rule change), so the
 * same object comes back on every request; the WeakMap lets the text go with the object.
 */
const renderedEnvelopes = new WeakMap<object, { json?: RenderedEnvelope; xml?: RenderedEnvelope }>();

function render(data: unknown, json: boolean): string {
  const envelope = ocsEnvelope('ok', 200, 'OK', data ?? []);
  return json ? JSON.stringify(envelope) : ocsToXml(envelope);
}

/** Wraps the handler's result in `{ocs:{meta,data}}`, as JSON or (by default) XML. Success is always 200. */
@Injectable()
export class OcsEnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    return next.handle().pipe(
      map((data: unknown) => {
        res.status(HttpStatus.OK);
        const json = ocsWantsJson(req);
        res.type(json ? 'application/json; charset=utf-8' : 'application/xml; charset=utf-8');
        if (data === null || typeof data !== 'object' || !Object.isFrozen(data)) return render(data, json);
        let rendered = renderedEnvelopes.get(data);
        if (!rendered) renderedEnvelopes.set(data, (rendered = {}));
        const format = json ? 'json' : 'xml';
        let once = rendered[format];
        if (!once) {
          const body = render(data, json);
          once = rendered[format] = { body, etag: weakEtag(body) };
        }
        res.setHeader('ETag', once.etag);
        return once.body;
      }),
    );
  }
}
