import { Injectable, Logger } from '@nestjs/common';
import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import type { PushedRef } from './events';
import type { PushSession } from './git/push-sessions.service';
import { OrganizationsService } from '../identity/organizations.service';
import { UsersService } from '../identity/users.service';
import { BranchGit, isZeroId } from './branches/branch-git';
import { RefUpdateChecks } from './branches/ref-update-checks.service';
import { RepositoriesService } from './repositories.service';

export interface QuarantineInfo {
  objectDirectory?: string | null;
  alternateObjectDirectories?: string | null;
  quarantinePath?: string | null;
}

/**
 * What devplane does around a push: `preReceive` may refuse ref updates (the objects are still in
 * git's quarantine; branch protection hangs off here), `postReceive` records the push and emits
 * `repository.pushed` and one `branch.*` / `tag.*` event per ref, after the refs moved. API writes
 * that move branches (branches/branches.service.ts) report through `postReceive` too, so their events
 * are the same as a push's.
 */
@Injectable()
export class PushHooksService {
  private readonly logger = new Logger(PushHooksService.name);

  constructor(
    private readonly repositories: RepositoriesService,
    private readonly organizations: OrganizationsService,
    private readonly transactions: TransactionRunner,
    private readonly users: UsersService,
    private readonly refChecks: RefUpdateChecks,
  ) {}

  async preReceive(
    session: PushSession,
    refs: PushedRef[],
    quarantine: QuarantineInfo,
  ): Promise<{ ok: boolean; message?: string }> {
    const repo = await this.repositories.findById(session.repositoryId);
    if (!repo) return { ok: false, message: 'devplane: the repository no longer exists' };
    if (repo.isArchived) return { ok: false, message: 'devplane: the repository is archived' };
    if (repo.isMirror) return { ok: false, message: 'devplane: mirror repository is read-only' };
    const bad = refs.find((ref) => !ref.ref.startsWith('refs/heads/') && !ref.ref.startsWith('refs/tags/'));
    if (bad) return { ok: false, message: `devplane: only branches and tags can be pushed (${bad.ref})` };
    const pusher = await this.users.findById(session.pusherId);
    const refusal = await this.refChecks.refusal(repo, pusher, refs, {
      gitDir: this.repositories.gitDir(repo.owner, repo),
      objectDirectory: quarantine.objectDirectory,
      alternateObjectDirectories: quarantine.alternateObjectDirectories,
    });
    if (refusal) return { ok: false, message: refusal };
    return { ok: true };
  }

  async postReceive(session: PushSession, refs: PushedRef[]): Promise<{ ok: boolean; message?: string }> {
    const repo = await this.repositories.findById(session.repositoryId);
    if (!repo) return { ok: true };
    const branchNames = refs
      .filter((ref) => ref.ref.startsWith('refs/heads/') && !isZeroId(ref.newId))
      .map((ref) => ref.ref.slice(11));
    const updated = await this.repositories.recordPush(repo, repo.owner, branchNames);
    const ownerUserIds =
      repo.owner.type === 'organization' ? await this.organizations.ownerIdsOf(repo.ownerId) : [repo.ownerId];
    const fullName = `${repo.owner.name}/${updated.name}`;
    const gitDir = this.repositories.gitDir(repo.owner, updated);
    const forced = new Map<string, boolean>();
    for (const { ref, oldId, newId } of refs) {
      if (ref.startsWith('refs/heads/') && !isZeroId(oldId) && !isZeroId(newId))
        forced.set(ref, !(await BranchGit.isAncestor(gitDir, oldId, newId).catch(() => false)));
    }
    await this.transactions.run(async (tx) => {
      tx.emit('repository.pushed', {
        repositoryId: repo.id,
        ownerId: repo.ownerId,
        repositoryName: updated.name,
        pusherId: session.pusherId,
        refs,
      });
      for (const { ref, oldId, newId } of refs) {
        const created = isZeroId(oldId);
        const deleted = isZeroId(newId);
        if (ref.startsWith('refs/heads/')) {
          const base = {
            actorUserId: session.pusherId,
            ownerUserIds,
            request: session.request,
            repositoryId: repo.id,
            repository: fullName,
            branch: ref.slice('refs/heads/'.length),
          };
          if (created) tx.emit('branch.created', { ...base, after: newId });
          else if (deleted) tx.emit('branch.deleted', { ...base, before: oldId });
          else
            tx.emit('branch.updated', {
              ...base,
              before: oldId,
              after: newId,
              forced: forced.get(ref) ?? false,
            });
        } else if (ref.startsWith('refs/tags/')) {
          const tag = {
            repositoryId: repo.id,
            pusherId: session.pusherId,
            tag: ref.slice('refs/tags/'.length),
          };
          if (deleted) tx.emit('tag.deleted', { ...tag, oldCommitId: oldId });
          else tx.emit('tag.created', { ...tag, commitId: newId });
        }
      }
    });
    this.logger.debug({ repositoryId: repo.id, refs: refs.length }, 'push recorded');
    return { ok: true };
  }
}
