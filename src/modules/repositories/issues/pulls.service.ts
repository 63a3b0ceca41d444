import { BranchProtectionsService } from '../branches/branch-protections.service';
import { RefUpdateChecks } from '../branches/ref-update-checks.service';
import { Injectable, Logger } from '@nestjs/common';
import path from 'node:path';
import type { EntityManager } from 'typeorm';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotAllowedError,
  NotFoundError,
} from '../../../platform/errors/domain-error';
import type { User } from '../../identity/entities/user.entity';
import { UsersService } from '../../identity/users.service';
import type { Repository } from '../entities/repository.entity';
import { GitStorage } from '../git/git-storage.service';
import { runGit } from '../git/run-git';
import { RepositoriesService } from '../repositories.service';
import { RefChangesService } from '../ref-changes.service';
import { ZERO_ID } from '../branches/branch-git';
import type { PushedRef } from '../events';
import { type AccessMode, atLeast, RepositoryPermissions } from '../repository-permissions.service';
import type { Issue } from './issue.entity';
import { IssuesService, mayWriteIssue, ISSUE_WRITE_REFUSAL } from './issues.service';
import { type DiffStat, type MergeStyle, MergeRefusedError, PullGit } from './pull-git';
import type { PullRequest } from './pull-request.entity';
import { PullsRepository } from './pulls.repository';

export interface CreatePullInput {
  /** `branch`, `owner:branch` or `owner/repo:branch`. */
  head: string;
  base: string;
  title: string;
  body?: string;
}

export interface EditPullInput {
  title?: string;
  body?: string;
  state?: 'open' | 'closed';
  base?: string;
}

export interface MergeInput {
  style: MergeStyle;
  title?: string;
  message?: string;
  headCommitId?: string;
  deleteBranchAfterMerge?: boolean;
}

export interface Pull {
  issue: Issue;
  pull: PullRequest;
}

function statColumns(
  stat: DiffStat | null,
): Pick<PullRequest, 'additions' | 'deletions' | 'changedFiles' | 'commitsCount'> {
  return {
    additions: stat?.additions ?? null,
    deletions: stat?.deletions ?? null,
    changedFiles: stat?.changedFiles ?? null,
    commitsCount: stat?.commits ?? null,
  };
}

export function pullNotFound(): NotFoundError {
  return new NotFoundError('pull request does not exist', { code: 'PULL_NOT_FOUND' });
}

/**
 * Pull requests: an `Issue` (shared index) plus its `PullRequest` row. Head and base are branches of
 * this repository or of a fork in the same family; mergeability is recomputed whenever the head or
 * base commit differs from the one it was computed for; merges write real commits (PullGit).
 */
@Injectable()
export class PullsService {
  private readonly logger = new Logger(PullsService.name);

  constructor(
    private readonly pulls: PullsRepository,
    private readonly issuesService: IssuesService,
    private readonly repositories: RepositoriesService,
    private readonly permissions: RepositoryPermissions,
    private readonly users: UsersService,
    private readonly storage: GitStorage,
    private readonly transactions: TransactionRunner,
    private readonly refChanges: RefChangesService,
    private readonly protections: BranchProtectionsService,
    private readonly refChecks: RefUpdateChecks,
  ) {}

  private branchProtections(): BranchProtectionsService {
    return this.protections;
  }

  private refUpdateChecks(): RefUpdateChecks {
    return this.refChecks;
  }

