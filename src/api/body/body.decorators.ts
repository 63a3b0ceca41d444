import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { BODY_METADATA, type BodyMode, JSON_BODY_LIMIT_BYTES } from './body-mode';
import { requestMultipartForm } from './multipart-form';
import { requestBodyStream } from './request-body-stream';

/**
 * The body decorators: one per route (method) or per controller (class; a method's wins). A route
 * without one reads JSON up to 4 MiB. See src/api/body/README.md.
 */

/** JSON only (the default), optionally with another limit. */
export const JsonBody = (options: { limitBytes?: number } = {}) =>
  SetMetadata(BODY_METADATA, {
    kind: 'json',
    limitBytes: options.limitBytes ?? JSON_BODY_LIMIT_BYTES,
    form: false,
  } satisfies BodyMode);

/** JSON or `application/x-www-form-urlencoded` (only routes whose wire documents forms declare it). */
export const FormBody = (options: { limitBytes?: number } = {}) =>
  SetMetadata(BODY_METADATA, {
    kind: 'json',
    limitBytes: options.limitBytes ?? JSON_BODY_LIMIT_BYTES,
    form: true,
  } satisfies BodyMode);

/** Large JSON documents (npm publish): up to NPM_PUBLISH_MAX_SIZE_MB unless `limitBytes` is given. */
export const LargeJsonBody = (options: { limitBytes?: number } = {}) =>
  SetMetadata(BODY_METADATA, { kind: 'large-json', limitBytes: options.limitBytes } satisfies BodyMode);

/** The whole body as a Buffer in `req.body` (any content type), at most `limitBytes`. */
export const RawBody = (options: { limitBytes: number }) =>
  SetMetadata(BODY_METADATA, { kind: 'raw', limitBytes: options.limitBytes } satisfies BodyMode);

/** Nothing is read before the handler: it takes the request stream with `@BodyStream()`. */
export const StreamBody = () => SetMetadata(BODY_METADATA, { kind: 'stream' } satisfies BodyMode);

/** multipart/form-data, streamed with busboy; more than `maxBytes` is a 413 while reading. Take it with `@Multipart()`. */
export const MultipartBody = (options: { maxBytes: number }) =>
  SetMetadata(BODY_METADATA, { kind: 'multipart', maxBytes: options.maxBytes } satisfies BodyMode);

/** Handler parameter of a `@StreamBody()` route: the request body as a stream, inflated if gzip/deflate/br encoded. */
export const BodyStream = createParamDecorator((_data: unknown, context: ExecutionContext): Readable =>
  requestBodyStream(context.switchToHttp().getRequest<Request>()),
);

/** Handler parameter of a `@MultipartBody()` route: the form, whose parts are read as the handler iterates. */
export const Multipart = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const form = requestMultipartForm(context.switchToHttp().getRequest<Request>());
  if (!form) throw new Error('@Multipart() needs @MultipartBody() on the route.');
  return form;
});
