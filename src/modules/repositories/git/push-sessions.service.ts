import { Injectable } from '@nestjs/common';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { RequestSnapshot } from '../../../platform/events/subject-events';
import type { User } from '../../identity/entities/user.entity';
import type { Repository } from '../entities/repository.entity';
import type { AccessMode } from '../repository-permissions.service';

/**
 * What the hooks of one push may act on: what the receive-pack request's authorization decided
 * (@RepoAccess('write', git) loaded the repository with its owner and the pusher once). The hooks
 * present the one-push token and act on this; they neither authorize nor read the repository again.
 */
export interface PushSession {
  repository: Repository;
  pusher: User;
  /** The pusher's mode on the repository, as the authorization computed it (branch protection reuses it). */
  mode: AccessMode;
  /** The receive-pack request, for the workflow engine's request checks. */
  request: RequestSnapshot | null;
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
