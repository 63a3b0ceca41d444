import type { Request } from 'express';
import { requestState } from '../../../platform/http/request-state';
import { parseToken } from '../../identity/api-token-codec';
import type { CredentialSource } from '../../../api/access/principal';

import {
  firstNamed,
  SESSION_COOKIE,
  SESSION_COOKIE_NAMES,
  SESSION_HEADER,
  SESSION_HEADER_NAMES,
} from '../../../platform/http/credential-names';

export { SESSION_COOKIE, SESSION_HEADER };
export const PROVISIONER_KEY_HEADER = 'service-provisioner-key';
/** The devplane token on AI gateway requests whose Authorization carries the user's provider key. */
export const AI_GOVERNANCE_HEADER = 'x-service-ai-governance-token';

/** The strategies, in the order the AuthGuard runs them (passport tries the next one on `fail`). */
export const STRATEGY_ORDER = [
  'session-cookie',
  'session-query',
  'agent-token',
  'session-header',
  'bearer',
  'authorization-token',
  'basic',
  'query-token',
  'provisioner-key',
] as const;
export type StrategyName = (typeof STRATEGY_ORDER)[number];

/**
 * What the request presents, without checking it. Exactly one form is taken, the first in
 * STRATEGY_ORDER; the strategy of that name verifies it and every other strategy passes over.
 */
export interface PresentedCredential {
  strategy: StrategyName;
  source: CredentialSource | 'agent_token' | 'provisioner_key';
  token?: string;
  login?: string;
  password?: string;
}

const AGENT_TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function firstString(value: unknown): string | undefined {
  if (Array.isArray(value)) return firstString(value[0]);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function parse(req: Request): PresentedCredential | null {
  // devplane's names and Coder's (`coder_session_token`, `Coder-Session-Token`) are the same credential.
  const cookie = firstNamed(req.cookies as Record<string, unknown> | undefined, SESSION_COOKIE_NAMES);
  if (cookie) return { strategy: 'session-cookie', source: 'cookie', token: cookie };
  const query = (req.query ?? {}) as Record<string, unknown>;
  const sessionQuery = firstNamed(query, SESSION_COOKIE_NAMES);
  if (sessionQuery) return { strategy: 'session-query', source: 'session_query', token: sessionQuery };
  const header = firstNamed(req.headers, SESSION_HEADER_NAMES);
  if (header) {
    const token = header.trim();
    // Workspace agents present their agent token (a uuid, never a valid API key) in the session header.
    if (AGENT_TOKEN.test(token)) return { strategy: 'agent-token', source: 'agent_token', token };
    return { strategy: 'session-header', source: 'session_header', token };
  }
  // The AI gateway's BYOK convention (Coder's AI Bridge `X-Coder-AI-Governance-Token`): the devplane
  // token in this header leaves Authorization / x-api-key to the user's own provider key.
  const governance = firstString(req.headers[AI_GOVERNANCE_HEADER]);
  if (governance && /^\/api\/v2\/(aigateway|ai-gateway)\//.test(req.originalUrl ?? req.url ?? ''))
    return { strategy: 'session-header', source: 'session_header', token: governance.trim() };
  const authorization = firstString(req.headers.authorization);
  if (authorization) {
    const [scheme = '', value = '', ...rest] = authorization.trim().split(/\s+/);
    const kind = scheme.toLowerCase();
    if ((kind === 'bearer' || kind === 'token') && value !== '' && rest.length === 0) {
      return kind === 'bearer'
        ? { strategy: 'bearer', source: 'bearer', token: value }
        : { strategy: 'authorization-token', source: 'token_header', token: value };
    }
    if (kind === 'basic' && value !== '') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const login = colon === -1 ? decoded : decoded.slice(0, colon);
      const password = colon === -1 ? '' : decoded.slice(colon + 1);
      // `token:` and `token:x-oauth-basic` carry the token as the user name.
      if ((password === '' || password === 'x-oauth-basic') && !('problem' in parseToken(login))) {
        return { strategy: 'basic', source: 'basic_token', token: login };
      }
      return { strategy: 'basic', source: 'basic_password', login, password };
    }
    // Any other Authorization value is a malformed bearer token (Coder's answer).
    return { strategy: 'bearer', source: 'bearer', token: '' };
  }
  const queryToken = firstString(query.access_token) ?? firstString(query.token);
  if (queryToken) return { strategy: 'query-token', source: 'query_token', token: queryToken };
  const provisionerKey = firstString(req.headers[PROVISIONER_KEY_HEADER]);
  if (provisionerKey)
    return { strategy: 'provisioner-key', source: 'provisioner_key', token: provisionerKey.trim() };
  return null;
}

/** The request's credential form, parsed once per request (`null` = none). */
export function presentedCredential(req: Request): PresentedCredential | null {
  const state = requestState(req);
  let presented = state.credential as PresentedCredential | null | undefined;
  if (presented === undefined) state.credential = presented = parse(req);
  return presented;
}
