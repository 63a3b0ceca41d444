import type { Request } from 'express';
import { requestState } from '../../platform/http/request-state';
import type { ProvisionerKeyIdentity, WorkspaceAgentIdentity } from './principal-ports';

/**
 * The account types a user principal carries. The api layer does not import modules, so identity fills
 * them in by declaration merging (`src/modules/identity/principal-types.ts`:
 * `interface PrincipalAccountTypes { user: User; token: ApiToken }`), the way modules extend
 * DomainErrorCodes and DomainEventMap.
 */
export interface PrincipalAccountTypes {}
type AccountType<K extends string> = PrincipalAccountTypes extends Record<K, infer T> ? T : never;
/** identity's User entity. */
export type PrincipalUser = AccountType<'user'>;
/** identity's ApiToken entity. */
export type PrincipalToken = AccountType<'token'>;

export type CredentialSource =
  | 'cookie'
  | 'session_header'
  | 'session_query'
  | 'bearer'
  | 'token_header'
  | 'basic_password'
  | 'basic_token'
  | 'query_token';

/** The kinds of caller a route may admit (`@Authenticated({ principals })`, default `['user']`). */
export type PrincipalKind = 'user' | 'agent' | 'provisioner';
export const PRINCIPAL_KINDS: readonly PrincipalKind[] = ['user', 'agent', 'provisioner'];

/** A user, with the token or session used (or a password). */
export interface UserPrincipal {
  kind: 'user';
  user: PrincipalUser;
  /** The API key used, or null for Basic with a password. */
  token: PrincipalToken | null;
  source: CredentialSource;
  /** Token scopes; a password carries every right of its user (`all`). */
  scopes: string[];
}

/** A workspace agent, by its agent token (`Service-Session-Token: <agent uuid token>`). */
export interface AgentPrincipal {
  kind: 'agent';
  agent: WorkspaceAgentIdentity;
  source: 'agent_token';
}

/** A provisioner daemon, by its provisioner key (`Service-Provisioner-Key`). */
export interface ProvisionerPrincipal {
  kind: 'provisioner';
  provisioner: ProvisionerKeyIdentity;
  source: 'provisioner_key';
}

/** Who is calling: resolved once per request by the strategies the AuthGuard runs. */
export type AnyPrincipal = UserPrincipal | AgentPrincipal | ProvisionerPrincipal;

/**
 * The user kind, under the name every existing controller and service uses: the routes that admit
 * only users (the default) always see one. Code that serves agents or provisioners takes AnyPrincipal.
 */
export type Principal = UserPrincipal;

/** The caller if it is a user (what every user route needs); undefined for anonymous, agents and provisioners. */
export function requestPrincipal(req: Request): UserPrincipal | undefined {
  const principal = requestAnyPrincipal(req);
  return principal?.kind === 'user' ? principal : undefined;
}

/** The caller of any kind. */
export function requestAnyPrincipal(req: Request): AnyPrincipal | undefined {
  return requestState(req).principal as AnyPrincipal | undefined;
}

export function setRequestPrincipal(req: Request, principal: AnyPrincipal): void {
  requestState(req).principal = principal;
}
