import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../../platform/errors/domain-error';
import type { Principal } from '../../api/access/principal';
import type { User } from './entities/user.entity';
import { UsersService } from './users.service';

/** Resolves the `{user}` / `{username}` path parameters of the dialects. */
@Injectable()
export class UserDirectory {
  constructor(private readonly users: UsersService) {}

  /** Coder: `me`, a UUID or a username; unknown users are 404. */
  async requireCoderUser(ref: string, principal: Principal): Promise<User> {
    if (ref === 'me') return principal.user;
    const user = await this.users.findByUuidOrName(ref);
    if (!user)
      throw new NotFoundError('Resource not found or you do not have access to this resource', {
        code: 'USER_NOT_FOUND',
      });
    return user;
  }

  /** Gitea: a username; unknown users are 404 with Gitea's text. */
  async requireGiteaUser(username: string): Promise<User> {
    return this.users.requireByName(username);
  }
}
