import {
  applyDecorators,
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import type { User } from '../identity/entities/user.entity';
import { AdminUsersService } from './admin-users.service';

const TARGET = Symbol('devplane.admin-users.target');

type WithTarget = Request & { [TARGET]?: User };

/**
 * Resolves `{username}` of an `/admin/users/{username}` route (users and organizations,
 * case-insensitive) before the body is bound: Gitea answers 404 for an unknown name before 422
 * for a bad body. Interceptors run after the guards (401/403) and before the pipes (DTO validation).
 */
@Injectable()
export class AdminTargetInterceptor implements NestInterceptor {
  constructor(private readonly service: AdminUsersService) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<WithTarget>();
    req[TARGET] = await this.service.requireAccount(String(req.params.username ?? ''));
    return next.handle();
  }
}

/** The route resolves its `{username}` account first (404), before validation. */
export function ResolvesAdminTarget(): MethodDecorator {
  return applyDecorators(
    UseInterceptors(AdminTargetInterceptor),
    ApiParam({ name: 'username', description: 'a user (organizations answer 422), case-insensitive' }),
  );
}

/** The account resolved by `@ResolvesAdminTarget()`. */
export const AdminTarget = createParamDecorator((_data: unknown, context: ExecutionContext): User => {
  const target = context.switchToHttp().getRequest<WithTarget>()[TARGET];
  if (!target) throw new Error('@AdminTarget() on a route without @ResolvesAdminTarget()');
  return target;
});
