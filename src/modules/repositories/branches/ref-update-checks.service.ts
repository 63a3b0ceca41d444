import { Injectable } from '@nestjs/common';
import path from 'node:path';
import type { User } from '../../identity/entities/user.entity';
import type { Repository } from '../entities/repository.entity';
import type { PushedRef } from '../events';
import type { AccessMode } from '../repository-permissions.service';
import { BranchGit, type GitObjects, isZeroId } from './branch-git';
import { BranchProtectionsService } from './branch-protections.service';
import { compileFilePatterns } from './gitea-glob';
import { canForcePush, canMerge, canPush, type RuleSubject } from './protection-rules';
import { countVerdicts } from '../reviews/review-rules';
import { PullReviewsRepository } from '../reviews/pull-reviews.repository';
import { CommitStatusesRepository } from '../statuses/commit-statuses.repository';
import { latestPerContext, requiredContextsState } from '../statuses/status-rules';

/** Why a pull request may not be merged into a protected branch (Gitea: 405 on the merge route). */
export interface MergeRefusal {
  /** `forbidden`: the merger may not merge ("User not allowed to merge PR"); `not_ready`: the rule's conditions. */
  kind: 'forbidden' | 'not_ready';
  message: string;
}

/**
 * Branch protection enforced on ref updates: git pushes (the pre-receive hook, objects still in
 * quarantine) and every API write that moves a branch (create, update, delete, merge upstream) go
 * through `refusal`, Gitea's pre-receive order (routers/private/hook_pre_receive.go): deletion,
 * force push, signed commits, protected files, then the push whitelist (commits touching only
 * unprotected files pass). The message is what git prints after `remote:`.
 */
@Injectable()
export class RefUpdateChecks {
  constructor(
    private readonly protections: BranchProtectionsService,
    private readonly statuses: CommitStatusesRepository,
    private readonly reviews: PullReviewsRepository,
  ) {}

  /** null when every update may go ahead, else the reason the first refused one is refused. */
  async refusal(
    repo: Repository,
    pusher: User | null,
    updates: PushedRef[],
    objects: GitObjects,
    /** The pusher's mode when the caller's authorization computed it (the push session): not computed again. */
    pusherMode?: AccessMode,
  ): Promise<string | null> {
    const branchUpdates = updates.filter((update) => update.ref.startsWith('refs/heads/'));
    if (branchUpdates.length === 0) return null;
    const rules = await this.protections.ruleSet(repo);
    if (rules.rules.length === 0) return null;
    const where = normaliseObjects(objects);
    let subject: RuleSubject | undefined;
    for (const update of branchUpdates) {
      const branch = update.ref.slice('refs/heads/'.length);
      const rule = rules.effective(branch);
      if (!rule) continue;
      if (isZeroId(update.newId)) return `branch ${branch} is protected from deletion`;
      const isNew = isZeroId(update.oldId);
      let force = false;
      if (!isNew && !(await BranchGit.isAncestor(where, update.oldId, update.newId))) {
        if (!rule.enableForcePush) return `branch ${branch} is protected from force push`;
        force = true;
      }
      if (rule.requireSignedCommits) {
        const unsigned = await BranchGit.unsignedCommits(
          where,
          await BranchGit.newCommits(where, update.oldId, update.newId),
        );
        if (unsigned.length > 0) return `branch ${branch} is protected from unverified commit ${unsigned[0]}`;
      }
      let changed: string[] | undefined;
      let protectedFile: string | undefined;
      const protectedFiles = compileFilePatterns(rule.protectedFilePatterns);
      if (protectedFiles && !isNew) {
        changed = await BranchGit.changedFiles(where, update.oldId, update.newId);
        protectedFile = changed.find(protectedFiles);
      }
      subject ??= pusher
        ? await this.protections.subjectOf(pusher, repo, pusherMode)
        : { userId: '', canWrite: false, teamIds: new Set() };
      if (!protectedFile && (force ? canForcePush(rule, subject) : canPush(rule, subject))) continue;
      if (protectedFile) return `branch ${branch} is protected from changing file ${protectedFile}`;
      const unprotectedFiles = compileFilePatterns(rule.unprotectedFilePatterns);
      if (unprotectedFiles && !isNew) {
        changed ??= await BranchGit.changedFiles(where, update.oldId, update.newId);
        if (changed.every(unprotectedFiles)) continue;
      }
      return force
        ? `Not allowed to force-push to protected branch ${branch}`
        : `Not allowed to push to protected branch ${branch}`;
    }
    return null;
  }

