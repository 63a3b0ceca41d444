import { InvalidError } from '../../platform/errors/domain-error';

/** Pure rules of workspaces and their builds (no database): names, the one-build-at-a-time rule, sharing roles. */

const NAME = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/;

/** Coder's `workspace_name` tag (templates too): 1-32 letters, digits and single hyphens, not at either end. */
export function isValidName(name: string): boolean {
  return !(name.length > 32 || !NAME.test(name) || name.includes('--'));
}

/** 422 `INVALID_NAME` with Coder's validation text for the field. */
export function checkName(name: string, field = 'name'): void {
  if (!isValidName(name))
    throw new InvalidError('Validation failed.', {
      code: 'INVALID_NAME',
      fields: [{ field, detail: 'Validation failed for tag "workspace_name" with value: "' + name + '"' }],
    });
}

/** A build whose job is in one of these states is active: no other build may start (409 `BUILD_ACTIVE`). */
export const ACTIVE_JOB_STATUSES: readonly string[] = ['pending', 'running', 'canceling'];

export function isBuildActive(latest: { status: string } | undefined): boolean {
  return latest !== undefined && ACTIVE_JOB_STATUSES.includes(latest.status);
}

/** A task's pause (stop) or resume (start) is refused when its latest build already succeeded at it. */
export function taskAlreadyIn(
  latest: { transition: string; status: string } | undefined,
  transition: 'start' | 'stop',
): boolean {
  return latest !== undefined && latest.status === 'succeeded' && latest.transition === transition;
}

/** The RBAC actions a workspace sharing role grants (`''` removes the share: null); another role is 422. */
export function aclActions(role: string): string[] | null {
  if (role === '') return null;
  if (role === 'use') return ['read', 'ssh', 'application_connect'];
  if (role === 'admin') return ['read', 'ssh', 'application_connect', 'update', 'start', 'stop', 'share'];
  throw new InvalidError('Invalid request to update workspace ACL', {
    fields: [{ field: 'role', detail: `role "${role}" is not a valid workspace role` }],
  });
}

/**
 * The workspace's ACLs after a `PATCH /workspaces/{id}/acl`: each role replaces or (empty) removes an entry;
 * the owner's own role cannot be changed (422).
 */
export function applyAclChanges(
  current: { ownerId: string; userAcl: Record<string, string[]>; groupAcl: Record<string, string[]> },
  changes: { userRoles: Record<string, string>; groupRoles: Record<string, string> },
): { userAcl: Record<string, string[]>; groupAcl: Record<string, string[]> } {
  const userAcl = { ...current.userAcl };
  for (const [id, role] of Object.entries(changes.userRoles)) {
    if (id === current.ownerId)
      throw new InvalidError('Invalid request to update workspace ACL', {
        fields: [{ field: 'user_roles', detail: 'cannot change the role of the workspace owner' }],
      });
    const granted = aclActions(role);
    if (granted) userAcl[id] = granted;
    else delete userAcl[id];
  }
  const groupAcl = { ...current.groupAcl };
  for (const [id, role] of Object.entries(changes.groupRoles)) {
    const granted = aclActions(role);
    if (granted) groupAcl[id] = granted;
    else delete groupAcl[id];
  }
  return { userAcl, groupAcl };
}

/** The sharing role a stored ACL entry shows (`admin` when it may update). */
export function aclRole(actions: string[]): 'admin' | 'use' {
  return actions.includes('update') ? 'admin' : 'use';
}

export type BuildTimeStats = Record<string, { P50: number | null; P95: number | null }>;

/**
 * Coder's TemplateBuildTimeStats from percentile rows: every template gets start, stop and delete (null
 * without a successful build), milliseconds rounded.
 */
export function buildTimeStatsFrom(
  ids: string[],
  rows: { template_id: string; transition: string; p50: number | string; p95: number | string }[],
): Map<string, BuildTimeStats> {
  const out = new Map<string, BuildTimeStats>();
  for (const id of ids)
    out.set(id, {
      start: { P50: null, P95: null },
      stop: { P50: null, P95: null },
      delete: { P50: null, P95: null },
    });
  for (const row of rows)
    out.get(row.template_id)![row.transition] = {
      P50: Math.round(Number(row.p50)),
      P95: Math.round(Number(row.p95)),
    };
  return out;
}

/** A workspace list's page of the visible rows (`limit` 0: all from `offset`). */
export function pageOf<T>(rows: T[], page: { limit: number; offset: number }): T[] {
  return page.limit > 0 ? rows.slice(page.offset, page.offset + page.limit) : rows.slice(page.offset);
}
