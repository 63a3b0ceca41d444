import { Injectable } from '@nestjs/common';
import { ForbiddenError, LockedError, NotFoundError } from '../../platform/errors/domain-error';
import type { User } from '../identity/entities/user.entity';
import { OrganizationsService } from '../identity/organizations.service';
import { CollaboratorsRepository } from './collaborators.repository';
import type { Repository } from './entities/repository.entity';

/** Gitea's access modes, weakest first. */
export type AccessMode = 'none' | 'read' | 'write' | 'admin' | 'owner';
const RANK: Record<AccessMode, number> = { none: 0, read: 1, write: 2, admin: 3, owner: 4 };

export function atLeast(mode: AccessMode, required: AccessMode): boolean {
  return RANK[mode] >= RANK[required];
}

function strongest(modes: AccessMode[]): AccessMode {
  return modes.reduce<AccessMode>((best, mode) => (RANK[mode] > RANK[best] ? mode : best), 'none');
}

export const WRITE_REFUSAL = 'user should have a permission to write to a repo';
export const ADMIN_REFUSAL = 'user should be an owner or a collaborator with admin write of a repository';
export const OWNER_REFUSAL = 'user should be the owner of the repo';

/**
 * The one permission function of repositories, used by the Gitea API, smart HTTP and every module
 * that hangs off a repository (attachments, packages, branches). As Gitea computes it: site
 * administrators and the owner (or an owner of the owning organization) own it; organization
 * teams give their permission on the repositories they hold (or all, `includes_all_repositories`);
 * collaborators their mode; anyone may read a public repository.
 */
@Injectable()
export class RepositoryPermissions {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly collaborators: CollaboratorsRepository,
  ) {}

  async modeOf(user: User | null, repo: Repository): Promise<AccessMode> {
    const publicMode: AccessMode = repo.isPrivate ? 'none' : 'read';
    if (!user) return publicMode;
    if (user.isAdmin || repo.ownerId === user.id) return 'owner';
    const modes: AccessMode[] = [publicMode];
    if (repo.owner?.type === 'organization' || repo.owner === undefined) {
      const membership = (await this.organizations.membershipsOf(user.id)).find(
        (m) => m.organizationId === repo.ownerId,
      );
      if (membership?.isOwner) return 'owner';
      if (membership) {
        const teams = await this.organizations.teamsOf(user.id, repo.ownerId);
        const linked = teams.length
          ? await this.collaborators.linkedTeams(
              repo.id,
              teams.map((team) => team.id),
            )
          : new Set<string>();
        for (const team of teams) {
          if (team.includesAllRepositories || linked.has(team.id))
            modes.push(team.permission === 'none' ? 'none' : team.permission);
        }
      }
    }
    const collaboration = await this.collaborators.find(repo.id, user.id);
    if (collaboration) modes.push(collaboration.mode);
    return strongest(modes);
  }

  /**
   * Gitea's order (reference §3.3): a repository the caller may not read is 404, anonymous or not;
   * then the required level is 403 with Gitea's text. Returns the caller's mode.
   */
  async require(user: User | null, repo: Repository, required: AccessMode): Promise<AccessMode> {
    const mode = await this.modeOf(user, repo);
    if (!atLeast(mode, 'read')) throw repositoryNotFound();
    if (!atLeast(mode, required)) {
      throw new ForbiddenError(
        required === 'write' ? WRITE_REFUSAL : required === 'admin' ? ADMIN_REFUSAL : OWNER_REFUSAL,
      );
    }
    return mode;
  }

  /** Mutating routes on an archived repository: 423 `{owner}/{repo} is archived`. */
  assertNotArchived(repo: Repository, ownerName: string): void {
    if (repo.isArchived)
      throw new LockedError(`${ownerName}/${repo.name} is archived`, { code: 'REPOSITORY_ARCHIVED' });
  }
}

export function repositoryNotFound(): NotFoundError {
  return new NotFoundError('not found', { code: 'REPOSITORY_NOT_FOUND' });
}
