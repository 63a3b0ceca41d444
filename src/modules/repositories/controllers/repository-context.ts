import type { Response } from 'express';
import type { User } from '../../identity/entities/user.entity';
import type { Repository } from '../entities/repository.entity';
import type { RepositoriesService } from '../repositories.service';
import { type AccessMode, type RepositoryPermissions } from '../repository-permissions.service';

export interface RepositoryContext {
  repo: Repository;
  owner: User;
  mode: AccessMode;
}

/**
 * Resolves `{owner}/{repo}` for a Gitea API route, in Gitea's order (reference §3.3): unknown owner
 * or repository 404, a renamed repository 307 to its new path, a repository the caller may not read
 * 404, then the required level 403. Returns null when it answered with a redirect.
 */
export async function repositoryContext(
  repositories: RepositoriesService,
  permissions: RepositoryPermissions,
  params: { owner: string; repo: string },
  viewer: User | null,
  required: AccessMode,
  res: Response,
): Promise<RepositoryContext | null> {
  const resolved = await repositories.resolve(params.owner, params.repo);
  if ('redirectTo' in resolved) {
    const request = res.req;
    const prefix = `/repos/${encodeURIComponent(params.owner)}/${encodeURIComponent(params.repo)}`;
    const rest = request.originalUrl.slice(request.originalUrl.indexOf(prefix) + prefix.length);
    const target = `${request.originalUrl.slice(0, request.originalUrl.indexOf(prefix))}/repos/${encodeURIComponent(resolved.redirectTo.owner)}/${encodeURIComponent(resolved.redirectTo.name)}${rest}`;
    res.redirect(307, target);
    return null;
  }
  const mode = await permissions.require(viewer, resolved.repo, required);
  return { repo: resolved.repo, owner: resolved.owner, mode };
}
