import { Injectable } from '@nestjs/common';
import type { RequestSnapshot } from '../../platform/events/subject-events';
import { type Transaction, TransactionRunner } from '../../platform/database/transaction-runner.service';
import { JobQueue } from '../../platform/jobs/job-queue.service';
import type { User } from '../identity/entities/user.entity';
import { BranchGit, isZeroId } from './branches/branch-git';
import { PullCheckQueue } from './issues/pull-check-queue';
import type { Repository } from './entities/repository.entity';
import type { PushedRef } from './events';
import { RepositoriesRepository } from './repositories.repository';
import { RepositoriesService } from './repositories.service';

export const PUSH_JOB = 'repositories.push';

/** Who moved the refs: a `git push`, an API write (branches), a pull-request merge, a mirror sync. */
export type RefChangeSource = 'push' | 'api' | 'merge' | 'mirror';

/** A moved ref as recorded: `forced` is a non-fast-forward branch update (decided when it moved). */
export interface RecordedRef extends PushedRef {
  forced: boolean;
}

/** The payload of one `repositories.push` job: everything its reactions need, fixed at record time. */
export interface PushJobPayload {
  repositoryId: string;
  pusherId: string;
  source: RefChangeSource;
  request: RequestSnapshot | null;
  refs: RecordedRef[];
  /** When the refs moved (ISO): the time the reactions' events carry. */
  occurredAt: string;
}

export interface RefChangeInput {
  /** The repository with its `owner` loaded (the caller has it from its authorization). */
  repo: Repository;
  actor: Pick<User, 'id'>;
  source: RefChangeSource;
  request: RequestSnapshot | null;
  refs: PushedRef[];
}

/**
 * The one place where moved refs are recorded, for every path that moves them (git push through the
 * post-receive hook, API branch writes, pull-request merges, mirror syncs): the repository's row
 * (emptiness, size, default branch) and ONE durable `repositories.push` job carrying the ref changes
 * are written in one transaction, the caller's when it has one (a merge commits its rows with it).
 * The reactions (branch and tag events, workflow rules, pull-request updates) run from that job
 * (push-reactions.service.ts), so a crash after the refs moved loses none of them and git's
 * post-receive does not wait for them. After the commit `repository.pushed` is emitted in process
 * (caches of this instance).
 */
@Injectable()
export class RefChangesService {
  constructor(
    private readonly repositories: RepositoriesService,
    private readonly repositoryRows: RepositoriesRepository,
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobQueue,
    private readonly pullChecks: PullCheckQueue,
  ) {}

  /** Records the changes; answers the repository with the recorded row changes applied (not re-read). */
  async record(input: RefChangeInput, tx?: Transaction): Promise<Repository> {
    const { repo } = input;
    const gitDir = this.repositories.gitDir(repo.owner, repo);
    const refs: RecordedRef[] = [];
    for (const ref of input.refs) {
      const update = ref.ref.startsWith('refs/heads/') && !isZeroId(ref.oldId) && !isZeroId(ref.newId);
      const forced = update && !(await BranchGit.isAncestor(gitDir, ref.oldId, ref.newId).catch(() => false));
      refs.push({ ref: ref.ref, oldId: ref.oldId, newId: ref.newId, forced });
    }
    const pushedBranches = refs
      .filter((ref) => ref.ref.startsWith('refs/heads/') && !isZeroId(ref.newId))
      .map((ref) => ref.ref.slice('refs/heads/'.length));
    const movedBranches = refs
      .filter((ref) => ref.ref.startsWith('refs/heads/'))
      .map((ref) => ref.ref.slice('refs/heads/'.length));
    // Inside the caller's transaction when there is one (the embedded database serves one connection at a time).
    const changes = await this.repositories.pushChanges(repo, repo.owner, pushedBranches, tx?.manager);
    const payload: PushJobPayload = {
      repositoryId: repo.id,
      pusherId: input.actor.id,
      source: input.source,
      request: input.request,
      refs,
      occurredAt: new Date().toISOString(),
    };
    const write = async (t: Transaction): Promise<void> => {
      await this.repositoryRows.update(repo.id, changes, t.manager);
      if (refs.length > 0) await this.jobs.enqueue(t.manager, PUSH_JOB, payload);
      // The pull requests the moved branches touch show `checking` until the push job recomputed them.
      await this.pullChecks.markTouching(t.manager, repo.id, movedBranches);
      t.emit('repository.pushed', {
        repositoryId: repo.id,
        ownerId: repo.ownerId,
        repositoryName: repo.name,
        pusherId: input.actor.id,
        refs: input.refs,
      });
    };
    if (tx) await write(tx);
    else await this.transactions.run(write);
    return Object.assign(repo, changes);
  }
}
