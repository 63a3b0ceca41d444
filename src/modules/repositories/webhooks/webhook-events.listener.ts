import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { OnDomainEvent } from '../../../platform/events/event-bus.service';
import type { BranchEventPayload } from '../../../platform/events/subject-events';
import { ZERO_ID } from '../branches/branch-git';
import type { Repository } from '../entities/repository.entity';
import type { RepositoryEvents } from '../events';
import { RepositoriesService } from '../repositories.service';
import { type HookEvent, WebhookDeliveries } from './webhook-deliveries.service';
import { WebhookPayloads } from './webhook-payloads.service';

/**
 * The events repository webhooks react to. Every one reaches this listener durably: branch and tag
 * events from the push job (keyed `<job id>:<ref>`), `pull.synchronized` from it too, the issue, pull,
 * comment and release events through the outbox (`tx.emitDurable`, keyed). A listener that throws
 * makes its emitter retry, and the deliveries are unique per hook and key, so each event is queued
 * once per hook. Gitea's mapping (services/repository/push.go, services/webhook/notifier.go):
 * new branch → create + push; moved branch → push; deleted branch or tag → delete; new tag → push +
 * create; issue opened/closed/reopened → issues; pull request opened/closed/reopened/merged →
 * pull_request (merged = closed with `merged: true`); head moved → pull_request_sync (`synchronized`);
 * comment → issue_comment (pull_request_comment on a pull request); release published/deleted → release.
 */
