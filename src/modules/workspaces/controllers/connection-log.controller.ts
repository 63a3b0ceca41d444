import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import { AuthorizationService } from '../../auth/authorization.service';
import type { Principal } from '../../../api/access/principal';
import { UserDirectory } from '../../identity/user-directory.service';
import { CONNECTION_TYPES } from '../workspace-agents.service';
import { CoderListQueryDto } from '../dto/workspaces.dto';
import { ConnectionLogService } from '../connection-log.service';
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
  @ApiProperty({ description: 'where the count stops (CONNECTION_LOG_COUNT_CAP)' }) count_cap: number;
}

/** Coder's connection log (`GET /api/v2/connectionlog`): owners and auditors (`connection_log:read`). */
@CoderController('connectionlog')
export class ConnectionLogController {
  constructor(
    private readonly connectionLog: ConnectionLogService,
    private readonly authz: AuthorizationService,
    private readonly users: UserDirectory,
  ) {}

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
      status: parser.enumValue('status', ['ongoing', 'completed'] as const),
      organization: parser.string('organization'),
      search: parser.string('search'),
    }));
    const ownerId = filters.owner
      ? (await this.users.requireCoderUser(filters.owner, principal)).uuid
      : undefined;
    const {
      entries,
      total,
      owners: users,
    } = await this.connectionLog.list(
      principal,
      {
        ownerId,
        workspaceId: filters.workspaceId,
        types: filters.types,
        status: filters.status,
        organization: filters.organization,
      },
      { limit: page.limit || 100, offset: page.offset },
    );
    const countCap = this.connectionLog.countCap;
    return {
      connection_logs: entries.map((entry) => {
        const web = entry.type === 'workspace_app' || entry.type === 'port_forwarding';
        return {
          id: entry.id,
          connect_time: new Date(entry.connectTime).toISOString(),
          organization: {
            id: entry.organizationId,
            name: entry.organizationName,
            display_name: '',
            icon: '',
          },
          workspace_owner_id: entry.workspaceOwnerId,
          workspace_owner_username: users.get(entry.workspaceOwnerId)?.name ?? '',
          workspace_id: entry.workspaceId,
          workspace_name: entry.workspaceName,
          agent_name: entry.agentName,
          ip: entry.ip ?? undefined,
          type: entry.type,
          ...(web
            ? {
                web_info: {
                  user_agent: entry.userAgent ?? '',
                  user: null,
                  slug_or_port: entry.slugOrPort ?? '',
                  status_code: entry.code ?? 0,
                },
              }
            : {
                ssh_info: {
                  connection_id: entry.connectionId,
                  disconnect_time: entry.disconnectTime
                    ? new Date(entry.disconnectTime).toISOString()
                    : undefined,
                  disconnect_reason: entry.disconnectReason ?? undefined,
                  exit_code: entry.code ?? undefined,
                },
              }),
        };
      }),
      count: Math.min(total, countCap),
      // Coder always sends the cap its count stops at.
      count_cap: countCap,
    };
  }
}
