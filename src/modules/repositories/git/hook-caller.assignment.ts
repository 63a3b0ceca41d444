import { type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { isIP } from 'node:net';
import type { ResourceAssigner } from '../../../api/access/access.decorators';
import { NotFoundError } from '../../../platform/errors/domain-error';
import { type PushSession, PushSessions } from './push-sessions.service';

/** The header git's hooks send the one-push token in (git-hooks.ts). */
export const HOOK_TOKEN_HEADER = 'x-devplane-hook-token';

const sessions = new WeakMap<Request, PushSession>();

/** `::ffff:127.0.0.1` is 127.0.0.1. */
function plain(address: string | undefined): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address ?? '');
  return mapped ? mapped[1]! : (address ?? '');
}

/**
 * Whether the TCP peer is this host: a loopback address, or the very address the connection came in
 * on (the hooks call back on the address the push arrived at, so a push over a LAN interface calls
 * back from that interface). Never a forwarded header: the hooks talk to this process directly.
 */
export function fromThisHost(req: Request): boolean {
  const remote = plain(req.socket.remoteAddress);
  if (isIP(remote) === 0) return false;
  if (remote === '::1' || /^127\./.test(remote)) return true;
  return remote === plain(req.socket.localAddress);
}

/**
 * The gate of `/api/internal/git-hooks/*` (issue #46.3), run by the AuthGuard as the route's resource
 * assignment, so before the rate limit's bucket, the body and its validation: a caller that is not on
 * this host, or that does not present the token of a push in progress on this instance, gets a bare
 * 404 (the route does not exist for it) and its body is never read.
 */
@Injectable()
export class HookCallerAssignment implements ResourceAssigner {
  constructor(private readonly pushes: PushSessions) {}

  assign(context: ExecutionContext): Promise<void> {
    const req = context.switchToHttp().getRequest<Request>();
    const header = req.headers[HOOK_TOKEN_HEADER];
    const session = fromThisHost(req) && typeof header === 'string' ? this.pushes.find(header) : undefined;
    if (!session) return Promise.reject(new NotFoundError('Not Found', { code: 'HOOK_CALLER_REFUSED' }));
    sessions.set(req, session);
    return Promise.resolve();
  }
}

/** The push session HookCallerAssignment admitted the request with. */
export function hookSessionOf(req: Request): PushSession | undefined {
  return sessions.get(req);
}
