import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { DIALECT_METADATA, type Dialect } from '../../api/dialect';
import { sendError } from '../../api/send-error';
import type { AppConfig } from '../../platform/config/app-config';
import { APP_CONFIG } from '../../platform/config/config.token';
import { DomainError, UnauthenticatedError } from '../../platform/errors/domain-error';
import { RealtimeConnections } from '../../platform/realtime/realtime-connections.service';
import { RealtimeGateways } from '../../platform/realtime/realtime-gateways.service';
import {
  type RealtimeCredentialChecker,
  type RealtimeIdentity,
  UNAUTHENTICATED_BEFORE_UPGRADE,
  type UpgradeAuthorizer,
  type UpgradeDecision,
} from '../../platform/realtime/realtime-ports';
import { IdentityDirectory } from '../identity/identity-directory.service';
import { AuthGuard } from './auth.guard';
import type { Principal } from '../../api/access/principal';
import { upgradeRequest } from './upgrade-request';

/** Close code of a socket whose upgrade carried bad or no credentials (the reason is the 401 text). */
export const UNAUTHENTICATED_CLOSE_CODE = 4401;

type Refusal = { status: number; body: string; headers: Record<string, string> };

/** What the realtime layer needs to know about a caller to revoke its connections. */
export function realtimeIdentity(principal: Principal): RealtimeIdentity {
  return {
    userId: principal.user.id,
    credentialId: principal.token?.id ?? null,
    viaCookie: principal.source === 'cookie',
  };
}

function dialectOf(gateway: Function): Dialect {
  return (Reflect.getMetadata(DIALECT_METADATA, gateway) as Dialect | undefined) ?? 'plain';
}

/**
 * The auth side of the realtime layer (platform/realtime ports): upgrades are authorized by the
 * AuthGuard itself (`authorizeUpgrade`: same strategies, same @Public/@Authenticated), and open
 * connections are re-checked straight from the database when a revocation arrives.
 */
@Injectable()
export class RealtimeAccessService implements UpgradeAuthorizer, RealtimeCredentialChecker, OnModuleInit {
  constructor(
    private readonly guard: AuthGuard,
    private readonly gateways: RealtimeGateways,
    private readonly connections: RealtimeConnections,
    private readonly directory: IdentityDirectory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.gateways.useAuthorizer(this);
    this.connections.useCredentialChecker(this);
  }

  async authorizeUpgrade(gateway: Function, req: IncomingMessage): Promise<UpgradeDecision> {
    try {
      const principal = await this.guard.authorizeUpgrade(gateway, req);
      return {
        kind: 'accept',
        // Revocation re-checks follow users; an agent's socket ends with its workspace's build.
        identity: principal?.kind === 'user' ? realtimeIdentity(principal) : undefined,
        context: principal,
      };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const refusal = this.renderRefusal(gateway, req, error);
      if (
        error instanceof UnauthenticatedError &&
        !Reflect.getMetadata(UNAUTHENTICATED_BEFORE_UPGRADE, gateway)
      ) {
        // devplane's socket convention: upgrade, then close 4401 with the 401 text as reason.
        return { kind: 'close', code: UNAUTHENTICATED_CLOSE_CODE, reason: reasonOf(refusal.body) };
      }
      return { kind: 'refuse', ...refusal };
    }
  }

  renderRefusal(gateway: Function, req: IncomingMessage, error: unknown): Refusal {
    const captured: Refusal = { status: 500, body: '', headers: {} };
    const res = {
      headersSent: false,
      setHeader(name: string, value: unknown) {
        captured.headers[name] = String(value);
        return res;
      },
      status(code: number) {
        captured.status = code;
        return res;
      },
      type(type: string) {
        captured.headers['Content-Type'] = type;
        return res;
      },
      send(body: unknown) {
        captured.body = String(body);
        return res;
      },
      end() {
        return res;
      },
    };
    sendError(dialectOf(gateway), error, upgradeRequest(req), res as unknown as Response, this.config);
    return captured;
  }

  async recheck(identities: RealtimeIdentity[]): Promise<(string | null)[]> {
    const userIds = [...new Set(identities.map((identity) => identity.userId))].filter((id) =>
      /^\d+$/.test(id),
    );
    const tokenIds = [
      ...new Set(
        identities.map((identity) => identity.credentialId).filter((id): id is string => id !== null),
      ),
    ];
    const users = new Map<string, { status: string; prohibit_login: boolean }>();
    if (userIds.length > 0) {
      const rows = await this.directory.loginStates(userIds);
      for (const row of rows) users.set(String(row.id), row);
    }
    const liveTokens = new Set<string>();
    if (tokenIds.length > 0) {
      const rows = await this.directory.liveTokens(tokenIds);
      for (const row of rows) liveTokens.add(`${row.id}:${row.user_id}`);
    }
    return identities.map((identity) => {
      const user = users.get(identity.userId);
      if (!user) return 'User deleted.';
      if (user.status !== 'active' && user.status !== 'dormant') {
        return `User is not active (status = "${user.status}"). Contact an admin to reactivate your account.`;
      }
      if (user.prohibit_login)
        return 'This account is prohibited from signing in, please contact your site administrator.';
      if (identity.credentialId !== null && !liveTokens.has(`${identity.credentialId}:${identity.userId}`)) {
        return 'API key revoked.';
      }
      return null;
    });
  }
}

/** The close reason of a rendered 401: Coder's `detail` (or `message`), Gitea's `message`, OCS's meta message. */
function reasonOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as {
      detail?: unknown;
      message?: unknown;
      ocs?: { meta?: { message?: unknown } };
    };
    for (const candidate of [parsed.detail, parsed.message, parsed.ocs?.meta?.message]) {
      if (typeof candidate === 'string' && candidate !== '') return candidate;
    }
  } catch {
    // not JSON (OCS XML): fall through
  }
  return 'Unauthorized';
}
