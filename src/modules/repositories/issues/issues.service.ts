import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import { ForbiddenError, InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import type { User } from '../../identity/entities/user.entity';
import type { Repository } from '../entities/repository.entity';
import { type AccessMode, atLeast } from '../repository-permissions.service';
import { ContentDeletionHooks } from '../content-deletion-hooks';
import type { Comment } from './comment.entity';
import type { Issue } from './issue.entity';
import { IssuesRepository } from './issues.repository';

export type IssueState = 'open' | 'closed' | 'all';

export interface IssueListQuery {
  state: IssueState;
  /** `issues`, `pulls` or both (undefined). */
  type?: 'issues' | 'pulls';
  keyword?: string;
  /** Issues carrying every one of these labels. */
  labelIds?: string[];
  /** Issues in one of these milestones. */
  milestoneIds?: string[];
  limit: number;
  offset: number;
}

export interface EditIssueInput {
  title?: string;
  body?: string;
  state?: 'open' | 'closed';
}

export const ISSUE_WRITE_REFUSAL = 'user should have permission to write issue';
export const COMMENT_EDIT_REFUSAL = 'user should have permission to edit comment';

export function issueNotFound(): NotFoundError {
  return new NotFoundError('issue does not exist', { code: 'ISSUE_NOT_FOUND' });
}

export function commentNotFound(): NotFoundError {
  return new NotFoundError('no matching issue comment found', { code: 'COMMENT_NOT_FOUND' });
}

/** Gitea's rule for changing an issue (and its attachments): the poster, or whoever may write. */
export function mayWriteIssue(user: User | null, issue: Issue, mode: AccessMode): boolean {
  return user !== null && (issue.posterId === user.id || atLeast(mode, 'write'));
}

/** Gitea's rule for changing a comment (and its attachments): its poster, or a repository administrator. */
export function mayEditComment(user: User | null, comment: Comment, mode: AccessMode): boolean {
  return (
    user !== null &&
    (comment.posterId === user.id || atLeast(mode, 'admin') || (atLeast(mode, 'write') && user.isAdmin))
  );
}

/** Why an issue title is refused (Gitea's binding messages), null when it is fine. */
export function issueTitleProblem(title: string): string | null {
  if (title.trim() === '') return '[Title]: Required';
  if ([...title].length > 255) return '[Title]: MaxSize';
  return null;
}

/**
 * Issues and their comments. Issues and pull requests share the per-repository `index`: the next
 * one is allocated under a lock on the repository row, in the transaction that inserts the issue.
 */
@Injectable()
export class IssuesService {
  constructor(
    private readonly rows: IssuesRepository,
    private readonly transactions: TransactionRunner,
    private readonly deletionHooks: ContentDeletionHooks,
  ) {}

  /** Inserts an issue (or the issue half of a pull request) with the next index of the repository. */
  async insert(
    manager: EntityManager,
    repo: Repository,
    poster: User,
    fields: { title: string; body: string; isPull: boolean; closed?: boolean },
  ): Promise<Issue> {
    const problem = issueTitleProblem(fields.title);
    if (problem) throw new InvalidError(problem, { code: 'ISSUE_TITLE' });
    const index = await this.rows.lockNextIndex(manager, repo.id);
    const now = new Date();
    const saved = await this.rows.insertIssue(manager, {
      repositoryId: repo.id,
      index,
      posterId: poster.id,
      title: fields.title,
      body: fields.body,
      isPull: fields.isPull,
      isClosed: fields.closed ?? false,
      closedAt: fields.closed ? now : null,
    });
    saved.poster = poster;
    return saved;
  }

  async create(
    repo: Repository,
    poster: User,
    input: { title: string; body?: string; closed?: boolean },
  ): Promise<Issue> {
    return this.transactions.run(async (tx) => {
      const issue = await this.insert(tx.manager, repo, poster, {
        title: input.title,
        body: input.body ?? '',
        isPull: false,
        closed: input.closed,
      });
      tx.emitDurable('issue.created', {
        repositoryId: repo.id,
        issueId: issue.id,
        index: issue.index,
        posterId: poster.id,
        isPull: false,
      });
      return issue;
    });
  }

  async list(repo: Repository, query: IssueListQuery): Promise<{ items: Issue[]; total: number }> {
    const [items, total] = await this.rows.list({
      repositoryId: repo.id,
      closed: query.state === 'all' ? undefined : query.state === 'closed',
      isPull: query.type ? query.type === 'pulls' : undefined,
      keyword: query.keyword,
      labelIds: query.labelIds,
      milestoneIds: query.milestoneIds,
      limit: query.limit,
      offset: query.offset,
    });
    return { items, total };
  }

  async find(repo: Repository, index: string): Promise<Issue | null> {
    if (!/^\d{1,18}$/.test(index)) return null;
    return this.rows.findByIndex(repo.id, index);
  }

  async require(repo: Repository, index: string): Promise<Issue> {
    const issue = await this.find(repo, index);
    if (!issue) throw issueNotFound();
    return issue;
  }

  async edit(
    repo: Repository,
    issue: Issue,
    actor: User,
    mode: AccessMode,
    input: EditIssueInput,
  ): Promise<Issue> {
    if (!mayWriteIssue(actor, issue, mode)) throw new ForbiddenError(ISSUE_WRITE_REFUSAL);
    if (input.title !== undefined) {
      const problem = issueTitleProblem(input.title);
      if (problem) throw new InvalidError(problem, { code: 'ISSUE_TITLE' });
    }
    return this.transactions.run(async (tx) => {
      const changes: Partial<Issue> = {};
      if (input.title !== undefined) changes.title = input.title;
      if (input.body !== undefined) changes.body = input.body;
      let stateChange: 'closed' | 'reopened' | null = null;
      if (input.state !== undefined && (input.state === 'closed') !== issue.isClosed) {
        changes.isClosed = input.state === 'closed';
        changes.closedAt = changes.isClosed ? new Date() : null;
        stateChange = changes.isClosed ? 'closed' : 'reopened';
      }
      if (Object.keys(changes).length) await this.rows.updateIssue(tx.manager, issue.id, changes);
      const updated = await this.rows.findIssueWithPoster(tx.manager, issue.id);
      if (stateChange)
        tx.emitDurable(`issue.${stateChange}`, {
          repositoryId: repo.id,
          issueId: issue.id,
          index: issue.index,
          actorId: actor.id,
          isPull: issue.isPull,
        });
      return updated;
    });
  }

  /** Sets (or clears, null) the milestone of an issue or pull request; the caller checked write access. */
  async setMilestone(issue: Issue, milestoneId: string | null): Promise<void> {
    if (issue.milestoneId === milestoneId) return;
    await this.transactions.run((tx) => this.rows.updateIssue(tx.manager, issue.id, { milestoneId }));
    issue.milestoneId = milestoneId;
  }

  /** Marks the issue as updated (an attachment or comment changed it). */
  async touch(manager: EntityManager, issueId: string): Promise<void> {
    await this.rows.updateIssue(manager, issueId, { updatedAt: new Date() });
  }

  // ---- comments ----

  async comment(
    repo: Repository,
    issue: Issue,
    poster: User,
    mode: AccessMode,
    body: string,
  ): Promise<Comment> {
    if (issue.isLocked && !atLeast(mode, 'write'))
      throw new ForbiddenError('Unable to create comment because the issue is locked');
    if (body.trim() === '') throw new InvalidError('[Body]: Required', { code: 'COMMENT_BODY' });
    return this.transactions.run(async (tx) => {
      const saved = await this.rows.insertComment(tx.manager, {
        issueId: issue.id,
        posterId: poster.id,
        body,
      });
      tx.emitDurable('issue.commented', {
        repositoryId: repo.id,
        issueId: issue.id,
        index: issue.index,
        commentId: saved.id,
        posterId: poster.id,
        isPull: issue.isPull,
      });
      saved.poster = poster;
      return saved;
    });
  }

  async listComments(issue: Issue): Promise<Comment[]> {
    return this.rows.commentsOf(issue.id);
  }

  async listRepositoryComments(
    repo: Repository,
    paging: { limit: number; offset: number },
  ): Promise<{ items: { comment: Comment; issue: Issue }[]; total: number }> {
    const [comments, total] = await this.rows.repositoryComments(repo.id, paging);
    return { items: comments.map((comment) => ({ comment, issue: comment.issue })), total };
  }

  /** A comment of an issue of this repository, else 404 `no matching issue comment found`. */
  async requireComment(repo: Repository, id: string): Promise<{ comment: Comment; issue: Issue }> {
    if (!/^\d{1,18}$/.test(id)) throw commentNotFound();
    const comment = await this.rows.findCommentWithIssue(id);
    if (!comment || comment.issue.repositoryId !== repo.id) throw commentNotFound();
    return { comment, issue: comment.issue };
  }

  async editComment(comment: Comment, actor: User, mode: AccessMode, body: string): Promise<Comment> {
    if (!mayEditComment(actor, comment, mode)) throw new ForbiddenError(COMMENT_EDIT_REFUSAL);
    if (body.trim() === '') throw new InvalidError('[Body]: Required', { code: 'COMMENT_BODY' });
    return this.rows.updateCommentBody(comment.id, body);
  }

  async deleteComment(repo: Repository, comment: Comment, actor: User, mode: AccessMode): Promise<void> {
    if (!mayEditComment(actor, comment, mode)) throw new ForbiddenError(COMMENT_EDIT_REFUSAL);
    await this.transactions.run(async (tx) => {
      await this.deletionHooks.run(tx, { kind: 'comment', id: comment.id });
      await this.rows.deleteComment(tx.manager, comment.id, comment.issueId);
      tx.emit('issue.comment_deleted', {
        repositoryId: repo.id,
        issueId: comment.issueId,
        commentId: comment.id,
        actorId: actor.id,
      });
    });
  }
}
