import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { BadRequestError } from '../../platform/errors/domain-error';
import { goStructOf } from './coder-dto.decorators';
import { CODER_BAD_JSON, unmarshalBodyDetail } from './coder-validation';

/** The class of the handler's `@Body()` parameter, when it has one. */
function bodyType(context: ExecutionContext): unknown {
  const handler = context.getHandler();
  const controller = context.getClass();
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<
    string,
    { index: number }
  >;
  const key = Object.keys(args).find((name) => name.split(':')[0] === String(RouteParamtypes.BODY));
  if (key === undefined) return undefined;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, handler.name) ??
    []) as unknown[];
  return types[args[key]!.index];
}

/**
 * Go's decoder on the whole body, before the ValidationPipe (which would turn an absent body into
 * `{}` and cannot describe an array): for a route whose body DTO is a `@GoStruct`, a body that is
 * not a JSON object is 400 `Request body must be valid JSON.` with Go's text, and an absent body
 * is `EOF` where the route decodes strictly. `null` decodes to the zero struct, as in Go.
 */
@Injectable()
export class CoderBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const struct = goStructOf(bodyType(context));
      if (struct) {
        const body = context.switchToHttp().getRequest<Request>().body as unknown;
        if (body === undefined && struct.absentBody === 'eof') {
          throw new BadRequestError(CODER_BAD_JSON, { code: 'MALFORMED_JSON', detail: 'EOF' });
        }
        if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
          throw new BadRequestError(CODER_BAD_JSON, {
            code: 'MALFORMED_JSON',
            detail: unmarshalBodyDetail(body, struct.name),
          });
        }
      }
    }
    return next.handle();
  }
}
