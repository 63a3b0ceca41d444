/**
 * Pull requests for the modules that open or report on them (chats, issue 19.7): a port of the
 * platform implemented by the repositories module, absent when it is not loaded.
 */
export interface OpenPullRequestInput {
  /** `owner/name` of the base repository. */
  repository: string;
  /** `branch`, `owner:branch` or `owner/repo:branch` (Gitea's head). */
  head: string;
  base: string;
  title: string;
  body?: string;
}

export interface PullRequestFacts {
  /** The pull request's issue id (stable; what links keep). */
  issueId: string;
  repositoryId: string;
  /** `owner/name`. */
  repository: string;
  number: number;
  title: string;
  htmlUrl: string;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  baseBranch: string;
  headBranch: string;
  additions: number;
  deletions: number;
  changedFiles: number;
  commits: number;
  authorLogin: string | null;
  authorAvatarUrl: string | null;
  createdAt: Date;
  mergedAt: Date | null;
  closedAt: Date | null;
}

export abstract class PullRequests {
  /**
   * Opens a pull request as the user (internal id), with the repositories module's rules (the base
   * readable by the user, both branches existing, no open duplicate); rejects with its domain errors.
   */
  abstract open(userId: string, input: OpenPullRequestInput): Promise<PullRequestFacts>;
  /** The current facts of the pull requests (by issue id); ids of deleted pulls are absent. */
  abstract describe(issueIds: string[]): Promise<Map<string, PullRequestFacts>>;
}
