import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../../platform/errors/domain-error';
import type { User } from '../identity/entities/user.entity';
import { UserDirectory } from '../identity/user-directory.service';
import { AuthorizationService } from './authorization.service';
import type { Principal } from '../../api/access/principal';

/**
 * Coder's `{user}` path parameter (id, username or `me`) for the auth routes: unknown users and
 * users the caller may not `user:read` are both 404 (reference E; README decision).
 */
@Injectable()
export class TargetUserResolver {
  constructor(
    private readonly directory: UserDirectory,
    private readonly authz: AuthorizationService,
  ) {}

  async resolve(ref: string, principal: Principal): Promise<User> {
    const user = await this.directory.requireCoderUser(ref, principal);
    if (user.id === principal.user.id) return user;
    if (!(await this.authz.authorize(principal, 'read', AuthorizationService.userObject(user)))) {
      throw new NotFoundError('Resource not found or you do not have access to this resource', {
        code: 'USER_NOT_FOUND',
      });
    }
    return user;
  }
}
