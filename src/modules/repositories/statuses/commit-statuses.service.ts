import { Injectable } from '@nestjs/common';
import { InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import type { User } from '../../identity/entities/user.entity';
import { ContentsService } from '../contents/contents.service';
import type { Repository } from '../entities/repository.entity';
import { COMMIT_STATUS_STATES, type CommitStatus, type CommitStatusState } from './commit-status.entity';
import { latestPerContext } from './status-rules';
import { CommitStatusesRepository } from './commit-statuses.repository';

/** Commit statuses (Gitea's routers/api/v1/repo/status.go). */
@Injectable()
export class CommitStatusesService {
  constructor(
    private readonly rows: CommitStatusesRepository,
    private readonly contents: ContentsService,
  ) {}

  async create(
    repo: Repository,
    creator: User,
    sha: string,
    input: { state: string; context?: string; description?: string; targetUrl?: string },
  ): Promise<CommitStatus> {
    if (!(COMMIT_STATUS_STATES as readonly string[]).includes(input.state))
      throw new InvalidError(`invalid state: ${input.state}`, { code: 'STATUS_STATE' });
    const resolved = await this.contents.tryResolve(repo, sha);
    if (!resolved)
      throw new NotFoundError(`object does not exist [id: ${sha}, rel_path: ]`, { code: 'COMMIT_NOT_FOUND' });
    return this.rows.insert({
      repositoryId: repo.id,
      sha: resolved.commit,
      state: input.state as CommitStatusState,
      context: input.context || 'default',
      description: input.description ?? '',
      targetUrl: input.targetUrl ?? '',
      creatorId: creator.id,
    });
  }

  /** Every status of the commit `ref` names, newest first, and its sha. */
  async ofRef(repo: Repository, ref: string): Promise<{ sha: string; statuses: CommitStatus[] }> {
    const resolved = await this.contents.tryResolve(repo, ref);
    if (!resolved)
      throw new NotFoundError(`object does not exist [id: ${ref}, rel_path: ]`, { code: 'COMMIT_NOT_FOUND' });
    return { sha: resolved.commit, statuses: await this.rows.ofCommit(repo.id, resolved.commit) };
  }

  /** The newest status per context of a commit (the merge check and the combined status). */
  async latest(repositoryId: string, sha: string): Promise<CommitStatus[]> {
    return latestPerContext(await this.rows.ofCommit(repositoryId, sha));
  }
}
