import type { Principal } from '../../api/access/principal';
import { expandScopes, isAllScope } from './rbac/rbac-scopes';

/** Scopes that grant everything: Gitea's `all`, Coder's `coder:all` and its legacy alias `all`. */
const ALL_SCOPES = new Set(['all', 'coder:all']);

/**
 * Gitea's token scope rule: each category needs `write:<c>` for mutating methods and
 * `read:<c>` (or write) for GET/HEAD. Passwords are unrestricted. Returns the refusal text or null.
 */
export function missingGiteaScope(principal: Principal, categories: string[], method: string): string | null {
  if (!principal.token) return null;
  const scopes = principal.token.scopes;
  if (scopes.some((scope) => ALL_SCOPES.has(scope))) return null;
  const level = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  const required = categories.map((category) => `${level}:${category}`);
  const satisfied = categories.every(
    (category) =>
      scopes.includes(`write:${category}`) || (level === 'read' && scopes.includes(`read:${category}`)),
  );
  if (satisfied) return null;
  return `token does not have at least one of required scope(s), required=[${required.join(' ')}], token scope=${scopes.join(',')}`;
}

/** Gitea's token scope categories (`read:<category>`, `write:<category>`). */
export const GITEA_SCOPE_CATEGORIES = [
  'activitypub',
  'admin',
  'issue',
  'misc',
  'notification',
  'organization',
  'package',
  'repository',
  'user',
] as const;

/** Whether a Gitea dialect scope name is known: `all` or `read|write:<category>`. */
export function isGiteaScope(scope: string): boolean {
  if (scope === 'all') return true;
  const [level, category] = scope.split(':');
  return (
    (level === 'read' || level === 'write') &&
    (GITEA_SCOPE_CATEGORIES as readonly string[]).includes(category ?? '')
  );
}

/** Whether the caller's API key grants `action` on resource `type` (Coder scopes); passwords and sessions without a key pass. */
export function keyGrants(principal: Principal, required: { type: string; action: string }): boolean {
  if (!principal.token) return true;
  const scopes = principal.token.scopes;
  if (isAllScope(scopes)) return true;
  return expandScopes(scopes).some(
    (permission) =>
      (permission.type === '*' || permission.type === required.type) &&
      (permission.action === '*' || permission.action === required.action),
  );
}
