import { applyDecorators, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import { RESOURCE_ASSIGNMENT, type ResourceAssigner } from '../../../api/access/access.decorators';
import type { AnyPrincipal } from '../../../api/access/principal';
import { UsersService } from '../../identity/users.service';
import { PackagePermissions } from '../package-permissions.service';
import { requireRegistryAccess, resolvePackageOwner } from '../package-owner';

/**
 * Write access to the `{owner}` of an npm route, checked by the AuthGuard as the route's resource
 * assignment, so BEFORE the body guard reads (and inflates) the publish document (issue #46.1): a
 * signed-in caller who may not publish to that owner gets the registry's 401 (Basic challenge) or an
 * unknown owner's 404 without a byte of the body read. Anonymous callers are left to the AuthGuard's
 * own 401 right after. The handler checks again (cached) and applies the package-level rules.
 */
@Injectable()
export class NpmPublishAccess implements ResourceAssigner {
  constructor(
    private readonly users: UsersService,
    private readonly permissions: PackagePermissions,
  ) {}

  async assign(context: ExecutionContext, principal: AnyPrincipal | undefined): Promise<void> {
    if (principal?.kind !== 'user') return;
    const req = context.switchToHttp().getRequest<Request>();
    const owner = await resolvePackageOwner(this.users, (req.params as { owner?: string }).owner ?? '');
    await requireRegistryAccess(this.permissions, principal.user, owner, 'write');
  }
}

/** The route writes to its `{owner}`'s registry: access is decided before the body is read. */
export function WritesToOwner(): MethodDecorator {
  return applyDecorators(SetMetadata(RESOURCE_ASSIGNMENT, NpmPublishAccess));
}
