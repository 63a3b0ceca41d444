import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { EventBus } from '../../platform/events/event-bus.service';
import type { BranchEventPayload } from '../../platform/events/subject-events';
import { type JobContext, JobQueue } from '../../platform/jobs/job-queue.service';
import { OrganizationsService } from '../identity/organizations.service';
import { isZeroId } from './branches/branch-git';
import { PULL_CHECK_JOB, type PullCheckJobPayload } from './issues/pull-check-queue';
import { PullsService } from './issues/pulls.service';
import { PUSH_JOB, type PushJobPayload } from './ref-changes.service';
import { REPOSITORIES_CONFIG, type RepositoriesConfig } from './repositories.config';
import { RepositoriesService } from './repositories.service';

/**
 * The reactions to recorded ref changes (RefChangesService), run by the durable `repositories.push`
 * job: at least once, so each reaction is idempotent per (push job, reaction):
 * - `events`: `branch.created/updated/deleted` and `tag.created/deleted`, awaited. Branch events carry
 *   `idempotencyKey` = `<job id>:<ref>`: the workflow engine queues a rule's webhook once per key, so a
 *   retried job does not fire a webhook twice. A listener that fails with a keyed event fails the run
 *   (it is retried).
 * - `pulls`: open pull requests with a moved branch as base or head (marked `checking` when the refs were
 *   recorded) are brought up to date (a recomputation: the same result however often it runs).
 * It also runs the `repositories.pull-check` jobs (PullCheckQueue: rechecks after a protection rule change).
 */
@Injectable()
export class PushReactionsService implements OnModuleInit {
  private readonly logger = new Logger(PushReactionsService.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly repositories: RepositoriesService,
    private readonly organizations: OrganizationsService,
    private readonly events: EventBus,
    private readonly pulls: PullsService,
    @Inject(REPOSITORIES_CONFIG) private readonly config: RepositoriesConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register<PushJobPayload>(PUSH_JOB, (job) => this.run(job), {
      maxAttempts: 10,
      backoffMs: 1_000,
      maxBackoffMs: 600_000,
      leaseMs: this.config.pushReactionsLeaseMs,
    });
    // The mergeability queue's other feed (PullCheckQueue): pull requests a protection rule change governs.
    this.jobs.register<PullCheckJobPayload>(
      PULL_CHECK_JOB,
      async (job) => {
        await this.pulls.recheck(job.payload.issueIds);
      },
      { maxAttempts: 10, backoffMs: 1_000, maxBackoffMs: 600_000, leaseMs: this.config.pushReactionsLeaseMs },
    );
  }

  async run(job: JobContext<PushJobPayload>): Promise<void> {
    const push = job.payload;
    const repo = await this.repositories.findById(push.repositoryId);
    if (!repo) return; // deleted since: nothing to react on
    const ownerUserIds =
      repo.owner.type === 'organization' ? await this.organizations.ownerIdsOf(repo.ownerId) : [repo.ownerId];
    const fullName = `${repo.owner.name}/${repo.name}`;
    for (const { ref, oldId, newId, forced } of push.refs) {
      const created = isZeroId(oldId);
      const deleted = isZeroId(newId);
      if (ref.startsWith('refs/heads/')) {
        const base: BranchEventPayload = {
          actorUserId: push.pusherId,
          ownerUserIds,
          request: push.request,
          occurredAt: push.occurredAt,
          idempotencyKey: `${job.id}:${ref}`,
          repositoryId: repo.id,
          repository: fullName,
          branch: ref.slice('refs/heads/'.length),
        };
        if (created) await this.events.emitAsync('branch.created', { ...base, after: newId });
        else if (deleted) await this.events.emitAsync('branch.deleted', { ...base, before: oldId });
        else await this.events.emitAsync('branch.updated', { ...base, before: oldId, after: newId, forced });
      } else if (ref.startsWith('refs/tags/')) {
        const tag = {
          repositoryId: repo.id,
          pusherId: push.pusherId,
          tag: ref.slice('refs/tags/'.length),
          idempotencyKey: `${job.id}:${ref}`,
        };
        if (deleted) await this.events.emitAsync('tag.deleted', { ...tag, oldCommitId: oldId });
        else await this.events.emitAsync('tag.created', { ...tag, commitId: newId });
      }
    }
    const branches = push.refs
      .filter((r) => r.ref.startsWith('refs/heads/'))
      .map((r) => r.ref.slice('refs/heads/'.length));
    const refreshed = await this.pulls.refreshAfterPush(repo.id, branches);
    // Open pull requests whose head branch this push moved (not created or deleted): `pull.synchronized`
    // (repository webhooks' pull_request "synchronized"), keyed per push job and pull request.
    const movedHeads = new Set(
      push.refs
        .filter((r) => r.ref.startsWith('refs/heads/') && !isZeroId(r.oldId) && !isZeroId(r.newId))
        .map((r) => r.ref.slice('refs/heads/'.length)),
    );
    for (const pull of refreshed) {
      if (pull.headRepositoryId !== repo.id || !movedHeads.has(pull.headBranch)) continue;
      await this.events.emitAsync('pull.synchronized', {
        repositoryId: pull.issue.repositoryId,
        issueId: pull.issueId,
        index: pull.issue.index,
        actorId: push.pusherId,
        headCommitId: pull.headCommitId,
        idempotencyKey: `${job.id}:sync:${pull.issueId}`,
      });
    }
    this.logger.debug(
      { repositoryId: repo.id, refs: push.refs.length, pulls: refreshed.length, jobId: job.id },
      'push reactions ran',
    );
  }
}
