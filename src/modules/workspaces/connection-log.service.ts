import { Inject, Injectable } from '@nestjs/common';
import { IdentityDirectory } from '../identity/identity-directory.service';
import { AuthorizationService } from '../auth/authorization.service';
import type { Principal } from '../../api/access/principal';
import type { ConnectionLog } from './entities/connection-log.entity';
import {
  type ConnectionLogFilters,
  ConnectionLogSearchRepository,
} from './repositories/connection-log-search.repository';
import { WorkspaceAccounts } from './workspace-accounts.service';
import type { UserSummary } from './workspace-views';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';

/** The filters of the list; `organization` names an organization by uuid or name. */
/** A connection log entry with its organization's name (identity's directory). */
export interface ConnectionLogEntry extends ConnectionLog {
  organizationName: string;
}

export type ConnectionLogQuery = Omit<ConnectionLogFilters, 'organizationIds' | 'organizationUuids'> & {
  organization?: string;
};

/** Coder's connection log: what the caller may audit, newest first, counted up to `CONNECTION_LOG_COUNT_CAP`. */
@Injectable()
export class ConnectionLogService {
  constructor(
    private readonly authz: AuthorizationService,
    private readonly search: ConnectionLogSearchRepository,
    private readonly accounts: WorkspaceAccounts,
    private readonly directory: IdentityDirectory,
    @Inject(WORKSPACES_CONFIG) private readonly config: WorkspacesConfig,
  ) {}

  get countCap(): number {
    return this.config.connectionLogCountCap;
  }

  /**
   * Entries matching the filters; without site-wide `connection_log:read` only those of the organizations
   * the caller may audit. `total` stops at the cap plus one.
   */
  async list(
    principal: Principal,
    query: ConnectionLogQuery,
    page: { limit: number; offset: number },
  ): Promise<{ entries: ConnectionLogEntry[]; total: number; owners: Map<string, UserSummary> }> {
    const { organization, ...filters } = query;
    let organizationIds: string[] | undefined;
    if (!(await this.authz.authorize(principal, 'read', { type: 'connection_log' }))) {
      organizationIds = [];
      const memberOf = await this.directory.organizationUuidsOf(principal.user.id).catch(() => []);
      for (const uuid of memberOf)
        if (await this.authz.authorize(principal, 'read', { type: 'connection_log', orgId: uuid }))
          organizationIds.push(uuid);
    }
    const organizationUuids = organization ? await this.directory.accountUuidsByRef(organization) : undefined;
    const { entries, total } = await this.search.search(
      { ...filters, organizationUuids, organizationIds },
      page,
      this.countCap,
    );
    const owners = await this.accounts.summaries(entries.map((entry) => entry.workspaceOwnerId));
    const organizations = await this.directory.namesByUuids(entries.map((entry) => entry.organizationId));
    return {
      entries: entries.map((entry) => ({
        ...entry,
        organizationName: organizations.get(entry.organizationId)?.name ?? '',
      })),
      total,
      owners,
    };
  }
}