  /** The head repository named by `head` (`branch`, `owner:branch`, `owner/repo:branch`), readable by the caller. */
  private async resolveHead(
    base: Repository,
    viewer: User,
    head: string,
  ): Promise<{ repo: Repository; branch: string }> {
    const colon = head.indexOf(':');
    if (colon < 0) return { repo: base, branch: head };
    const qualifier = head.slice(0, colon);
    const branch = head.slice(colon + 1);
    const [ownerName, repoName] = qualifier.split('/', 2);
    const owner = await this.users.findAccountByName(ownerName);
    if (!owner)
      throw new NotFoundError('head repository does not exist', { code: 'HEAD_REPOSITORY_NOT_FOUND' });
    let repo: Repository | null = null;
    if (repoName)
      repo = await this.pulls.findRepositoryWithOwner({
        ownerId: owner.id,
        lowerName: repoName.toLowerCase(),
      });
    else if (owner.id === base.ownerId) repo = base;
    else {
      repo =
        (await this.pulls.findRepositoryWithOwner({ ownerId: owner.id, forkId: base.id })) ??
        (base.forkId
          ? await this.pulls.findRepositoryWithOwner({ ownerId: owner.id, id: base.forkId })
          : null);
    }
    const related =
      repo &&
      (repo.id === base.id ||
        repo.forkId === base.id ||
        base.forkId === repo.id ||
        (repo.forkId !== null && repo.forkId === base.forkId));
    if (!repo || !related || !atLeast(await this.permissions.modeOf(viewer, repo), 'read')) {
      throw new NotFoundError('head repository does not exist', { code: 'HEAD_REPOSITORY_NOT_FOUND' });
    }
    return { repo, branch };
  }

  private gitDirOf(repo: Repository): string {
    return this.storage.pathOf(repo.owner.name, repo.name);
  }

  async create(base: Repository, poster: User, input: CreatePullInput): Promise<Pull> {
    if (input.title.trim() === '') throw new InvalidError('[Title]: Required', { code: 'ISSUE_TITLE' });
    const head = await this.resolveHead(base, poster, input.head);
    const baseDir = this.gitDirOf(base);
    const baseSha = await PullGit.revParse(baseDir, `refs/heads/${input.base}`);
    if (!baseSha) throw new NotFoundError('base branch does not exist', { code: 'BASE_BRANCH_NOT_FOUND' });
    const headDir = this.gitDirOf(head.repo);
    const headSha = await PullGit.revParse(headDir, `refs/heads/${head.branch}`);
    if (!headSha) throw new NotFoundError('head branch does not exist', { code: 'HEAD_BRANCH_NOT_FOUND' });
    if (head.repo.id === base.id && head.branch === input.base) {
      throw new InvalidError('Invalid PullRequest: There are no changes between the head and the base', {
        code: 'PULL_SAME_BRANCH',
      });
    }
    const existing = await this.pulls.findOpenDuplicate({
      baseRepositoryId: base.id,
      headRepositoryId: head.repo.id,
      headBranch: head.branch,
      baseBranch: input.base,
    });
    if (existing) {
      throw new ConflictError(
        `pull request already exists for these targets [id: ${existing.issueId}, issue_id: ${existing.issueId}, head_repo_id: ${head.repo.id}, base_repo_id: ${base.id}, head_branch: ${head.branch}, base_branch: ${input.base}]`,
        { code: 'PULL_EXISTS' },
      );
    }
    const created = await this.transactions.run(async (tx) => {
      const issue = await this.issuesService.insert(tx.manager, base, poster, {
        title: input.title,
        body: input.body ?? '',
        isPull: true,
      });
      const syncedHead = await PullGit.syncHead(baseDir, headDir, head.branch, issue.index);
      tx.onRollback(() =>
        runGit(['update-ref', '-d', `refs/pull/${issue.index}/head`], { env: { GIT_DIR: baseDir } }).then(
          () => undefined,
        ),
      );
      const check = syncedHead
        ? await PullGit.check(baseDir, baseSha, syncedHead)
        : { status: 'checking' as const, mergeBase: '' };
      const stat = syncedHead ? await PullGit.diffStat(baseDir, check.mergeBase, syncedHead) : null;
      const pull = await this.pulls.insert(tx.manager, {
        issueId: issue.id,
        headRepositoryId: head.repo.id,
        headBranch: head.branch,
        baseBranch: input.base,
        headCommitId: syncedHead ?? headSha,
        baseCommitId: baseSha,
        mergeBase: check.mergeBase,
        status: check.status,
        ...statColumns(stat),
      });
      tx.emitDurable('issue.created', {
        repositoryId: base.id,
        issueId: issue.id,
        index: issue.index,
        posterId: poster.id,
        isPull: true,
      });
      return { issue, pull };
    });
    created.pull.headRepository = head.repo;
    return created;
  }

