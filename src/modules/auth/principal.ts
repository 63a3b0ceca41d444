import type { Request } from 'express';
import type { ApiToken } from '../identity/entities/api-token.entity';
import type { User } from '../identity/entities/user.entity';

export type CredentialSource =
  | 'cookie'
  | 'session_header'
  | 'session_query'
  | 'bearer'
  | 'token_header'
  | 'basic_password'
  | 'basic_token'
  | 'query_token';

/** Who is calling, and with what: resolved once per request by CredentialResolver. */
export interface Principal {
  user: User;
  /** The API key used, or null for Basic with a password. */
  token: ApiToken | null;
  source: CredentialSource;
  /** Token scopes; a password carries every right of its user (`all`). */
  scopes: string[];
}

const PRINCIPAL = Symbol('devplane:principal');

export function requestPrincipal(req: Request): Principal | undefined {
  return (req as unknown as Record<symbol, Principal | undefined>)[PRINCIPAL];
}

export function setRequestPrincipal(req: Request, principal: Principal): void {
  (req as unknown as Record<symbol, Principal>)[PRINCIPAL] = principal;
}
