import type { BranchProtection } from './branches/branch-protection.entity';

/** One ref a push moved (zero id = created or deleted). */
export interface PushedRef {
  ref: string;
  oldId: string;
  newId: string;
}

/**
 * Events of the repositories module (after the refs moved / after commit). Branch events are the
 * platform's subject events (`branch.created/updated/deleted`, platform/events/subject-events.ts),
 * which the workflow engine matches.
 */
export interface RepositoryEvents {
  'repository.created': { repositoryId: string; ownerId: string; name: string; actorId: string };
  'repository.deleted': { repositoryId: string; ownerId: string; name: string; actorId: string | null };
  'repository.renamed': { repositoryId: string; ownerId: string; from: string; to: string; actorId: string };
  /** A push moved refs (post-receive). */
  'repository.pushed': {
    repositoryId: string;
    ownerId: string;
    repositoryName: string;
    pusherId: string;
    refs: PushedRef[];
  };
  'tag.created': { repositoryId: string; tag: string; commitId: string; pusherId: string };
  'tag.deleted': { repositoryId: string; tag: string; oldCommitId: string; pusherId: string };
  'issue.created': {
    repositoryId: string;
    issueId: string;
    index: string;
    posterId: string;
    isPull: boolean;
  };
  'issue.closed': { repositoryId: string; issueId: string; index: string; actorId: string; isPull: boolean };
  'issue.reopened': {
    repositoryId: string;
    issueId: string;
    index: string;
    actorId: string;
    isPull: boolean;
  };
  'issue.commented': {
    repositoryId: string;
    issueId: string;
    index: string;
    commentId: string;
    posterId: string;
    isPull: boolean;
  };
  'issue.comment_deleted': { repositoryId: string; issueId: string; commentId: string; actorId: string };
  /**
   * A branch protection rule was created or changed (after it was saved): the open pull requests
   * into the branches it governs have their mergeable state computed again (PullsService listens;
   * an event, so branch protections never call pulls back: issue 47.5).
   */
  'branch_protection.changed': { repositoryId: string; rule: BranchProtection };
  /** A pull request was merged: the base branch moved to `mergedCommitId`. */
  'pull.merged': {
    repositoryId: string;
    issueId: string;
    index: string;
    actorId: string;
    style: string;
    mergedCommitId: string;
  };
  'release.published': { repositoryId: string; releaseId: string; tag: string; actorId: string };
  'release.deleted': { repositoryId: string; releaseId: string; tag: string; actorId: string };
}

declare module '../../platform/events/event-map' {
  interface DomainEventMap extends RepositoryEvents {}
}