  /**
   * One page of pull requests with their stored state: no git runs and nothing is written here (the
   * mergeability queue keeps the rows current, PullCheckQueue). Three queries per page: the issues (and
   * their count), the pull rows, and the head repositories other than `repo` (once each).
   */
  async list(
    repo: Repository,
    query: {
      state: 'open' | 'closed' | 'all';
      labelIds?: string[];
      milestoneIds?: string[];
      limit: number;
      offset: number;
    },
  ): Promise<{ items: Pull[]; total: number }> {
    const { items, total } = await this.issuesService.list(repo, { ...query, type: 'pulls' });
    const pulls = await this.ofIssues(repo, items);
    return { items: pulls, total };
  }

  /** The pull requests of a page of issues of `repo` (stored state, no git), in the issues' order. */
  async ofIssues(repo: Repository, issues: Issue[]): Promise<Pull[]> {
    const pullIssues = issues.filter((issue) => issue.isPull);
    if (pullIssues.length === 0) return [];
    const rows = await this.pulls.ofIssues(pullIssues.map((issue) => issue.id));
    const foreign = [
      ...new Set(
        rows.map((row) => row.headRepositoryId).filter((id): id is string => !!id && id !== repo.id),
      ),
    ];
    const heads = new Map((await this.pulls.repositoriesWithOwner(foreign)).map((head) => [head.id, head]));
    heads.set(repo.id, repo);
    const byIssue = new Map(rows.map((row) => [row.issueId, row]));
    const pulls: Pull[] = [];
    for (const issue of pullIssues) {
      const pull = byIssue.get(issue.id);
      if (!pull) continue;
      pull.headRepository = pull.headRepositoryId ? (heads.get(pull.headRepositoryId) ?? null) : null;
      pulls.push({ issue, pull });
    }
    return pulls;
  }

  /** A pull request with its stored state (no git, no write: PullCheckQueue keeps it current). */
  async find(repo: Repository, index: string): Promise<Pull | null> {
    const issue = await this.issuesService.find(repo, index);
    if (!issue?.isPull) return null;
    const pull = await this.pulls.ofIssue(issue.id);
    if (!pull) return null;
    return { issue, pull };
  }

  async require(repo: Repository, index: string): Promise<Pull> {
    const found = await this.find(repo, index);
    if (!found) throw pullNotFound();
    return found;
  }

  /**
   * Brings the stored head and base commits and the mergeability up to date when either branch
   * moved (open, unmerged pull requests only).
   */
  async refresh(base: Repository, issue: Issue, pull: PullRequest): Promise<PullRequest> {
    if (pull.hasMerged || issue.isClosed || !pull.headRepository) return this.withStats(base, pull);
    const baseDir = this.gitDirOf(base);
    const baseSha = await PullGit.revParse(baseDir, `refs/heads/${pull.baseBranch}`);
    const headSha = await PullGit.syncHead(
      baseDir,
      this.gitDirOf(pull.headRepository),
      pull.headBranch,
      issue.index,
    );
    if (!baseSha || !headSha) return pull;
    if (baseSha === pull.baseCommitId && headSha === pull.headCommitId && pull.status !== 'checking')
      return this.withStats(base, pull);
    const check = await PullGit.check(baseDir, baseSha, headSha);
    const changes = {
      baseCommitId: baseSha,
      headCommitId: headSha,
      mergeBase: check.mergeBase,
      status: check.status,
      ...statColumns(await PullGit.diffStat(baseDir, check.mergeBase, headSha)),
    };
    await this.pulls.update(pull.issueId, changes);
    return Object.assign(pull, changes);
  }

  /** Computes the diff statistics of a pull request that has none yet (rows from before they existed). */
  private async withStats(base: Repository, pull: PullRequest): Promise<PullRequest> {
    if (pull.additions !== null || !pull.mergeBase || !pull.headCommitId) return pull;
    const stat = await PullGit.diffStat(this.gitDirOf(base), pull.mergeBase, pull.headCommitId).catch(
      (error: unknown) => {
        this.logger.warn({ err: error }, 'could not compute the diff statistics of a pull request');
        return null;
      },
    );
    if (!stat) return pull;
    const changes = statColumns(stat);
    await this.pulls.update(pull.issueId, changes);
    return Object.assign(pull, changes);
  }

