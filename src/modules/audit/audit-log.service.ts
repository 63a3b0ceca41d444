import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { type AuditEntry, AuditLog } from '../../platform/audit/audit-log';
import { currentRequestContext } from '../../platform/http/request-context';
import type { AuditLogEntry } from './audit-log.entity';
import { AUDIT_CONFIG, type AuditConfig } from './audit.config';
import type { User } from '../identity/entities/user.entity';
import { IdentityDirectory } from '../identity/identity-directory.service';
import { AuditLogRepository, auditFilterClause, type ResolvedAuditFilters } from './audit-log.repository';
import { type AuditFilters, auditLogRow, cappedCount } from './audit-query';

export type { AuditFilters } from './audit-query';

/** An entry with its actor's account (null when the entry has no actor or the account is gone). */
export type AuditEntryWithActor = AuditLogEntry & { actor: User | null };

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
    private readonly directory: IdentityDirectory,
    @Inject(AUDIT_CONFIG) config: AuditConfig,
  ) {
    super();
    this.countCap = config.countCap;
  }

  /** Inside the caller's transaction: the entry commits or rolls back with the write it records. */
  async record(manager: EntityManager, entry: AuditEntry): Promise<void> {
    await this.logs.insert(manager, auditLogRow(entry, currentRequestContext()));
  }

  insertSql(
    entry: Omit<AuditEntry, 'resourceId'>,
    source: { cte: string; resourceIdSql: string },
    params: unknown[],
  ): string {
    return this.logs.insertSql(
      auditLogRow({ ...entry, resourceId: '' }, currentRequestContext()),
      source,
      params,
    );
  }

  async list(filters: AuditFilters, page: { limit: number; offset: number }): Promise<AuditPage> {
    const filter = auditFilterClause(await this.resolveActorFilters(filters));
    const total = await this.logs.countUpTo(filter, this.countCap + 1);
    const rows = await this.logs.page(filter, page);
    const actors = await this.directory.usersByIds(rows.flatMap((row) => (row.userId ? [row.userId] : [])));
    const entries = rows.map((row) => {
      const actor = row.userId ? actors.get(row.userId) : undefined;
      return { ...row, actor: actor ?? null };
    });
    return { entries, ...cappedCount(total, this.countCap) };
  }

  /** `username:` and `email:` name accounts (case-insensitively); identity resolves them to ids. */
  private async resolveActorFilters(filters: AuditFilters): Promise<ResolvedAuditFilters> {
    const { username, email, ...rest } = filters;
    const userIds: string[][] = [];
    if (username) userIds.push(await this.directory.accountIdsByName(username));
    if (email) userIds.push(await this.directory.accountIdsByEmail(email));
    return userIds.length ? { ...rest, userIds } : rest;
  }
}
