import { Injectable } from '@nestjs/common';
import type { LinkedRepository, RepositoryAccess } from '../../platform/ports/repository-links';
import { RepositoryLinks } from '../../platform/ports/repository-links';
import { UsersService } from '../identity/users.service';
import { presentGiteaRepository } from './presenters/gitea-repository.presenter';
import { RepositoriesService } from './repositories.service';
import { atLeast, RepositoryPermissions } from './repository-permissions.service';

/** The repositories module's implementation of the platform port RepositoryLinks (for packages). */
@Injectable()
export class RepositoryLinksService extends RepositoryLinks {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly users: UsersService,
  ) {
    super();
  }

  async find(ownerId: string, name: string): Promise<LinkedRepository | null> {
    const owner = await this.users.findById(ownerId);
    if (!owner) return null;
    const resolved = await this.repositories.resolve(owner.name, name).catch(() => null);
    if (!resolved || 'redirectTo' in resolved) return null;
    return { id: resolved.repo.id, ownerId: resolved.repo.ownerId, name: resolved.repo.name };
  }

  async findById(id: string): Promise<LinkedRepository | null> {
    const repo = await this.repositories.findById(id);
    return repo ? { id: repo.id, ownerId: repo.ownerId, name: repo.name } : null;
  }

  async accessOf(userId: string | null, repositoryId: string): Promise<RepositoryAccess> {
    const repo = await this.repositories.findById(repositoryId);
    if (!repo) return 'none';
    const user = userId ? await this.users.findById(userId) : null;
    return this.permissions.modeOf(user, repo);
  }

  async presentForGitea(
    repositoryId: string,
    viewerId: string | null,
  ): Promise<Record<string, unknown> | null> {
    const repo = await this.repositories.findById(repositoryId);
    if (!repo) return null;
    const viewer = viewerId ? await this.users.findById(viewerId) : null;
    const mode = await this.permissions.modeOf(viewer, repo);
    if (!atLeast(mode, 'read')) return null;
    return {
      ...presentGiteaRepository(repo, repo.owner, viewer ?? undefined, mode, this.repositories.publicUrl),
    };
  }
}
