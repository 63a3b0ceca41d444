import { Injectable } from '@nestjs/common';
import type { User } from '../identity/entities/user.entity';
import { OrganizationsService } from '../identity/organizations.service';

/** Access to an owner's packages, weakest first (Gitea's perm.AccessMode for the packages unit). */
export type PackageAccess = 'none' | 'read' | 'write' | 'admin';
const RANK: Record<PackageAccess, number> = { none: 0, read: 1, write: 2, admin: 3 };

export function accessAtLeast(mode: PackageAccess, required: PackageAccess): boolean {
  return RANK[mode] >= RANK[required];
}

/** Teams count for packages when they cover the packages unit (or name no units: every unit). */
const PACKAGES_UNIT = 'repo.packages';

/**
 * The access a caller has before organization membership is considered: nothing when suspended or
 * login-prohibited, admin for site administrators and the owner itself, read on public owners (and
 * on limited ones when signed in), nothing on private ones.
 */
export function accessWithoutMembership(
  user: Pick<User, 'id' | 'status' | 'prohibitLogin' | 'isAdmin'> | null,
  owner: Pick<User, 'id' | 'visibility'>,
): { mode: PackageAccess; final: boolean } {
  if (user && (user.status === 'suspended' || user.prohibitLogin)) return { mode: 'none', final: true };
  if (user?.isAdmin) return { mode: 'admin', final: true };
  if (user && user.id === owner.id) return { mode: 'admin', final: true };
  const visible: PackageAccess =
    owner.visibility === 'public' || (owner.visibility === 'limited' && user) ? 'read' : 'none';
  return { mode: visible, final: false };
}

/**
 * A member's access through their teams: at least read; each team covering the packages unit (or
 * naming no units) gives its permission (owner and admin = admin, write = write, else read).
 */
export function teamsPackageAccess(teams: { units: string[]; permission: string }[]): PackageAccess {
  let best: PackageAccess = 'read';
  for (const team of teams) {
    if (team.units.length > 0 && !team.units.includes(PACKAGES_UNIT)) continue;
    const mode: PackageAccess =
      team.permission === 'owner' || team.permission === 'admin'
        ? 'admin'
        : team.permission === 'write'
          ? 'write'
          : 'read';
    if (RANK[mode] > RANK[best]) best = mode;
  }
  return best;
}

/**
 * Gitea's package access mode (services/context/package.go): the owner itself (and site
 * administrators) administer; organization owners administer, members get their teams' mode on the
 * packages unit (at least read); others read public owners, signed-in users read limited ones,
 * private ones are invisible. Suspended or login-prohibited callers get nothing.
 */
@Injectable()
export class PackagePermissions {
  constructor(private readonly organizations: OrganizationsService) {}

  async modeOf(user: User | null, owner: User): Promise<PackageAccess> {
    const { mode: visible, final } = accessWithoutMembership(user, owner);
    if (final || !user || owner.type !== 'organization') return visible;
    const membership = (await this.organizations.membershipsOf(user.id)).find(
      (m) => m.organizationId === owner.id,
    );
    if (!membership) return visible;
    if (membership.isOwner) return 'admin';
    return teamsPackageAccess(await this.organizations.teamsOf(user.id, owner.id));
  }
}