  /**
   * The `repositories.pull-check` job (PullCheckQueue): the open pull requests among `issueIds`, marked
   * `checking` when queued, get their commits, mergeability and statistics computed again.
   */
  async recheck(issueIds: string[]): Promise<number> {
    const open = await this.pulls.openWithContext(issueIds);
    for (const pull of open) {
      pull.status = 'checking';
      await this.refresh(pull.issue.repository, pull.issue, pull);
    }
    return open.length;
  }

  /**
   * A push moved `branches` of the repository: the open pull requests with one of them as base or head
   * get their commits, mergeability and statistics brought up to date (a reaction of the push job; the
   * result is the same however often it runs).
   */
  async refreshAfterPush(repositoryId: string, branches: string[]): Promise<PullRequest[]> {
    if (branches.length === 0) return [];
    const touched = await this.pulls.openTouching(repositoryId, branches);
    for (const pull of touched) await this.refresh(pull.issue.repository, pull.issue, pull);
    return touched;
  }

  /** Whether an open pull request targets `branch` of `repo` (such a branch cannot be deleted). */
  async isOpenTarget(repo: Repository, branch: string): Promise<boolean> {
    return this.pulls.isOpenTarget(repo.id, branch);
  }

  /** A branch of `repo` was renamed: open pull requests follow it, as base (into `repo`) and as head (from `repo`). */
  async followBranchRename(
    manager: EntityManager,
    repo: Repository,
    from: string,
    to: string,
  ): Promise<void> {
    await this.pulls.followBranchRename(manager, repo.id, from, to);
  }

  async edit(
    repo: Repository,
    found: Pull,
    actor: User,
    mode: AccessMode,
    input: EditPullInput,
  ): Promise<Pull> {
    if (!mayWriteIssue(actor, found.issue, mode)) throw new ForbiddenError(ISSUE_WRITE_REFUSAL);
    if (input.base !== undefined && input.base !== found.pull.baseBranch) {
      if (!atLeast(mode, 'write')) throw new ForbiddenError(ISSUE_WRITE_REFUSAL);
      if (found.pull.hasMerged)
        throw new InvalidError('Cannot change base branch of a merged pull request', { code: 'PULL_MERGED' });
      if (!(await PullGit.revParse(this.gitDirOf(repo), `refs/heads/${input.base}`)))
        throw new NotFoundError('base branch does not exist', { code: 'BASE_BRANCH_NOT_FOUND' });
      await this.pulls.update(found.pull.issueId, { baseBranch: input.base, status: 'checking' });
      found.pull.baseBranch = input.base;
      found.pull.status = 'checking';
    }
    if (input.state === 'open' && found.pull.hasMerged)
      throw new ConflictError('cannot reopen a merged pull request', { code: 'PULL_MERGED' });
    const issue = await this.issuesService.edit(repo, found.issue, actor, mode, {
      title: input.title,
      body: input.body,
      state: input.state,
    });
    return { issue, pull: await this.refresh(repo, issue, found.pull) };
  }

