import { OnDomainEvent } from '../../../platform/events/event-bus.service';
import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
} from '../../../platform/errors/domain-error';
import type { RequestSnapshot } from '../../../platform/events/subject-events';
import type { User } from '../../identity/entities/user.entity';
import type { Repository } from '../entities/repository.entity';
import { RepositoriesRepository } from '../repositories.repository';
import type { PushedRef } from '../events';
import { GitStorage } from '../git/git-storage.service';
import { PullsService } from '../issues/pulls.service';
import { RefChangesService } from '../ref-changes.service';
import { RepositoriesService } from '../repositories.service';
import { type AccessMode, atLeast } from '../repository-permissions.service';
import type { BranchProtection } from './branch-protection.entity';
import { BranchProtectionsRepository } from './branch-protections.repository';
import { BranchGit, type BranchTip, type CommitDetails, ZERO_ID } from './branch-git';
import { BranchProtectionsService } from './branch-protections.service';
import { canMerge, canPush, type ProtectionRuleSet, type RuleSubject } from './protection-rules';
import { RefUpdateChecks } from './ref-update-checks.service';

export interface BranchView {
  name: string;
  commitId: string;
  commit: CommitDetails | undefined;
  rule: BranchProtection | null;
  userCanPush: boolean;
  userCanMerge: boolean;
}

export interface CreateBranchInput {
  name: string;
  oldRefName?: string;
  oldBranchName?: string;
}

export interface UpdateBranchInput {
  newCommitId: string;
  oldCommitId?: string;
  force?: boolean;
}

export type MergeUpstreamResult = 'up-to-date' | 'fast-forward' | 'merge';

const PACK_REFS_THRESHOLD = 500;
const TIPS_CACHE_MS = 5_000;

export const RENAME_ADMIN_ONLY = 'User must be a repo or site admin to rename default or protected branches.';
export const RENAME_PROTECTED = 'Failed to rename branch due to branch protection rules.';

export function branchNotFound(name: string): NotFoundError {
  return new NotFoundError(`branch does not exist [name: ${name}]`, { code: 'BRANCH_NOT_FOUND' });
}

/**
 * Branches of a repository through the API (Gitea's routers/api/v1/repo/branch.go and
 * services/repository/branch.go). Every write that moves a ref runs the same protection checks as a
 * push (RefUpdateChecks), moves refs with compare-and-swap (`git update-ref --stdin`) and records
 * the moves through RefChangesService as a push does (one durable `repositories.push` job: the same
 * events and reactions as a push's), without pretending to be a push session.
 */
@Injectable()
export class BranchesService {
  private readonly logger = new Logger(BranchesService.name);

  constructor(
    private readonly repositories: RepositoriesService,
    private readonly protections: BranchProtectionsService,
    private readonly refChecks: RefUpdateChecks,
    private readonly refChanges: RefChangesService,
    private readonly pulls: PullsService,
    private readonly storage: GitStorage,
    private readonly transactions: TransactionRunner,
    private readonly protectionRows: BranchProtectionsRepository,
    private readonly repositoryRows: RepositoriesRepository,
  ) {}

  private readonly packedAt = new Map<string, number>();
  private readonly tipsCache = new Map<string, { gitDir: string; at: number; tips: BranchTip[] }>();

  /**
   * The sorted branch list of a repository, kept for TIPS_CACHE_MS: every ref move in this instance
   * (pushes, API writes, mirror syncs all end in `repository.pushed`) drops it at once; another
   * instance's moves show within TIPS_CACHE_MS.
   */
  private async tips(repo: Repository): Promise<BranchTip[]> {
    const gitDir = this.gitDir(repo);
    const cached = this.tipsCache.get(repo.id);
    if (cached && cached.gitDir === gitDir && Date.now() - cached.at < TIPS_CACHE_MS) return cached.tips;
    const tips = await BranchGit.list(gitDir);
    if (tips.length >= PACK_REFS_THRESHOLD) this.packRefsSoon(gitDir);
    this.tipsCache.set(repo.id, { gitDir, at: Date.now(), tips });
    if (this.tipsCache.size > 1_000) this.tipsCache.delete(this.tipsCache.keys().next().value!);
    return tips;
  }

