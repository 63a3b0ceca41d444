import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { JobQueue } from '../../../platform/jobs/job-queue.service';
import { PullsRepository } from './pulls.repository';

export const PULL_CHECK_JOB = 'repositories.pull-check';

/** The payload of one `repositories.pull-check` job: the pull requests (issue ids) to compute again. */
export interface PullCheckJobPayload {
  issueIds: string[];
}

/**
 * The mergeability queue (Gitea's `services/pull/check.go`): what can change a pull request's
 * mergeability, divergence or statistics marks it `checking` in the writing transaction and queues the
 * recomputation as a durable job; reads (GET) only show the stored state and never run git or write.
 *
 * - A push (any recorded ref change, RefChangesService): the open pull requests with a moved branch as
 *   base or head are marked `checking`; the push job (`repositories.push`) recomputes them.
 * - A branch protection rule created or edited: the open pull requests whose base the rule governs are
 *   marked `checking` and one `repositories.pull-check` job recomputes them (the job's handler lives in
 *   PushReactionsService, which calls PullsService; this class imports neither, so branch protection does
 *   not depend on pull requests).
 */
@Injectable()
export class PullCheckQueue {
  constructor(
    private readonly pulls: PullsRepository,
    private readonly jobs: JobQueue,
  ) {}

  /** Marks the open pull requests a move of `branches` of the repository touches as `checking`. */
  async markTouching(manager: EntityManager, repositoryId: string, branches: string[]): Promise<void> {
    if (branches.length === 0) return;
    await this.pulls.markTouchingChecking(manager, repositoryId, branches);
  }

  /**
   * Marks the open pull requests into the repository whose base branch satisfies `baseMatches` as
   * `checking` and queues their recomputation (in the caller's transaction). Returns how many.
   */
  async recheckOpenInto(
    manager: EntityManager,
    repositoryId: string,
    baseMatches: (baseBranch: string) => boolean,
  ): Promise<number> {
    const open = await this.pulls.openBasesInto(manager, repositoryId);
    const issueIds = open.filter((row) => baseMatches(row.baseBranch)).map((row) => row.issueId);
    if (issueIds.length === 0) return 0;
    await this.pulls.markChecking(manager, issueIds);
    await this.jobs.enqueue<PullCheckJobPayload>(manager, PULL_CHECK_JOB, { issueIds });
    return issueIds.length;
  }
}
