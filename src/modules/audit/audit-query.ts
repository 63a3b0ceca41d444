/** The audit list's filters and its count cap (pure; the filter clause is built in audit-log.repository.ts). */
import type { AuditEntry } from '../../platform/audit/audit-log';
import type { RequestContext } from '../../platform/http/request-context';

export interface AuditFilters {
  resourceType?: string;
  resourceId?: string;
  resourceTarget?: string;
  action?: string;
  username?: string;
  email?: string;
  dateFrom?: Date;
  /** Inclusive: the whole day. */
  dateTo?: Date;
  organizationId?: string;
  requestId?: string;
  /** Only these organizations (organization auditors); undefined = every entry. */
  visibleOrganizations?: string[];
}

/**
 * The count of a page: a count that went past the cap (the query counts at most cap + 1 rows)
 * is reported as the cap, with `countCap` set.
 */
export function cappedCount(total: number, cap: number): { count: number; countCap?: number } {
  return total > cap ? { count: cap, countCap: cap } : { count: total };
}

/** The columns of a new `audit_logs` row. */
export interface AuditLogRow {
  userId: string | null;
  organizationId: string | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  resourceType: string;
  resourceId: string;
  resourceTarget: string;
  action: string;
  diff: Record<string, unknown>;
  statusCode: number;
  additionalFields: Record<string, unknown>;
}

/**
 * The row recorded for an entry: what the entry leaves out comes from the current request (the caller
 * is the actor unless the entry names one, `null` = the system); the target is cut to its 512 characters.
 */
export function auditLogRow(
  entry: AuditEntry,
  request: Pick<RequestContext, 'userId' | 'ip' | 'userAgent' | 'requestId'> | undefined,
): AuditLogRow {
  return {
    userId: entry.actorUserId === undefined ? (request?.userId ?? null) : entry.actorUserId,
    organizationId: entry.organizationId ?? null,
    ip: entry.ip ?? request?.ip ?? null,
    userAgent: entry.userAgent ?? request?.userAgent ?? null,
    requestId: entry.requestId ?? request?.requestId ?? null,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId,
    resourceTarget: entry.resourceTarget.slice(0, 512),
    action: entry.action,
    diff: entry.diff ?? {},
    statusCode: entry.statusCode ?? 200,
    additionalFields: entry.additionalFields ?? {},
  };
}
