import { HttpException, HttpStatus } from '@nestjs/common';
import {
  type AnyDomainError,
  BadRequestError,
  ConflictError,
  DomainError,
  ForbiddenError,
  GoneError,
  InvalidError,
  LockedError,
  NotFoundError,
  PreconditionFailedError,
  RateLimitedError,
  TooLargeError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
} from '../platform/errors/domain-error';
import { OperationFailedError } from '../platform/errors/operation-failed.error';
import { InternalFailure } from './internal-failure';

interface BodyParserError {
  type: string;
  status?: number;
  limit?: number;
  message: string;
}

function isBodyParserError(value: unknown): value is BodyParserError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as BodyParserError).type === 'string' &&
    typeof (value as BodyParserError).status === 'number'
  );
}

function httpMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/**
 * Turns whatever was thrown into a DomainError (client-caused) or an InternalFailure.
 * Framework exceptions (route not found, throttling, pipes) and body-parser failures are
 * translated here once, so every dialect renders them through its one mapping.
 */
export function normalizeException(exception: unknown): AnyDomainError | InternalFailure {
  if (exception instanceof DomainError) return exception as AnyDomainError;
  if (exception instanceof OperationFailedError)
    return new InternalFailure(exception.cause ?? exception, exception.publicMessage);
  if (isBodyParserError(exception)) {
    switch (exception.type) {
      case 'entity.parse.failed':
        return new BadRequestError('Request body must be valid JSON.', {
          code: 'MALFORMED_JSON',
          detail: exception.message,
        });
      case 'entity.too.large':
        return new TooLargeError('Request body too large.', {
          detail:
            typeof exception.limit === 'number'
              ? `Maximum request body size is ${exception.limit} bytes.`
              : exception.message,
        });
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new UnsupportedMediaTypeError(exception.message);
      default:
        return new BadRequestError(exception.message);
    }
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const message = httpMessage(exception);
    switch (status) {
      case HttpStatus.NOT_FOUND:
        return new NotFoundError(message.startsWith('Cannot ') ? 'Route not found.' : message, {
          code: message.startsWith('Cannot ') ? 'ROUTE_NOT_FOUND' : undefined,
        });
      case HttpStatus.TOO_MANY_REQUESTS:
        return new RateLimitedError(message, { code: 'RATE_LIMITED' });
      case HttpStatus.PAYLOAD_TOO_LARGE:
        return new TooLargeError(message);
      case HttpStatus.UNAUTHORIZED:
        return new UnauthenticatedError('missing', message);
      case HttpStatus.FORBIDDEN:
        return new ForbiddenError(message);
      case HttpStatus.CONFLICT:
        return new ConflictError(message);
      case HttpStatus.GONE:
        return new GoneError(message);
      case HttpStatus.PRECONDITION_FAILED:
        return new PreconditionFailedError(message);
      case HttpStatus.UNSUPPORTED_MEDIA_TYPE:
        return new UnsupportedMediaTypeError(message);
      case HttpStatus.UNPROCESSABLE_ENTITY:
        return new InvalidError(message);
      case HttpStatus.LOCKED:
        return new LockedError(message);
      case HttpStatus.SERVICE_UNAVAILABLE:
        return new UnavailableError(message);
      default:
        if (status >= 400 && status < 500) return new BadRequestError(message);
        return new InternalFailure(exception);
    }
  }
  return new InternalFailure(exception);
}
