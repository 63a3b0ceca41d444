import { Inject, Injectable } from '@nestjs/common';
import { AuthorizationService } from '../auth/authorization.service';
import type { Principal } from '../auth/principal';
import {
  type ConnectionLogFilters,
  type ConnectionLogRow,
  ConnectionLogSearchRepository,
} from './repositories/connection-log-search.repository';
import { WorkspaceViewsRepository } from './repositories/workspace-views.repository';
import type { UserSummary } from './workspace-views';
import { WORKSPACES_CONFIG, type WorkspacesConfig } from './workspaces.config';

/** Coder's connection log: what the caller may audit, newest first, counted up to `CONNECTION_LOG_COUNT_CAP`. */
@Injectable()
export class ConnectionLogService {
  constructor(
    private readonly authz: AuthorizationService,
    private readonly search: ConnectionLogSearchRepository,
    private readonly views: WorkspaceViewsRepository,
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
    filters: Omit<ConnectionLogFilters, 'organizationIds'>,
    page: { limit: number; offset: number },
  ): Promise<{ rows: ConnectionLogRow[]; total: number; owners: Map<string, UserSummary> }> {
    let organizationIds: string[] | undefined;
    if (!(await this.authz.authorize(principal, 'read', { type: 'connection_log' }))) {
      organizationIds = [];
      for (const uuid of await this.search.memberOrganizations(principal.user.id))
        if (await this.authz.authorize(principal, 'read', { type: 'connection_log', orgId: uuid }))
          organizationIds.push(uuid);
    }
    const { rows, total } = await this.search.search({ ...filters, organizationIds }, page, this.countCap);
    const owners = await this.views.userSummaries(rows.map((row) => row.workspace_owner_id as string));
    return { rows, total, owners };
  }
}
