import { NotFoundError, UnauthenticatedError } from '../../platform/errors/domain-error';
import type { User } from '../identity/entities/user.entity';
import type { UsersService } from '../identity/users.service';
import { accessAtLeast, type PackageAccess, type PackagePermissions } from './package-permissions.service';

export function ownerNotFound(): NotFoundError {
  return new NotFoundError('owner does not exist', { code: 'PACKAGE_OWNER_NOT_FOUND' });
}

/** The `{owner}` of a package route (user or organization), 404 when there is none. */
export async function resolvePackageOwner(users: UsersService, name: string): Promise<User> {
  const owner = await users.findAccountByName(name);
  if (!owner) throw ownerNotFound();
  return owner;
}

/**
 * The registries' rule (Gitea's package API): a caller without the access the route needs gets 401
 * with a Basic challenge, not 403, so clients send (other) credentials.
 */
export async function requireRegistryAccess(
  permissions: PackagePermissions,
  user: User | null,
  owner: User,
  required: PackageAccess,
): Promise<PackageAccess> {
  const mode = await permissions.modeOf(user, owner);
  if (!accessAtLeast(mode, required))
    throw new UnauthenticatedError('missing', 'Unauthorized', { code: 'PACKAGE_ACCESS' });
  return mode;
}
