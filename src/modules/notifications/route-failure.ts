import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { Response } from 'express';

/**
 * An unexpected failure of a notifications route, answered as Coder does: 500 with the route's
 * own message and the error text as `detail`. Client errors (DomainError) are never wrapped.
 */
export class RouteFailure extends Error {
  constructor(
    message: string,
    readonly detail: string,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

@Catch(RouteFailure)
export class RouteFailureFilter implements ExceptionFilter {
  private readonly logger = new Logger('Notifications');

  catch(exception: RouteFailure, host: ArgumentsHost): void {
    this.logger.error({ err: exception.cause ?? exception }, exception.message);
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(500).json({ message: exception.message, detail: exception.detail });
  }
}
