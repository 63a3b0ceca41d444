import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type AuditEntry, AuditLog } from '../../platform/audit/audit-log';
import { currentRequestContext } from '../../platform/http/request-context';
import { AUDIT_CONFIG, type AuditConfig } from './audit.config';
import { type AuditEntryWithActor, AuditLogRepository, auditFilterClause } from './audit-log.repository';
import { type AuditFilters, auditLogRow, cappedCount } from './audit-query';

export type { AuditFilters } from './audit-query';
export type { ActorRow } from './audit-log.repository';

export interface AuditPage {
  entries: AuditEntryWithActor[];
  count: number;
  /** Set when the count stopped at the cap. */
  countCap?: number;
}

/** The audit log: the platform's AuditLog port (writes) and the list behind `GET /api/v2/audit`. */
@Injectable()
export class AuditLogService extends AuditLog {
  /** Coder stops counting matching entries here (`count_cap` in the response); `AUDIT_COUNT_CAP`. */
  readonly countCap: number;

  constructor(
    private readonly logs: AuditLogRepository,
    @Inject(AUDIT_CONFIG) config: AuditConfig,
  ) {
    super();
    this.countCap = config.countCap;
  }

  /** Inside the caller's transaction: the entry commits or rolls back with the write it records. */
  async record(manager: EntityManager, entry: AuditEntry): Promise<void> {
    await this.logs.insert(manager, auditLogRow(entry, currentRequestContext()));
  }

  async list(filters: AuditFilters, page: { limit: number; offset: number }): Promise<AuditPage> {
    const filter = auditFilterClause(filters);
    const total = await this.logs.countUpTo(filter, this.countCap + 1);
    const entries = await this.logs.page(filter, page);
    return { entries, ...cappedCount(total, this.countCap) };
  }
}
