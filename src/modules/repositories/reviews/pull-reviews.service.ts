import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import { ForbiddenError, InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import type { User } from '../../identity/entities/user.entity';
import { BranchProtectionsService } from '../branches/branch-protections.service';
import type { Repository } from '../entities/repository.entity';
import type { Pull } from '../issues/pulls.service';
import { type AccessMode, atLeast } from '../repository-permissions.service';
import type { PullReview, PullReviewComment, ReviewState } from './pull-review.entity';
import { PullReviewsRepository } from './pull-reviews.repository';
import { isOfficialReviewer } from './review-rules';

export interface ReviewInput {
  event: string;
  body: string;
  commitId?: string;
  comments: { path: string; body: string; newPosition?: number; oldPosition?: number }[];
}

const reviewNotFound = () => new NotFoundError('review does not exist', { code: 'REVIEW_NOT_FOUND' });

/** Pull request reviews (Gitea's routers/api/v1/repo/pull_review.go, services/pull/review.go). */
@Injectable()
export class PullReviewsService {
  constructor(
    private readonly rows: PullReviewsRepository,
    private readonly protections: BranchProtectionsService,
    private readonly transactions: TransactionRunner,
  ) {}

  list(found: Pull): Promise<PullReview[]> {
    return this.rows.ofIssue(found.issue.id);
  }

  async require(found: Pull, id: string): Promise<PullReview> {
    const review = await this.rows.findOne(found.issue.id, id);
    if (!review) throw reviewNotFound();
    return review;
  }

  commentCounts(reviews: PullReview[]): Promise<Map<string, number>> {
    return this.rows.commentCounts(reviews.map((review) => review.id));
  }

  comments(review: PullReview): Promise<PullReviewComment[]> {
    return this.rows.commentsOf(review.id);
  }

  async create(
    repo: Repository,
    found: Pull,
    reviewer: User,
    mode: AccessMode,
    input: ReviewInput,
  ): Promise<PullReview> {
    const isPoster = found.issue.posterId === reviewer.id;
    const hasComments = input.comments.length > 0;
    let state: ReviewState;
    switch (input.event) {
      case 'APPROVED':
        if (isPoster)
          throw new InvalidError('approve your own pull is not allowed', { code: 'REVIEW_OWN_PULL' });
        state = 'APPROVED';
        break;
      case 'REQUEST_CHANGES':
        if (isPoster)
          throw new InvalidError('reject your own pull is not allowed', { code: 'REVIEW_OWN_PULL' });
        if (!input.body.trim())
          throw new InvalidError('review event REQUEST_CHANGES requires a body', { code: 'REVIEW_BODY' });
        state = 'REQUEST_CHANGES';
        break;
      case 'COMMENT':
        if (!input.body.trim() && !hasComments)
          throw new InvalidError('review event COMMENT requires a body or comment', { code: 'REVIEW_BODY' });
        state = 'COMMENT';
        break;
      case '':
      case 'PENDING':
        state = 'PENDING';
        break;
      default:
        throw new InvalidError(`invalid review event: ${input.event}`, { code: 'REVIEW_EVENT' });
    }
    if (found.pull.hasMerged || found.issue.isClosed)
      throw new InvalidError('cannot review a closed or merged pull request', { code: 'PULL_MERGED' });
    const commitId = input.commitId || found.pull.headCommitId;
    let official = false;
    if (state === 'APPROVED' || state === 'REQUEST_CHANGES') {
      const rule = (await this.protections.ruleSet(repo)).effective(found.pull.baseBranch);
      official = isOfficialReviewer(rule, await this.protections.subjectOf(reviewer, repo, mode));
    }
    const id = await this.transactions.run(async (tx) => {
      if (official) await this.rows.clearOfficial(tx.manager, found.issue.id, reviewer.id);
      const saved = await this.rows.insert(
        tx.manager,
        {
          issueId: found.issue.id,
          reviewerId: reviewer.id,
          state,
          body: input.body,
          commitId,
          official,
          stale: commitId !== found.pull.headCommitId,
        },
        input.comments.map((comment) => ({
          posterId: reviewer.id,
          path: comment.path,
          body: comment.body,
          line: comment.newPosition ? comment.newPosition : -(comment.oldPosition ?? 0),
          commitId,
        })),
      );
      return saved.id;
    });
    return (await this.rows.findOne(found.issue.id, id))!;
  }

  /** Gitea: the reviewer or a repository administrator deletes a review. */
  async delete(found: Pull, review: PullReview, actor: User, mode: AccessMode): Promise<void> {
    if (review.reviewerId !== actor.id && !atLeast(mode, 'admin'))
      throw new ForbiddenError('Must be repo admin or review owner', 'permission', {
        code: 'REVIEW_FORBIDDEN',
      });
    await this.rows.delete(review.id);
  }

  /** Gitea: repository administrators dismiss approvals and rejections. */
  async dismiss(review: PullReview, mode: AccessMode, dismissed: boolean): Promise<PullReview> {
    if (!atLeast(mode, 'admin'))
      throw new ForbiddenError('Must be repo admin', 'permission', { code: 'REVIEW_FORBIDDEN' });
    if (review.state !== 'APPROVED' && review.state !== 'REQUEST_CHANGES')
      throw new InvalidError('not allow to dismiss a review that is not approve or reject', {
        code: 'REVIEW_EVENT',
      });
    await this.rows.update(review.id, { dismissed });
    return { ...review, dismissed };
  }
}
