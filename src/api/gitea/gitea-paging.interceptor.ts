import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { giteaLinkHeader } from './gitea-link-header';
import { GiteaPage } from './gitea-page';

/** Sends a GiteaPage as its items with `X-Total-Count` and `Link`. */
@Injectable()
export class GiteaPagingInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof GiteaPage)) return result;
        const { page, limit } = result.paging;
        res.setHeader('X-Total-Count', String(result.total));
        res.setHeader('Access-Control-Expose-Headers', 'X-Total-Count, Link');
        const link = giteaLinkHeader(this.config.publicUrl, req.originalUrl, page, limit, result.total);
        if (link !== '') res.setHeader('Link', link);
        return result.wrap ? result.wrap(result.items) : result.items;
      }),
    );
  }
}

/**
 * A Gitea list route that returns a GiteaPage. Only such routes carry the interceptor, so the
 * others answer without an observable pipeline on the hot path; a GiteaPage returned without it
 * fails loudly (GiteaPage.toJSON).
 */
export function GiteaPaged(): MethodDecorator {
  return UseInterceptors(GiteaPagingInterceptor);
}
