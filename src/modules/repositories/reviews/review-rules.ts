import type { BranchProtection } from '../branches/branch-protection.entity';
import type { RuleSubject } from '../branches/protection-rules';
import type { PullReview } from './pull-review.entity';

/** Gitea's IsOfficialReviewer: on the approvals whitelist when it is on, else a code writer. */
export function isOfficialReviewer(rule: BranchProtection | null, subject: RuleSubject): boolean {
  if (!rule) return subject.canWrite;
  if (!rule.enableApprovalsWhitelist) return subject.canWrite;
  return (
    rule.approvalsWhitelistUserIds.includes(subject.userId) ||
    rule.approvalsWhitelistTeamIds.some((id) => subject.teamIds.has(id))
  );
}

/** Which verdicts count at merge: each reviewer's newest official, undismissed approval or rejection. */
export function countVerdicts(
  reviews: PullReview[],
  options: { headCommitId: string; ignoreStale: boolean },
): { approvals: number; rejections: number } {
  let approvals = 0;
  let rejections = 0;
  for (const review of reviews) {
    if (!review.official || review.dismissed) continue;
    if (review.state === 'APPROVED') {
      if (options.ignoreStale && (review.stale || review.commitId !== options.headCommitId)) continue;
      approvals++;
    } else if (review.state === 'REQUEST_CHANGES') rejections++;
  }
  return { approvals, rejections };
}
