import { Get, Inject, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { int } from '../../../platform/config/app-config';
import type { AppConfig } from '../../../platform/config/app-config';
import { APP_CONFIG } from '../../../platform/config/config.token';
import { Authenticated, CurrentPrincipal } from '../../auth/access.decorators';
import { AuthorizationService } from '../../auth/authorization.service';
import type { Principal } from '../../auth/principal';
import { UserDirectory } from '../../identity/user-directory.service';
import { CONNECTION_TYPES } from '../workspace-agents.service';
import { CoderListQueryDto } from '../dto/workspaces.dto';
import { loadUsers } from '../workspace-views';
import { coderPage, coderSearch } from '../../../api/coder/coder-search-query';

const ERROR = { type: CoderResponseDto };

export class ConnectionLogDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) connect_time: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) organization: Record<string, string>;
  @ApiProperty({ format: 'uuid' }) workspace_owner_id: string;
  @ApiProperty() workspace_owner_username: string;
  @ApiProperty({ format: 'uuid' }) workspace_id: string;
  @ApiProperty() workspace_name: string;
  @ApiProperty() agent_name: string;
  @ApiPropertyOptional() ip?: string;
  @ApiProperty({ enum: CONNECTION_TYPES }) type: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) web_info?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) ssh_info?: Record<string, unknown>;
}

export class ConnectionLogResponseDto {
  @ApiProperty({ type: [ConnectionLogDto] }) connection_logs: ConnectionLogDto[];
  @ApiProperty() count: number;
  @ApiPropertyOptional({ description: 'present when the count stopped at this cap' }) count_cap?: number;
}

/** Coder's connection log (`GET /api/v2/connectionlog`): owners and auditors (`connection_log:read`). */
@CoderController('connectionlog')
export class ConnectionLogController {
  private readonly countCap: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly authz: AuthorizationService,
    private readonly users: UserDirectory,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.countCap = int(config.env, 'CONNECTION_LOG_COUNT_CAP', 2000, 1, 100_000_000);
  }

  @Get()
  @Authenticated({ tokenScope: { type: 'connection_log', action: 'read' } })
  @ApiOperation({
    summary:
      'List connection log entries, newest first (q: organization:, workspace_owner:, workspace_id:, type:, username:, status:)',
  })
  @ApiOkResponse({ type: ConnectionLogResponseDto })
  @ApiResponse({ status: 400, ...ERROR })
  @ApiResponse({ status: 403, ...ERROR })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: CoderListQueryDto,
  ): Promise<ConnectionLogResponseDto> {
    await this.authz.require(principal, 'read', { type: 'connection_log', anyOrg: true });
    const page = coderPage(query);
    const filters = coderSearch(query.q ?? '', 'search', 'Invalid connection search query.', (parser) => ({
      owner: parser.string('workspace_owner'),
      workspaceId: parser.uuid('workspace_id'),
      types: parser.enumList('type', CONNECTION_TYPES),
      // Coder's ConnectionLogStatus: ongoing (not disconnected yet) or completed.
      status: parser.enumList('status', ['ongoing', 'completed'] as const),
      organization: parser.string('organization'),
      search: parser.string('search'),
    }));
    const where = ['true'];
    const params: unknown[] = [];
    const add = (clause: (n: number) => string, value: unknown): void => {
      params.push(value);
      where.push(clause(params.length));
    };
    if (filters.owner)
      add(
        (n) => `c.workspace_owner_id = $${n}`,
        (await this.users.requireCoderUser(filters.owner, principal)).uuid,
      );
    if (filters.workspaceId) add((n) => `c.workspace_id = $${n}`, filters.workspaceId);
    if (filters.types.length) add((n) => `c.type = ANY($${n})`, filters.types);
    if (filters.status.length === 1)
      where.push(
        filters.status[0] === 'ongoing' ? 'c.disconnect_time IS NULL' : 'c.disconnect_time IS NOT NULL',
      );
    if (filters.organization)
      add(
        (n) =>
          `c.organization_id IN (SELECT uuid FROM users WHERE uuid::text = $${n} OR lower_name = lower($${n}))`,
        filters.organization,
      );
    if (!(await this.authz.authorize(principal, 'read', { type: 'connection_log' }))) {
      const visible = (await this.dataSource
        .query(
          `SELECT o.uuid FROM organization_members m JOIN users o ON o.id = m.organization_id WHERE m.user_id = $1`,
          [principal.user.id],
        )
        .catch(() => [])) as { uuid: string }[];
      const allowed: string[] = [];
      for (const row of visible)
        if (await this.authz.authorize(principal, 'read', { type: 'connection_log', orgId: row.uuid }))
          allowed.push(row.uuid);
      add((n) => `c.organization_id = ANY($${n}::uuid[])`, allowed);
    }
    const whereSql = where.join(' AND ');
    const [counted] = (await this.dataSource.query(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM connection_logs c WHERE ${whereSql} LIMIT ${this.countCap + 1}) capped`,
      params,
    )) as { n: number }[];
    const limit = page.limit || 100;
    const rows = (await this.dataSource.query(
      `SELECT c.*, o.name AS organization_name FROM connection_logs c LEFT JOIN users o ON o.uuid = c.organization_id
        WHERE ${whereSql} ORDER BY c.connect_time DESC, c.id LIMIT ${limit} OFFSET ${page.offset}`,
      params,
    )) as Record<string, string | number | Date | null>[];
    const users = await loadUsers(
      this.dataSource,
      rows.map((row) => row.workspace_owner_id as string),
    );
    const total = counted?.n ?? 0;
    return {
      connection_logs: rows.map((row) => {
        const web = row.type === 'workspace_app' || row.type === 'port_forwarding';
        return {
          id: row.id as string,
          connect_time: new Date(row.connect_time as Date).toISOString(),
          organization: {
            id: row.organization_id as string,
            name: (row.organization_name as string) ?? '',
            display_name: '',
            icon: '',
          },
          workspace_owner_id: row.workspace_owner_id as string,
          workspace_owner_username: users.get(row.workspace_owner_id as string)?.name ?? '',
          workspace_id: row.workspace_id as string,
          workspace_name: row.workspace_name as string,
          agent_name: row.agent_name as string,
          ip: (row.ip as string) ?? undefined,
          type: row.type as string,
          ...(web
            ? {
                web_info: {
                  user_agent: row.user_agent ?? '',
                  user: null,
                  slug_or_port: row.slug_or_port ?? '',
                  status_code: row.code ?? 0,
                },
              }
            : {
                ssh_info: {
                  connection_id: row.connection_id,
                  disconnect_time: row.disconnect_time
                    ? new Date(row.disconnect_time).toISOString()
                    : undefined,
                  disconnect_reason: row.disconnect_reason ?? undefined,
                  exit_code: row.code ?? undefined,
                },
              }),
        };
      }),
      count: Math.min(total, this.countCap),
      ...(total > this.countCap ? { count_cap: this.countCap } : {}),
    };
  }
}
