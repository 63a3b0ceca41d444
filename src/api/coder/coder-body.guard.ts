import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { Request } from 'express';
import { BadRequestError } from '../../platform/errors/domain-error';
import { goStructOf } from './coder-dto.decorators';
import { CODER_BAD_JSON, unmarshalBodyDetail } from './coder-validation';
import { routeMemo } from '../route-memo';

/** The class of the handler's `@Body()` parameter, when it has one (route metadata: read once per route). */
const bodyType = routeMemo((handler, controller) => readBodyType(controller, handler));

function readBodyType(controller: Function, handler: Function): unknown {
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
 * A guard (controller guards run after the global ones, pipes after every guard), not an interceptor:
 * an interceptor wraps every Coder request in an rxjs pipeline (issue 10 item 14).
 */
@Injectable()
export class CoderBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
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
    return true;
  }
}
