import type { Request } from 'express';
import { requestState } from '../../platform/http/request-state';
import type { ApiToken } from '../identity/entities/api-token.entity';
import type { User } from '../identity/entities/user.entity';
import type { ProvisionerKeyIdentity, WorkspaceAgentIdentity } from './principal-ports';

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
  user: User;
  /** The API key used, or null for Basic with a password. */
  token: ApiToken | null;
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
