import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../../../platform/errors/domain-error';
import type { Repository } from '../entities/repository.entity';
import { GitStorage } from '../git/git-storage.service';
import { runGit } from '../git/run-git';
import { PullsService } from './pulls.service';

export const PULL_DIFF_TYPES = ['diff', 'patch'] as const;
export type PullDiffType = (typeof PULL_DIFF_TYPES)[number];

/**
 * A pull request as a unified diff or as mailbox patches (Gitea's `pulls/{index}.diff|.patch`, the
 * pull's `diff_url` and `patch_url`): from the merge base to the head commit, so a merged pull
 * request keeps the diff it had.
 */
@Injectable()
export class PullDiffsService {
  constructor(
    private readonly pulls: PullsService,
    private readonly storage: GitStorage,
  ) {}

  async render(repo: Repository, index: string, type: PullDiffType, binary: boolean): Promise<string> {
    const { pull } = await this.pulls.require(repo, index);
    if (!pull.mergeBase || !pull.headCommitId)
      throw new NotFoundError('The pull request has no commits to compare.');
    const gitDir = this.storage.pathOf(repo.owner.name, repo.name);
    const args =
      type === 'diff'
        ? ['diff', '-M', ...(binary ? ['--binary'] : []), pull.mergeBase, pull.headCommitId]
        : ['format-patch', '--stdout', '--binary', `${pull.mergeBase}..${pull.headCommitId}`];
    return runGit(args, { env: { GIT_DIR: gitDir } });
  }
}