  /** Commits never change: their details are kept by id (bounded), so a branch page spawns git only for new tips. */
  private readonly commitCache = new Map<string, CommitDetails>();

  private async commitDetails(repo: Repository, ids: string[]): Promise<Map<string, CommitDetails>> {
    const found = new Map<string, CommitDetails>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      const cached = this.commitCache.get(id);
      if (cached) found.set(id, cached);
      else missing.push(id);
    }
    if (missing.length > 0) {
      for (const [id, details] of await BranchGit.commits(this.gitDir(repo), missing)) {
        found.set(id, details);
        this.commitCache.set(id, details);
        if (this.commitCache.size > 20_000) this.commitCache.delete(this.commitCache.keys().next().value!);
      }
    }
    return found;
  }

  @OnDomainEvent('repository.pushed', { async: false })
  forgetTips(event: { repositoryId: string }): void {
    this.tipsCache.delete(event.repositoryId);
  }

  /**
   * Pushes leave one loose file per ref, and reading 10,000 loose refs costs four times the packed
   * file: a repository with many branches gets `git pack-refs --all` (in the background, at most
   * every ten minutes per repository; git locks make it safe beside pushes).
   */
  private packRefsSoon(gitDir: string): void {
    const last = this.packedAt.get(gitDir) ?? 0;
    if (Date.now() - last < 10 * 60_000) return;
    this.packedAt.set(gitDir, Date.now());
    BranchGit.packRefs(gitDir).catch((error: unknown) =>
      this.logger.warn({ err: error, gitDir }, 'git pack-refs failed'),
    );
  }

  gitDir(repo: Repository): string {
    return this.repositories.gitDir(repo.owner, repo);
  }

  /** Writes on an empty repository are 404, on a mirror 403 (reference §5.3). */
  private assertWritable(repo: Repository): void {
    if (repo.isEmpty) throw new NotFoundError('Git Repository is empty.', { code: 'REPOSITORY_EMPTY' });
    if (repo.isMirror)
      throw new ForbiddenError('Git Repository is a mirror.', 'permission', { code: 'REPOSITORY_MIRROR' });
  }

  private async views(
    repo: Repository,
    viewer: User | null,
    tips: BranchTip[],
    rules: ProtectionRuleSet,
  ): Promise<BranchView[]> {
    const subject = viewer ? await this.protections.subjectOf(viewer, repo) : null;
    const commits = await this.commitDetails(
      repo,
      tips.map((tip) => tip.commitId),
    );
    return tips.map((tip) => view(tip, rules.effective(tip.name), subject, commits.get(tip.commitId)));
  }

  async list(
    repo: Repository,
    viewer: User | null,
    page: { offset: number; limit: number },
  ): Promise<{ items: BranchView[]; total: number }> {
    if (repo.isEmpty) return { items: [], total: 0 };
    const tips = await this.tips(repo);
    const rules = await this.protections.ruleSet(repo);
    return {
      items: await this.views(repo, viewer, tips.slice(page.offset, page.offset + page.limit), rules),
      total: tips.length,
    };
  }

  async get(repo: Repository, viewer: User | null, name: string): Promise<BranchView> {
    const commitId = repo.isEmpty ? null : await BranchGit.tip(this.gitDir(repo), name);
    if (!commitId) throw branchNotFound(name);
    const [found] = await this.views(
      repo,
      viewer,
      [{ name, commitId, commitTime: 0 }],
      await this.protections.ruleSet(repo),
    );
    return found!;
  }

  async create(
    repo: Repository,
    actor: User,
    input: CreateBranchInput,
    request: RequestSnapshot | null,
  ): Promise<BranchView> {
    this.assertWritable(repo);
    const gitDir = this.gitDir(repo);
    let source: string | null;
    if (input.oldRefName) {
      source = await BranchGit.resolveCommit(gitDir, input.oldRefName);
      if (!source) throw new NotFoundError('The old ref does not exist', { code: 'REF_NOT_FOUND' });
    } else if (input.oldBranchName) {
      source = await BranchGit.tip(gitDir, input.oldBranchName);
      if (!source) throw new NotFoundError('The old branch does not exist', { code: 'BRANCH_NOT_FOUND' });
    } else {
      source = await BranchGit.tip(gitDir, repo.defaultBranch);
      if (!source) throw new NotFoundError('The old branch does not exist', { code: 'BRANCH_NOT_FOUND' });
    }
    await this.assertNameFree(gitDir, input.name);
    const moved = await this.apply(
      repo,
      actor,
      [{ ref: `refs/heads/${input.name}`, oldId: ZERO_ID, newId: source }],
      request,
    );
    if (!moved) throw new ConflictError('The branch already exists.', { code: 'BRANCH_EXISTS' });
    return this.get(repo, actor, input.name);
  }

  private async assertNameFree(gitDir: string, name: string): Promise<void> {
    const clashes = await BranchGit.conflictingBranches(gitDir, name);
    if (clashes.includes(name))
      throw new ConflictError('The branch already exists.', { code: 'BRANCH_EXISTS' });
    if (clashes.length > 0)
      throw new ConflictError('The branch with the same name already exists.', { code: 'BRANCH_NAME_CLASH' });
    if (await BranchGit.refExists(gitDir, `refs/tags/${name}`))
      throw new ConflictError('The branch with the same tag already exists.', { code: 'BRANCH_TAG_CLASH' });
  }

  /** PUT: compare-and-swap of the branch tip (reference §5.4). */
  async update(
    repo: Repository,
    actor: User,
    name: string,
    input: UpdateBranchInput,
    request: RequestSnapshot | null,
  ): Promise<void> {
    this.assertWritable(repo);
    const gitDir = this.gitDir(repo);
    const tip = await BranchGit.tip(gitDir, name);
    if (!tip) throw branchNotFound(name);
    if (input.oldCommitId) {
      const expected = await BranchGit.resolveCommit(gitDir, input.oldCommitId);
      // Gitea's text, labels as upstream prints them.
      if (expected !== tip)
        throw new InvalidError(
          `branch commit does not match [expected: ${expected ?? input.oldCommitId}, given: ${tip}]`,
          { code: 'BRANCH_MOVED' },
        );
    }
    const target = await BranchGit.resolveCommit(gitDir, input.newCommitId);
    if (!target)
      throw new InvalidError(`new_commit_id ${input.newCommitId} is not a commit of this repository`, {
        code: 'COMMIT_NOT_FOUND',
      });
    if (target === tip) return;
    if (!input.force && !(await BranchGit.isAncestor(gitDir, tip, target))) {
      throw new InvalidError(`Force push ${name} need a confirm force parameter`, { code: 'FORCE_REQUIRED' });
    }
    const moved = await this.apply(
      repo,
      actor,
      [{ ref: `refs/heads/${name}`, oldId: tip, newId: target }],
      request,
    );
    if (!moved)
      throw new ConflictError('The branch moved during the update; try again.', { code: 'BRANCH_MOVED' });
  }

  async delete(repo: Repository, actor: User, name: string, request: RequestSnapshot | null): Promise<void> {
    this.assertWritable(repo);
    if (name === repo.defaultBranch || (await this.pulls.isOpenTarget(repo, name))) {
      throw new ForbiddenError('can not delete default or pull request target branch', 'permission', {
        code: 'BRANCH_IS_TARGET',
      });
    }
    const tip = await BranchGit.tip(this.gitDir(repo), name);
    if (!tip) throw branchNotFound(name);
    if ((await this.protections.ruleSet(repo)).protects(name))
      throw new ForbiddenError('branch protected', 'permission', { code: 'BRANCH_PROTECTED' });
    const moved = await this.apply(
      repo,
      actor,
      [{ ref: `refs/heads/${name}`, oldId: tip, newId: ZERO_ID }],
      request,
    );
    if (!moved)
      throw new ConflictError('The branch moved during the deletion; try again.', { code: 'BRANCH_MOVED' });
  }

  /** PATCH: rename (reference §5.5), the rule of that exact name, the default branch and open pull requests follow. */
  async rename(
    repo: Repository,
    actor: User,
    mode: AccessMode,
    from: string,
    to: string,
    request: RequestSnapshot | null,
  ): Promise<void> {
    this.assertWritable(repo);
    const gitDir = this.gitDir(repo);
    if (from === to || (await BranchGit.tip(gitDir, to))) {
      throw new InvalidError(
        'Cannot rename a branch using the same name or rename to a branch that already exists.',
        { code: 'BRANCH_EXISTS' },
      );
    }
    const tip = await BranchGit.tip(gitDir, from);
    if (!tip) throw new NotFoundError("Branch doesn't exist.", { code: 'BRANCH_NOT_FOUND' });
    const isAdmin = atLeast(mode, 'admin');
    const exactRule = await this.protections.findByName(repo, from);
    if (!isAdmin && (from === repo.defaultBranch || exactRule))
      throw new ForbiddenError(RENAME_ADMIN_ONLY, 'permission', { code: 'BRANCH_RENAME_ADMIN_ONLY' });
    const rules = await this.protections.ruleSet(repo);
    const targetRule = rules.effective(to);
    if (targetRule && !canPush(targetRule, await this.protections.subjectOf(actor, repo)))
      throw new ForbiddenError(RENAME_PROTECTED, 'permission', { code: 'BRANCH_PROTECTED' });
    const clashes = (await BranchGit.conflictingBranches(gitDir, to)).filter(
      (name) => name !== from && !(from.startsWith(`${name}/`) || name.startsWith(`${from}/`)),
    );
    if (clashes.length > 0)
      throw new InvalidError(
        'Cannot rename a branch using the same name or rename to a branch that already exists.',
        { code: 'BRANCH_EXISTS' },
      );
    const updates: PushedRef[] = [
      { ref: `refs/heads/${from}`, oldId: tip, newId: ZERO_ID },
      { ref: `refs/heads/${to}`, oldId: ZERO_ID, newId: tip },
    ];
    const wasDefault = from === repo.defaultBranch;
    await this.transactions.run(async (tx) => {
      if (exactRule) {
        await this.protectionRows.followBranchRename(tx.manager, repo.id, exactRule.id, to);
      } else if (rules.protects(from)) {
        throw new ForbiddenError(RENAME_PROTECTED, 'permission', { code: 'BRANCH_PROTECTED' });
      }
      if (wasDefault) await this.repositoryRows.update(repo.id, { defaultBranch: to }, tx.manager);
      await this.pulls.followBranchRename(tx.manager, repo, from, to);
      // git last: a refused ref move rolls the rows back; a failed commit moves the refs back.
      if (!(await BranchGit.updateRefs(gitDir, updates)))
        throw new ConflictError('The branch moved during the rename; try again.', { code: 'BRANCH_MOVED' });
      tx.onRollback(async () => {
        await BranchGit.updateRefs(gitDir, [
          { ref: `refs/heads/${to}`, oldId: tip, newId: ZERO_ID },
          { ref: `refs/heads/${from}`, oldId: ZERO_ID, newId: tip },
        ]);
        if (wasDefault) await this.storage.setHead(gitDir, from);
      });
      if (wasDefault) await this.storage.setHead(gitDir, to);
    });
    await this.refChanges.record({ repo, actor, source: 'api', request, refs: updates });
  }

  /** POST merge-upstream (reference §5.9): brings a fork's branch up to its base repository. */
  async mergeUpstream(
    fork: Repository,
    actor: User,
    input: { branch?: string; ffOnly?: boolean },
    request: RequestSnapshot | null,
  ): Promise<MergeUpstreamResult> {
    if (!fork.forkId) throw new BadRequestError('repo is not a fork', { code: 'NOT_A_FORK' });
    if (fork.isMirror)
      throw new ForbiddenError('Git Repository is a mirror.', 'permission', { code: 'REPOSITORY_MIRROR' });
    const base = await this.repositories.findById(fork.forkId);
    if (!base) throw new BadRequestError('repo is not a fork', { code: 'NOT_A_FORK' });
    const branch = input.branch || fork.defaultBranch;
    const forkDir = this.gitDir(fork);
    const baseDir = this.gitDir(base);
    const forkTip = fork.isEmpty ? null : await BranchGit.tip(forkDir, branch);
    if (!forkTip) throw branchNotFound(branch);
    const baseBranch = (await BranchGit.tip(baseDir, branch)) ? branch : base.defaultBranch;
    if (!(await BranchGit.tip(baseDir, baseBranch))) throw branchNotFound(baseBranch);
    const scratch = `refs/devplane/upstream/${randomBytes(8).toString('hex')}`;
    await BranchGit.fetchInto(forkDir, baseDir, `refs/heads/${baseBranch}`, scratch);
    try {
      const baseTip = (await BranchGit.resolveCommit(forkDir, scratch))!;
      if (await BranchGit.isAncestor(forkDir, baseTip, forkTip)) return 'up-to-date';
      const ref = `refs/heads/${branch}`;
      if (await BranchGit.isAncestor(forkDir, forkTip, baseTip)) {
        if (!(await this.apply(fork, actor, [{ ref, oldId: forkTip, newId: baseTip }], request)))
          throw moved();
        return 'fast-forward';
      }
      if (input.ffOnly)
        throw new BadRequestError('fast-forward merge not possible: branch has diverged', {
          code: 'DIVERGED',
        });
      const merged = await BranchGit.mergeTree(forkDir, forkTip, baseTip);
      if ('conflicts' in merged) {
        throw new ConflictError(`merge upstream conflicts in: ${merged.conflicts.join(', ')}`, {
          code: 'MERGE_CONFLICT',
          detail: merged.conflicts.join('\n'),
        });
      }
      const commit = await BranchGit.commitTree(forkDir, merged.tree, [forkTip, baseTip], 'merge upstream', {
        name: actor.fullName || actor.name,
        email: actor.email,
      });
      if (!(await this.apply(fork, actor, [{ ref, oldId: forkTip, newId: commit }], request))) throw moved();
      return 'merge';
    } finally {
      await BranchGit.updateRefs(forkDir, [
        { ref: scratch, oldId: (await BranchGit.resolveCommit(forkDir, scratch)) ?? ZERO_ID, newId: ZERO_ID },
      ]).catch(() => false);
    }
  }

  /**
   * One API ref move as a push: the protection checks (403 with git's message), then the
   * compare-and-swap, then the record of the ref changes (row, durable reactions). False when a ref
   * was not at its expected id.
   */
  private async apply(
    repo: Repository,
    actor: User,
    updates: PushedRef[],
    request: RequestSnapshot | null,
  ): Promise<boolean> {
    const gitDir = this.gitDir(repo);
    const refusal = await this.refChecks.refusal(repo, actor, updates, { gitDir });
    if (refusal) throw new ForbiddenError(refusal, 'permission', { code: 'BRANCH_PROTECTED' });
    if (!(await BranchGit.updateRefs(gitDir, updates))) return false;
    await this.refChanges.record({ repo, actor, source: 'api', request, refs: updates });
    return true;
  }
}

function moved(): ConflictError {
  return new ConflictError('The branch moved meanwhile; try again.', { code: 'BRANCH_MOVED' });
}

function view(
  tip: BranchTip,
  rule: BranchProtection | null,
  subject: RuleSubject | null,
  commit: CommitDetails | undefined,
): BranchView {
  return {
    name: tip.name,
    commitId: tip.commitId,
    commit,
    rule,
    userCanPush: subject ? (rule ? canPush(rule, subject) : subject.canWrite) : false,
    userCanMerge: subject ? (rule ? canMerge(rule, subject) : subject.canWrite) : false,
  };
}
