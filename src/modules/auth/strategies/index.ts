import { AgentTokenStrategy } from './agent-token.strategy';
import { AuthorizationTokenStrategy } from './authorization-token.strategy';
import { BasicCredentialStrategy } from './basic.strategy';
import { BearerTokenStrategy } from './bearer.strategy';
import { ProvisionerKeyStrategy } from './provisioner-key.strategy';
import { QueryTokenStrategy } from './query-token.strategy';
import { SessionCookieStrategy } from './session-cookie.strategy';
import { SessionHeaderStrategy } from './session-header.strategy';
import { SessionQueryStrategy } from './session-query.strategy';

/** One Passport strategy per credential form; CredentialResolver runs them in STRATEGY_ORDER. */
export const CREDENTIAL_STRATEGIES = [
  SessionCookieStrategy,
  SessionQueryStrategy,
  AgentTokenStrategy,
  SessionHeaderStrategy,
  BearerTokenStrategy,
  AuthorizationTokenStrategy,
  BasicCredentialStrategy,
  QueryTokenStrategy,
  ProvisionerKeyStrategy,
];
