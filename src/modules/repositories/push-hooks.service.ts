import { Injectable, Logger } from '@nestjs/common';
import type { PushedRef } from './events';
import type { PushSession } from './git/push-sessions.service';
import { RefUpdateChecks } from './branches/ref-update-checks.service';
import { RefChangesService } from './ref-changes.service';
import { RepositoriesService } from './repositories.service';

export interface QuarantineInfo {
  objectDirectory?: string | null;
  alternateObjectDirectories?: string | null;
  quarantinePath?: string | null;
}

/**
 * What devplane does around a `git push`: `preReceive` may refuse ref updates (the objects are still
 * in git's quarantine; branch protection hangs off here), `postReceive` records the moved refs through
 * RefChangesService (the row and one durable `repositories.push` job in one transaction) and returns:
 * the reactions run from the job, not inside git's post-receive. Both act on the push session (what
 * the receive-pack request's one authorization decided): no authorization and no read of the
 * repository or pusher here.
 */
@Injectable()
export class PushHooksService {
  private readonly logger = new Logger(PushHooksService.name);

  constructor(
    private readonly repositories: RepositoriesService,
    private readonly refChecks: RefUpdateChecks,
    private readonly refChanges: RefChangesService,
  ) {}

  async preReceive(
    session: PushSession,
    refs: PushedRef[],
    quarantine: QuarantineInfo,
  ): Promise<{ ok: boolean; message?: string }> {
    const repo = session.repository;
    if (repo.isArchived) return { ok: false, message: 'devplane: the repository is archived' };
    if (repo.isMirror) return { ok: false, message: 'devplane: mirror repository is read-only' };
    const bad = refs.find((ref) => !ref.ref.startsWith('refs/heads/') && !ref.ref.startsWith('refs/tags/'));
    if (bad) return { ok: false, message: `devplane: only branches and tags can be pushed (${bad.ref})` };
    const refusal = await this.refChecks.refusal(
      repo,
      session.pusher,
      refs,
      {
        gitDir: this.repositories.gitDir(repo.owner, repo),
        objectDirectory: quarantine.objectDirectory,
        alternateObjectDirectories: quarantine.alternateObjectDirectories,
      },
      session.mode,
    );
    if (refusal) return { ok: false, message: refusal };
    return { ok: true };
  }

  async postReceive(session: PushSession, refs: PushedRef[]): Promise<{ ok: boolean; message?: string }> {
    await this.refChanges.record({
      repo: session.repository,
      actor: session.pusher,
      source: 'push',
      request: session.request,
      refs,
    });
    this.logger.debug({ repositoryId: session.repository.id, refs: refs.length }, 'push recorded');
    return { ok: true };
  }
}
