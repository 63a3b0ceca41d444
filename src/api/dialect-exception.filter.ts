import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AppConfig } from '../platform/config/app-config';
import { APP_CONFIG } from '../platform/config/config.token';
import { dialectOfPath, requestDialect, type Dialect } from './dialect';
import { sendError } from './send-error';

abstract class DialectFilterBase implements ExceptionFilter {
  protected abstract dialect(req: Request): Dialect;
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    sendError(this.dialect(req), exception, req, http.getResponse<Response>(), this.config);
  }
}

@Catch()
@Injectable()
export class OcsExceptionFilter extends DialectFilterBase {
  protected dialect(): Dialect {
    return 'ocs';
  }
}

@Catch()
@Injectable()
export class CoderExceptionFilter extends DialectFilterBase {
  protected dialect(): Dialect {
    return 'coder';
  }
}

@Catch()
@Injectable()
export class GiteaExceptionFilter extends DialectFilterBase {
  protected dialect(): Dialect {
    return 'gitea';
  }
}

@Catch()
@Injectable()
export class GitExceptionFilter extends DialectFilterBase {
  protected dialect(): Dialect {
    return 'git';
  }
}

@Catch()
@Injectable()
export class NpmExceptionFilter extends DialectFilterBase {
  protected dialect(): Dialect {
    return 'npm';
  }
}

@Catch()
@Injectable()
export class GenericExceptionFilter extends DialectFilterBase {
  protected dialect(): Dialect {
    return 'generic';
  }
}

/** SSE routes: before the stream starts, the JSON error of the route's API; after, an `event: error` frame. */
@Catch()
@Injectable()
export class SseExceptionFilter extends DialectFilterBase {
  protected dialect(): Dialect {
    return 'sse';
  }
}

/**
 * Global fallback (errors outside a dialect controller): the matched route's dialect when a guard
 * recorded it, else (unknown routes, failures before routing) the dialect of the path prefix.
 */
@Catch()
@Injectable()
export class FallbackExceptionFilter extends DialectFilterBase {
  protected dialect(req: Request): Dialect {
    return requestDialect(req) ?? dialectOfPath(req.path);
  }
}
