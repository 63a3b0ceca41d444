import type { User } from '../identity/entities/user.entity';

/**
 * Owners (Coder `owner` site role) may change deployment notification settings, send test
 * notifications and edit anyone's preferences. Simple rule until the RBAC service lands:
 * a site administrator or a user with the `owner` site role.
 */
export function isOwner(user: User): boolean {
  return user.isAdmin || user.siteRoles.includes('owner');
}

/** Coder has `is_system` users; devplane's closest notion is a service account. */
export function isSystemUser(user: User): boolean {
  return user.isServiceAccount;
}
