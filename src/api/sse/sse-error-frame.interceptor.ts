import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type MessageEvent,
  type NestInterceptor,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { catchError, type Observable, of, throwError } from 'rxjs';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { normalizeException } from '../normalize-exception';
import { renderError } from '../send-error';

/**
 * For `@Sse()` handlers: an error of the event Observable after the stream started becomes an
 * `event: error` message carrying the route API's error body (Nest would send only a bare message);
 * before the stream starts, the error goes on to the filter, which answers JSON with a status.
 */
@Injectable()
export class SseErrorFrameInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (!res.headersSent) return throwError(() => error);
        const rendered = renderError('sse', normalizeException(error), req, this.config);
        const event: MessageEvent = { type: 'error', data: rendered.body as object };
        return of(event);
      }),
    );
  }
}