@Injectable()
export class WebhookEventsListener {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly deliveries: WebhookDeliveries,
    private readonly payloads: WebhookPayloads,
  ) {}

  private async repo(id: string): Promise<Repository | null> {
    return this.repositories.findById(id);
  }

  private key(event: { idempotencyKey?: string }): string {
    return event.idempotencyKey ?? `unkeyed:${randomUUID()}`;
  }

  private async queue(repositoryId: string, build: (repo: Repository) => HookEvent[]): Promise<void> {
    const repo = await this.repo(repositoryId);
    if (!repo) return;
    for (const event of build(repo)) await this.deliveries.queue(repo, event);
  }

  private refEvents(
    repo: Repository,
    key: string,
    input: { ref: string; before: string; after: string; actorId: string | null },
  ): HookEvent[] {
    const branch = input.ref.startsWith('refs/heads/') ? input.ref.slice('refs/heads/'.length) : undefined;
    const created = input.before === ZERO_ID;
    const deleted = input.after === ZERO_ID;
    const events: HookEvent[] = [];
    if (deleted)
      events.push({
        type: 'delete',
        key,
        branch,
        payload: () => this.payloads.delete(repo, { ref: input.ref, actorId: input.actorId }),
      });
    else {
      if (created)
        events.push({
          type: 'create',
          key,
          branch,
          payload: () =>
            this.payloads.create(repo, { ref: input.ref, sha: input.after, actorId: input.actorId }),
        });
      events.push({
        type: 'push',
        key,
        branch,
        payload: () => this.payloads.push(repo, { ...input, pusherId: input.actorId }),
      });
    }
    return events;
  }

  private async branch(event: BranchEventPayload): Promise<void> {
    await this.queue(event.repositoryId, (repo) =>
      this.refEvents(repo, this.key(event), {
        ref: `refs/heads/${event.branch}`,
        before: event.before ?? ZERO_ID,
        after: event.after ?? ZERO_ID,
        actorId: event.actorUserId,
      }),
    );
  }

  @OnDomainEvent('branch.created')
  async branchCreated(event: BranchEventPayload): Promise<void> {
    await this.branch(event);
  }

  @OnDomainEvent('branch.updated')
  async branchUpdated(event: BranchEventPayload): Promise<void> {
    await this.branch(event);
  }

  @OnDomainEvent('branch.deleted')
  async branchDeleted(event: BranchEventPayload): Promise<void> {
    await this.branch(event);
  }

  @OnDomainEvent('tag.created')
  async tagCreated(event: RepositoryEvents['tag.created']): Promise<void> {
    await this.queue(event.repositoryId, (repo) =>
      this.refEvents(repo, this.key(event), {
        ref: `refs/tags/${event.tag}`,
        before: ZERO_ID,
        after: event.commitId,
        actorId: event.pusherId,
      }),
    );
  }

  @OnDomainEvent('tag.deleted')
  async tagDeleted(event: RepositoryEvents['tag.deleted']): Promise<void> {
    await this.queue(event.repositoryId, (repo) =>
      this.refEvents(repo, this.key(event), {
        ref: `refs/tags/${event.tag}`,
        before: event.oldCommitId,
        after: ZERO_ID,
        actorId: event.pusherId,
      }),
    );
  }

  private issueEvent(
    event: { repositoryId: string; index: string; isPull: boolean; idempotencyKey?: string },
    action: string,
    actorId: string,
  ): Promise<void> {
    const key = this.key(event);
    return this.queue(event.repositoryId, (repo) => [
      event.isPull
        ? {
            type: 'pull_request',
            key,
            payload: () => this.payloads.pull(repo, { index: event.index, action, actorId }),
          }
        : {
            type: 'issues',
            key,
            payload: () => this.payloads.issue(repo, { index: event.index, action, actorId }),
          },
    ]);
  }

  @OnDomainEvent('issue.created')
  async issueCreated(event: RepositoryEvents['issue.created']): Promise<void> {
    await this.issueEvent(event, 'opened', event.posterId);
  }

  @OnDomainEvent('issue.closed')
  async issueClosed(event: RepositoryEvents['issue.closed']): Promise<void> {
    await this.issueEvent(event, 'closed', event.actorId);
  }

  @OnDomainEvent('issue.reopened')
  async issueReopened(event: RepositoryEvents['issue.reopened']): Promise<void> {
    await this.issueEvent(event, 'reopened', event.actorId);
  }

  @OnDomainEvent('pull.merged')
  async pullMerged(event: RepositoryEvents['pull.merged']): Promise<void> {
    await this.issueEvent({ ...event, isPull: true }, 'closed', event.actorId);
  }

  @OnDomainEvent('pull.synchronized')
  async pullSynchronized(event: RepositoryEvents['pull.synchronized']): Promise<void> {
    const key = this.key(event);
    await this.queue(event.repositoryId, (repo) => [
      {
        type: 'pull_request_sync',
        key,
        payload: () =>
          this.payloads.pull(repo, { index: event.index, action: 'synchronized', actorId: event.actorId }),
      },
    ]);
  }

  @OnDomainEvent('issue.commented')
  async issueCommented(event: RepositoryEvents['issue.commented']): Promise<void> {
    const key = this.key(event);
    await this.queue(event.repositoryId, (repo) => [
      {
        type: event.isPull ? 'pull_request_comment' : 'issue_comment',
        key,
        payload: () =>
          this.payloads.comment(repo, {
            commentId: event.commentId,
            action: 'created',
            actorId: event.posterId,
          }),
      },
    ]);
  }

  @OnDomainEvent('release.published')
  async releasePublished(event: RepositoryEvents['release.published']): Promise<void> {
    const key = this.key(event);
    await this.queue(event.repositoryId, (repo) => [
      {
        type: 'release',
        key,
        payload: () =>
          this.payloads.release(repo, {
            releaseId: event.releaseId,
            tag: event.tag,
            action: 'published',
            actorId: event.actorId,
          }),
      },
    ]);
  }

  @OnDomainEvent('release.deleted')
  async releaseDeleted(event: RepositoryEvents['release.deleted']): Promise<void> {
    const key = this.key(event);
    await this.queue(event.repositoryId, (repo) => [
      {
        type: 'release',
        key,
        payload: () =>
          this.payloads.release(repo, {
            releaseId: event.releaseId,
            tag: event.tag,
            action: 'deleted',
            actorId: event.actorId,
          }),
      },
    ]);
  }
}
