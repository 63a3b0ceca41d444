import { Injectable } from '@nestjs/common';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { RequestSnapshot } from '../../../platform/events/subject-events';
import type { User } from '../../identity/entities/user.entity';
import type { Repository } from '../entities/repository.entity';

/** What the hooks of one push may act on. */
export interface PushSession {
  repositoryId: string;
  pusherId: string;
  /** The receive-pack request, for the workflow engine's request checks. */
  request: RequestSnapshot | null;
  /**
   * The repository and pusher the receive-pack request authorized (loaded once by @RepoAccess), so
   * the hooks need not read them again; absent for sessions opened elsewhere (API branch writes).
   */
  repository?: Repository;
  pusher?: User;
}

/**
 * One-push credentials for the git hooks: created when a `git-receive-pack` request starts, handed to
 * git's hooks in the environment, dropped when the request ends. The hooks call back into the same
 * instance (loopback), so the sessions live in this process's memory.
 */
@Injectable()
export class PushSessions {
  private readonly sessions = new Map<string, PushSession>();

  open(session: PushSession): { token: string; close(): void } {
    const token = randomBytes(24).toString('base64url');
    this.sessions.set(token, session);
    return { token, close: () => this.sessions.delete(token) };
  }

  find(token: string | undefined): PushSession | undefined {
    if (!token) return undefined;
    for (const [known, session] of this.sessions) {
      const a = Buffer.from(known);
      const b = Buffer.from(token);
      if (a.length === b.length && timingSafeEqual(a, b)) return session;
    }
    return undefined;
  }
}