  /** Gitea's merge: 405 when merged or not mergeable, 409 on conflicts or a stale head; the base branch moves. */
  async merge(
    repo: Repository,
    found: Pull,
    actor: User,
    mode: AccessMode,
    input: MergeInput,
  ): Promise<Pull> {
    if (!atLeast(mode, 'write'))
      throw new NotAllowedError('User not allowed to merge PR', { code: 'PULL_MERGE_FORBIDDEN' });
    // Reads show the stored state; a merge (a write) brings it up to date first, as a push queued it.
    const issue = found.issue;
    const pull = await this.refresh(repo, issue, found.pull);
    if (pull.hasMerged) throw new NotAllowedError('The PR is already merged', { code: 'PULL_MERGED' });
    if (issue.isClosed) throw pullNotFound();
    if (pull.status === 'empty' && input.style !== 'merge')
      throw new NotAllowedError('Please try again later', { code: 'PULL_NOT_MERGEABLE' });
    if (pull.status === 'conflict' || pull.status === 'checking')
      throw new NotAllowedError('Please try again later', { code: 'PULL_NOT_MERGEABLE' });
    if (input.headCommitId && input.headCommitId !== pull.headCommitId)
      throw new ConflictError('head out of date', { code: 'PULL_HEAD_OUT_OF_DATE' });
    const gitDir = this.gitDirOf(repo);
    // Branch protection of the base branch, as a push to it would meet (issue 31.2).
    const refusal = await this.refUpdateChecks().mergeRefusal({
      repo,
      merger: actor,
      gitDir,
      base: pull.baseBranch,
      baseId: pull.baseCommitId,
      headId: pull.headCommitId,
      issueId: issue.id,
    });
    if (refusal)
      throw new NotAllowedError(refusal.message, {
        code: refusal.kind === 'forbidden' ? 'PULL_MERGE_FORBIDDEN' : 'PULL_NOT_READY',
      });
    const poster = issue.poster;
    const identity = (user: User) => ({
      name: user.fullName || user.name,
      email: user.email || `${user.lowerName}@noreply.${new URL(this.repositories.publicUrl).hostname}`,
    });
    const defaultTitle =
      input.style === 'squash'
        ? `${issue.title} (#${issue.index})`
        : `Merge pull request '${issue.title}' (#${issue.index}) from ${pull.headRepositoryId === repo.id ? '' : `${pull.headRepository?.owner.name ?? 'ghost'}:`}${pull.headBranch} into ${pull.baseBranch}`;
    const message = [input.title?.trim() || defaultTitle, input.message?.trim()].filter(Boolean).join('\n\n');
    let mergedCommitId: string;
    try {
      mergedCommitId = await PullGit.merge({
        gitDir,
        tmpRoot: path.join(this.storage.root, '.tmp'),
        baseBranch: pull.baseBranch,
        baseSha: pull.baseCommitId,
        headSha: pull.headCommitId,
        style: input.style,
        message,
        merger: identity(actor),
        squashAuthor: identity(poster ?? actor),
      });
    } catch (error) {
      if (error instanceof MergeRefusedError) {
        if (error.reason === 'not_fast_forward')
          throw new NotAllowedError('Pull request is not fast-forwardable', {
            code: 'PULL_NOT_FAST_FORWARD',
          });
        throw new ConflictError(error.message, {
          code: error.reason === 'conflict' ? 'PULL_MERGE_CONFLICT' : 'PULL_BASE_MOVED',
        });
      }
      throw error;
    }
    let deletedHead: string | null = null;
    if (
      input.deleteBranchAfterMerge &&
      pull.headRepositoryId === repo.id &&
      pull.headBranch !== repo.defaultBranch &&
      // A head branch a protection rule covers is protected from deletion (Gitea's DeleteBranchAfterMerge
      // refuses it); the merge stands and the branch stays.
      !(await this.branchProtections().ruleSet(repo)).effective(pull.headBranch)
    ) {
      deletedHead = await runGit(['update-ref', '-d', `refs/heads/${pull.headBranch}`, pull.headCommitId], {
        env: { GIT_DIR: gitDir },
      }).then(
        () => pull.headCommitId,
        () => null,
      );
    }
    await this.transactions.run(async (tx) => {
      const now = new Date();
      // The pull request's row is keyed by its issue's id.
      await this.pulls.markMerged(tx.manager, issue.id, {
        mergedAt: now,
        mergedById: actor.id,
        mergedCommitId,
        baseCommitId: pull.baseCommitId,
      });
      tx.emitDurable('pull.merged', {
        repositoryId: repo.id,
        issueId: issue.id,
        index: issue.index,
        actorId: actor.id,
        style: input.style,
        mergedCommitId,
      });
      // The moved refs are recorded with the merge (one transaction): the branch events and the
      // other reactions run from the durable push job, as for a push.
      const refs: PushedRef[] = [
        { ref: `refs/heads/${pull.baseBranch}`, oldId: pull.baseCommitId, newId: mergedCommitId },
      ];
      if (deletedHead)
        refs.push({ ref: `refs/heads/${pull.headBranch}`, oldId: deletedHead, newId: ZERO_ID });
      await this.refChanges.record({ repo, actor, source: 'merge', request: null, refs }, tx);
    });
    const merged = await this.require(repo, issue.index);
    return merged;
  }

  /** `GET .../pulls/{index}/merge`: whether it was merged. */
  async isMerged(repo: Repository, index: string): Promise<boolean> {
    const found = await this.find(repo, index);
    return found?.pull.hasMerged ?? false;
  }
}
