import { presentGiteaUser } from '../../identity/presenters/gitea-user.presenter';
import type { User } from '../../identity/entities/user.entity';
import type { RepoLinks } from '../contents/gitea-contents.presenter';
import type { PullReview, PullReviewComment } from './pull-review.entity';

const time = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

interface Context {
  links: RepoLinks;
  index: string;
  viewer: User | null;
  publicUrl: string;
}

/** Gitea `api.PullReview`. */
export function presentReview(review: PullReview, commentsCount: number, context: Context) {
  const pullUrl = `${context.links.html}/pulls/${context.index}`;
  return {
    id: Number(review.id),
    user: review.reviewer
      ? presentGiteaUser(review.reviewer, context.viewer ?? undefined, context.publicUrl)
      : null,
    team: null,
    state: review.state,
    body: review.body,
    commit_id: review.commitId,
    stale: review.stale,
    official: review.official,
    dismissed: review.dismissed,
    comments_count: commentsCount,
    submitted_at: time(review.createdAt),
    updated_at: time(review.updatedAt),
    html_url: `${pullUrl}#issuecomment-${review.id}`,
    pull_request_url: pullUrl,
  };
}

/** Gitea `api.PullReviewComment`. */
export function presentReviewComment(comment: PullReviewComment, context: Context) {
  const pullUrl = `${context.links.html}/pulls/${context.index}`;
  return {
    id: Number(comment.id),
    body: comment.body,
    user: comment.poster
      ? presentGiteaUser(comment.poster, context.viewer ?? undefined, context.publicUrl)
      : null,
    resolver: null,
    pull_request_review_id: Number(comment.reviewId),
    created_at: time(comment.createdAt),
    updated_at: time(comment.updatedAt),
    path: comment.path,
    commit_id: comment.commitId,
    original_commit_id: comment.commitId,
    diff_hunk: '',
    position: comment.line > 0 ? comment.line : 0,
    original_position: comment.line < 0 ? -comment.line : 0,
    html_url: `${pullUrl}#issuecomment-${comment.id}`,
    pull_request_url: pullUrl,
  };
}
