import type { EntityManager } from 'typeorm';

/** One administrative action, as Coder's audit log records it. */
export interface AuditEntry {
  /** Coder's `action`: create, write, delete, start, stop, login, logout, register, ... */
  action: string;
  /** Coder's `resource_type`: user, organization, group, api_key, template, workspace, ... */
  resourceType: string;
  /** Id of the resource (uuid or numeric as text). */
  resourceId: string;
  /** A readable target (user name, workspace name, ...). */
  resourceTarget: string;
  /** Numeric id of the user who acted, null for the system; omitted = the caller of the current request. */
  actorUserId?: string | null;
  organizationId?: string | null;
  /** Field changes `{field: {old, new, secret}}`; secret values are never passed here. */
  diff?: Record<string, { old: unknown; new: unknown; secret?: boolean }>;
  /** HTTP status of the request, 200 when not from a request. */
  statusCode?: number;
  ip?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
  additionalFields?: Record<string, unknown>;
}

/**
 * The audit log, a port of the platform. Every module calls `record(manager, entry)` INSIDE the
 * transaction of the write it audits, so the entry and the write commit or roll back together.
 * The audit module implements it; without it entries are dropped.
 */
export abstract class AuditLog {
  abstract record(manager: EntityManager, entry: AuditEntry): Promise<void>;

  /**
   * The entry as the body of a data-modifying CTE in the caller's own statement, so a write and its
   * entry are one statement (atomic without an explicit transaction, one round trip):
   * `INSERT INTO … SELECT … FROM source`, one entry per row of `source` (a CTE of that statement,
   * typically the row just written). `resourceIdSql` is an SQL expression over `source` that gives the
   * resource's id (known only inside the statement). The entry's values are appended to `params`.
   * Null when entries are dropped.
   */
  abstract insertSql(
    entry: Omit<AuditEntry, 'resourceId'>,
    source: { cte: string; resourceIdSql: string },
    params: unknown[],
  ): string | null;
}

/** The implementation used until the audit module provides one. */
export class NoAuditLog extends AuditLog {
  async record(): Promise<void> {}

  insertSql(): null {
    return null;
  }
}
// Consumers inject it with `@Optional() @Inject(AuditLog)` and skip when absent (fixture apps,
// or before the audit module is composed); the audit module provides it globally.
