import { type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AccessDeclaration, ResourceAssigner } from '../../../api/access/access.decorators';
import type { AnyPrincipal } from '../../../api/access/principal';
import { UnauthenticatedError } from '../../../platform/errors/domain-error';
import { assignRepositoryContext, RepoAssignment } from '../repo-access';
import { RepositoriesService } from '../repositories.service';
import { LfsLinkError, LfsLinks } from './lfs-links';

/**
 * The resource assignment of the LFS transfer routes (object GET/PUT, verify): a signed link from a
 * batch answer (`Authorization: LFS <sealed>`) admits exactly its operation on its object of its
 * repository until it expires; without one, the caller's own credentials go through the repository
 * assignment of git smart HTTP (`@RepoAccess(level, { protocol: 'git' })` on the route), as a batch does.
 * A bad or expired link is a 401 with the Basic challenge (git-lfs then asks for credentials).
 */
@Injectable()
export class LfsAccessAssignment implements ResourceAssigner {
  constructor(
    private readonly links: LfsLinks,
    private readonly repositories: RepositoriesService,
    private readonly repoAssignment: RepoAssignment,
  ) {}

  async assign(
    context: ExecutionContext,
    principal: AnyPrincipal | undefined,
    access: AccessDeclaration,
  ): Promise<void> {
    const req = context.switchToHttp().getRequest<Request>();
    let claims;
    try {
      claims = this.links.open(req.get('authorization'));
    } catch (error) {
      if (error instanceof LfsLinkError)
        throw new UnauthenticatedError(
          error.reason === 'expired' ? 'expired' : 'malformed',
          `LFS link ${error.reason}`,
          { code: 'LFS_LINK' },
        );
      throw error;
    }
    if (!claims) return this.repoAssignment.assign(context, principal, access);
    const params = req.params as { owner?: string; repo?: string; oid?: string };
    const rawRepo = params.repo ?? '';
    const resolved = await this.repositories.resolve(
      params.owner ?? '',
      rawRepo.endsWith('.git') ? rawRepo.slice(0, -4) : rawRepo,
    );
    const wanted = req.method === 'GET' || req.method === 'HEAD' ? 'download' : 'upload';
    // verify answers only whether the repository holds an object: any upload link of the repository may ask.
    const oidOk = params.oid === undefined ? req.path.endsWith('/verify') : params.oid === claims.oid;
    if (
      'redirectTo' in resolved ||
      resolved.repo.id !== claims.repositoryId ||
      claims.op !== wanted ||
      !oidOk
    )
      throw new UnauthenticatedError('malformed', 'LFS link not valid for this object', { code: 'LFS_LINK' });
    assignRepositoryContext(req, {
      repo: resolved.repo,
      owner: resolved.owner,
      mode: claims.op === 'upload' ? 'write' : 'read',
      viewer: null,
    });
  }
}
