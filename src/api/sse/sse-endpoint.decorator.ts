import { applyDecorators, SetMetadata, Sse, UseFilters, UseInterceptors } from '@nestjs/common';
import { type ApiDialect, DIALECT_METADATA } from '../dialect';
import { SseExceptionFilter } from '../dialect-exception.filter';
import { SseErrorFrameInterceptor } from './sse-error-frame.interceptor';

/** Route metadata: the API whose JSON error shape an SSE route uses before its stream starts. */
export const SSE_API_METADATA = 'devplane:sse-api';

/**
 * A server-sent-events route inside a dialect controller: `@SseEndpoint('watch', { api: 'coder' })`.
 * The route's dialect is `sse` (method metadata overrides the controller's); errors before the stream
 * starts are the API's JSON error with its status, errors after are an `event: error` frame.
 * The handler returns an Observable<MessageEvent> as with Nest's `@Sse()`.
 */
export function SseEndpoint(path: string, options: { api: ApiDialect }): MethodDecorator {
  return applyDecorators(
    Sse(path),
    SetMetadata(DIALECT_METADATA, 'sse'),
    SetMetadata(SSE_API_METADATA, options.api),
    UseFilters(SseExceptionFilter),
    UseInterceptors(SseErrorFrameInterceptor),
  );
}