  /**
   * A pull request merge into `base` (Gitea's CheckPullMergeable): the merger must be on the merge
   * whitelist, or, when the merge whitelist is off, have write access to code (issue 49.8, Gitea's
   * IsUserMergeWhitelisted; the push whitelist and `enable_push` do not apply). Then the rule's conditions
   * in Gitea's order, each `not allowed to merge [reason: ...]`: required status checks (the head
   * commit's newest status per context, `status_check_contexts` as globs, all `success`), required
   * approvals (official, undismissed; with `dismiss_stale_approvals` only those of the current head),
   * rejected reviews (`block_on_rejected_reviews`), an outdated head, changed protected files (issue 49.3/49.4).
   */
  async mergeRefusal(input: {
    repo: Repository;
    merger: User;
    gitDir: string;
    base: string;
    baseId: string;
    headId: string;
    /** The pull request's issue (its reviews count toward `required_approvals`). */
    issueId?: string;
  }): Promise<MergeRefusal | null> {
    const rule = (await this.protections.ruleSet(input.repo)).effective(input.base);
    if (!rule) return null;
    const objects: GitObjects = {
      gitDir: input.gitDir,
      objectDirectory: null,
      alternateObjectDirectories: null,
    };
    const mergeBase = (await BranchGit.mergeBase(objects, input.baseId, input.headId)) ?? input.baseId;
    let changed: string[] | undefined;
    const changedFiles = async () =>
      (changed ??= await BranchGit.changedFiles(objects, mergeBase, input.headId));
    // Gitea's IsUserMergeWhitelisted: with the merge whitelist off every code writer may merge, also into
    // a branch nobody may push to ("protect main, merge through pull requests"); on, only the listed.
    const subject = await this.protections.subjectOf(input.merger, input.repo);
    if (!canMerge(rule, subject)) return { kind: 'forbidden', message: 'User not allowed to merge PR' };
    const notReady = (reason: string): MergeRefusal => ({
      kind: 'not_ready',
      message: `not allowed to merge [reason: ${reason}]`,
    });
    if (rule.enableStatusCheck) {
      const latest = latestPerContext(await this.statuses.ofCommit(input.repo.id, input.headId));
      if (requiredContextsState(latest, rule.statusCheckContexts ?? []) !== 'success')
        return notReady('Not all required status checks successful');
    }
    const required = Number(rule.requiredApprovals);
    if (required > 0 || rule.blockOnRejectedReviews) {
      const verdicts = countVerdicts(input.issueId ? await this.reviews.ofIssue(input.issueId) : [], {
        headCommitId: input.headId,
        ignoreStale: rule.dismissStaleApprovals,
      });
      if (verdicts.approvals < required) return notReady('Does not have enough approvals');
      if (rule.blockOnRejectedReviews && verdicts.rejections > 0)
        return notReady('There are requested changes');
    }
    if (rule.blockOnOutdatedBranch && mergeBase !== input.baseId)
      return notReady('The head branch is behind the base branch');
    const protectedFiles = compileFilePatterns(rule.protectedFilePatterns);
    if (protectedFiles && (await changedFiles()).some(protectedFiles))
      return notReady('Changed protected files');
    return null;
  }
}

/** git gives hooks absolute quarantine paths; a relative one is relative to the repository. */
function normaliseObjects(objects: GitObjects): GitObjects {
  const resolve = (dir: string) => path.resolve(objects.gitDir, dir);
  return {
    gitDir: objects.gitDir,
    objectDirectory: objects.objectDirectory ? resolve(objects.objectDirectory) : null,
    alternateObjectDirectories: objects.alternateObjectDirectories
      ? objects.alternateObjectDirectories
          .split(path.delimiter)
          .map((dir) => resolve(dir))
          .join(path.delimiter)
      : null,
  };
}
