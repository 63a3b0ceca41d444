import {
  type CallHandler,
  type ExecutionContext,
  HttpStatus,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import { ocsEnvelope, ocsToXml, ocsWantsJson } from './ocs-envelope';

/** Wraps the handler's result in `{ocs:{meta,data}}`, as JSON or (by default) XML. Success is always 200. */
@Injectable()
export class OcsEnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    return next.handle().pipe(
      map((data: unknown) => {
        const envelope = ocsEnvelope('ok', 200, 'OK', data ?? []);
        res.status(HttpStatus.OK);
        if (ocsWantsJson(req)) {
          res.type('application/json; charset=utf-8');
          return JSON.stringify(envelope);
        }
        res.type('application/xml; charset=utf-8');
        return ocsToXml(envelope);
      }),
    );
  }
}
