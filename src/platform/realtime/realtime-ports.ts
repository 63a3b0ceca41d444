import type { IncomingMessage } from 'node:http';

/**
 * Who holds a realtime connection, as far as revocation cares. Built by the auth module from its
 * principal (the platform never sees users or tokens): `credentialId` is the API key id (null for
 * Basic with a password), `viaCookie` whether the browser's session cookie carried it.
 */
export interface RealtimeIdentity {
  userId: string;
  credentialId: string | null;
  viaCookie: boolean;
}

/** What the upgrade authorizer decided for one WebSocket upgrade. */
/**
 * Gateway class metadata: a missing or bad credential is an HTTP 401 before the upgrade (Coder's wire
 * for its chat sockets), instead of devplane's default upgrade-then-close 4401.
 */
export const UNAUTHENTICATED_BEFORE_UPGRADE = 'devplane:realtime:unauthenticated-before-upgrade';

/** Marks a gateway whose unauthenticated upgrades are refused with the dialect's 401 before the upgrade. */
export function RefuseUnauthenticatedBeforeUpgrade(): ClassDecorator {
  return (target) => Reflect.defineMetadata(UNAUTHENTICATED_BEFORE_UPGRADE, true, target);
}

export type UpgradeDecision =
  /** Upgrade; `context` is whatever the authorizer wants the gateway to see (the principal). */
  | { kind: 'accept'; identity: RealtimeIdentity | undefined; context: unknown }
  /** Refuse before the upgrade with an HTTP response (already rendered in the route's dialect). */
  | { kind: 'refuse'; status: number; body: string; headers: Record<string, string> }
  /** Upgrade, then close at once with this code and reason (how devplane reports 401 on a socket). */
  | { kind: 'close'; code: number; reason: string };

/**
 * Port implemented by the auth module: runs the same credential strategies and access
 * declarations (`@Public`/`@Authenticated`) as HTTP for an upgrade of `gateway` (its class carries
 * the declaration). A gateway without a declaration must be refused.
 */
export interface UpgradeAuthorizer {
  authorizeUpgrade(gateway: Function, req: IncomingMessage): Promise<UpgradeDecision>;
  /** Renders a refusal in the gateway's dialect (used for the Origin check and gateway pre-checks). */
  renderRefusal(
    gateway: Function,
    req: IncomingMessage,
    error: unknown,
  ): { status: number; body: string; headers: Record<string, string> };
}

/**
 * Port implemented by the auth module: re-checks held credentials against the database (not a
 * cache). Returns the close reason for each identity that is no longer valid (token deleted or
 * expired, user suspended, deleted or prohibited from signing in), or null when it still is.
 */
export interface RealtimeCredentialChecker {
  recheck(identities: RealtimeIdentity[]): Promise<(string | null)[]>;
}

/**
 * Optional hook of a gateway: validates an authenticated upgrade before it happens (e.g. query
 * parameters, or a permission that needs the principal: `context`) and throws a DomainError to refuse
 * it with the dialect's HTTP error.
 */
export interface UpgradePrecheck {
  precheckUpgrade(req: IncomingMessage, url: URL, context?: unknown): void | Promise<void>;
}

export function hasUpgradePrecheck(gateway: unknown): gateway is UpgradePrecheck {
  return typeof (gateway as Partial<UpgradePrecheck> | undefined)?.precheckUpgrade === 'function';
}
