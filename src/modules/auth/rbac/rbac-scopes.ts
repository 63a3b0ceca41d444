import { resourceActions } from './rbac-catalogue';
import type { Permission } from './rbac-roles';

/** An allow-list entry of an API key: a resource type (or `*`) and an id (or `*`). */
export interface AllowListEntry {
  type: string;
  id: string;
}

export const ALLOW_ALL: AllowListEntry = { type: '*', id: '*' };

function p(type: string, ...actions: string[]): Permission[] {
  return actions.map((action) => ({ type, action }));
}

/** Composite scopes (Coder `rbac.CompositeScopes`), all at site level. */
export const COMPOSITE_SCOPES: Readonly<Record<string, Permission[]>> = {
  'coder:all': [{ type: '*', action: '*' }],
  'coder:application_connect': p('workspace', 'application_connect'),
  'coder:workspaces.create': [...p('template', 'read', 'use'), ...p('workspace', 'create', 'update', 'read')],
  'coder:workspaces.operate': p('workspace', 'read', 'update'),
  'coder:workspaces.delete': p('workspace', 'read', 'delete'),
  'coder:workspaces.access': p('workspace', 'read', 'ssh', 'application_connect'),
  'coder:templates.build': [
    ...p('template', 'read'),
    ...p('file', 'create', 'read'),
    ...p('provisioner_jobs', 'read'),
  ],
  'coder:templates.author': [
    ...p('template', 'read', 'create', 'update', 'delete', 'view_insights'),
    ...p('file', 'create', 'read'),
  ],
  'coder:apikeys.manage_self': p('api_key', 'read', 'create', 'update', 'delete'),
};

/** Whether the stored scopes mean "everything" (`coder:all`, legacy `all`, or none at all). */
export function isAllScope(scopes: readonly string[]): boolean {
  return scopes.length === 0 || scopes.some((scope) => scope === 'all' || scope === 'coder:all');
}

/**
 * The site permissions a key's scopes grant: the union of each scope's expansion. Low-level
 * `resource:action` (or `resource:*`) scopes expand to one permission; names that are neither
 * (for example Gitea's `read:repository`) grant nothing in the RBAC model.
 */
export function expandScopes(scopes: readonly string[]): Permission[] {
  if (isAllScope(scopes)) return COMPOSITE_SCOPES['coder:all']!;
  const out: Permission[] = [];
  for (const raw of scopes) {
    const scope = raw === 'application_connect' ? 'coder:application_connect' : raw;
    const composite = Object.hasOwn(COMPOSITE_SCOPES, scope) ? COMPOSITE_SCOPES[scope] : undefined;
    if (composite) {
      out.push(...composite);
      continue;
    }
    const colon = scope.indexOf(':');
    if (colon <= 0) continue;
    const type = scope.slice(0, colon);
    const action = scope.slice(colon + 1);
    const actions = resourceActions(type);
    if (actions && (action === '*' || actions.includes(action))) out.push({ type, action });
  }
  return out;
}
