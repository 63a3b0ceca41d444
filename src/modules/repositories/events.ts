/** One ref a push moved (zero id = created or deleted). */
export interface PushedRef {
  ref: string;
  oldId: string;
  newId: string;
}

/**
 * Set on events that reach durable listeners (repository webhooks): the outbox (`tx.emitDurable`) or
 * the push job gives each a key, the same on every delivery, and a listener acts once per key.
 */
interface Keyed {
  idempotencyKey?: string;
}

/**
 * Events of the repositories module (after the refs moved / after commit). Branch events are the
 * platform's subject events (`branch.created/updated/deleted`, platform/events/subject-events.ts),
 * which the workflow engine matches. The issue, pull, tag and release events are durable (emitted
 * with `tx.emitDurable` or from the push job with a key): repository webhooks react to them.
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
  'tag.created': Keyed & { repositoryId: string; tag: string; commitId: string; pusherId: string };
  'tag.deleted': Keyed & { repositoryId: string; tag: string; oldCommitId: string; pusherId: string };
  'issue.created': Keyed & {
    repositoryId: string;
    issueId: string;
    index: string;
    posterId: string;
    isPull: boolean;
  };
  'issue.closed': Keyed & {
    repositoryId: string;
    issueId: string;
    index: string;
    actorId: string;
    isPull: boolean;
  };
  'issue.reopened': Keyed & {
    repositoryId: string;
    issueId: string;
    index: string;
    actorId: string;
    isPull: boolean;
  };
  'issue.commented': Keyed & {
    repositoryId: string;
    issueId: string;
    index: string;
    commentId: string;
    posterId: string;
    isPull: boolean;
  };
  'issue.comment_deleted': { repositoryId: string; issueId: string; commentId: string; actorId: string };
  /** A pull request was merged: the base branch moved to `mergedCommitId`. */
  'pull.merged': Keyed & {
    repositoryId: string;
    issueId: string;
    index: string;
    actorId: string;
    style: string;
    mergedCommitId: string;
  };
  /** A push moved the head branch of an open pull request (after its row was brought up to date). */
  'pull.synchronized': Keyed & {
    repositoryId: string;
    issueId: string;
    index: string;
    actorId: string;
    headCommitId: string;
  };
  'release.published': Keyed & { repositoryId: string; releaseId: string; tag: string; actorId: string };
  'release.deleted': Keyed & { repositoryId: string; releaseId: string; tag: string; actorId: string };
}

declare module '../../platform/events/event-map' {
  interface DomainEventMap extends RepositoryEvents {}
}
