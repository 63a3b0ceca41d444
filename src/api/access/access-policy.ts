import type { Principal } from './principal';

/**
 * An object to check. `ownerId` / `orgId` are uuids (Coder ids); the caller's own numeric user id
 * and the numeric ids of the caller's organizations are accepted too.
 */
export interface AuthzObject {
  type: string;
  id?: string;
  ownerId?: string;
  orgId?: string;
  anyOrg?: boolean;
  aclUserList?: Record<string, string[]>;
  aclGroupList?: Record<string, string[]>;
}

/** One permission of a role (Coder's `codersdk.Permission` before rendering). */
export interface RolePermission {
  type: string;
  action: string;
  negate?: boolean;
}

/** A built-in role's permissions at each level (Coder's `rbac.Role`). */
export interface RolePermissionSets {
  site: RolePermission[];
  org: RolePermission[];
  member: RolePermission[];
  user: RolePermission[];
}

/** Which built-in role: a site role, or an organization role in an organization with this workspace sharing mode. */
export type RoleRef =
  { site: string } | { organizationRole: string; sharingMode: 'none' | 'everyone' | 'service_accounts' };

/**
 * The RBAC checks identity's routes and services need, as a port: auth's AuthorizationService
 * implements it and provides it globally (`{ provide: AccessPolicy, useExisting: AuthorizationService }`),
 * so identity asks for a decision without importing auth (issue 32 item 3).
 */
export abstract class AccessPolicy {
  /** Whether the caller may do `action` on `object` (roles, then the key's scopes on top). */
  abstract authorize(principal: Principal, action: string, object: AuthzObject): Promise<boolean>;

  /** Throws Coder's standard 403 (or 404 with `notFound`, for lookups) when not allowed. */
  abstract require(
    principal: Principal,
    action: string,
    object: AuthzObject,
    options?: { notFound?: boolean },
  ): Promise<void>;

  /** A built-in role's permissions (the roles lists show them), or undefined for an unknown role. */
  abstract rolePermissions(role: RoleRef): RolePermissionSets | undefined;

  /** Keeps the rows the caller may `action`. */
  abstract filter<T>(
    principal: Principal,
    action: string,
    rows: T[],
    objectOf: (row: T) => AuthzObject,
  ): Promise<T[]>;
}

/** The RBAC object of a user account (Coder `user.RBACObject()`). */
export function userObject(user: { uuid: string }): AuthzObject {
  return { type: 'user', id: user.uuid, ownerId: user.uuid };
}
