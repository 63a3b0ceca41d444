import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { CoderUserDto } from '../identity/presenters/coder-user.presenter';

/** `GET /api/v2/audit` query: Coder's search query and offset paging. */
export class AuditLogsQueryDto {
  @ApiPropertyOptional({
    description:
      'search terms: resource_type, resource_id, resource_target, action, username, email, date_from, date_to (2006-01-02), organization (uuid or name), request_id, build_reason; a bare word is a resource type',
  })
  @IsOptional()
  @IsString()
  q?: string;

  @ApiPropertyOptional({ description: 'page size (default 100)' }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() offset?: string;
}

export class AuditLogOrganizationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty() display_name: string;
  @ApiProperty() icon: string;
}

/** codersdk.AuditLog */
export class AuditLogDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() request_id: string;
  @ApiProperty({ format: 'date-time' }) time: string;
  @ApiProperty() ip: string;
  @ApiProperty() user_agent: string;
  @ApiProperty() resource_type: string;
  @ApiProperty() resource_id: string;
  @ApiProperty() resource_target: string;
  @ApiProperty() resource_icon: string;
  @ApiProperty() action: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) diff: Record<string, unknown>;
  @ApiProperty() status_code: number;
  @ApiProperty({ type: 'object', additionalProperties: true }) additional_fields: Record<string, unknown>;
  @ApiProperty() description: string;
  @ApiProperty() resource_link: string;
  @ApiProperty() is_deleted: boolean;
  @ApiProperty({ format: 'uuid' }) organization_id: string;
  @ApiPropertyOptional({ type: AuditLogOrganizationDto }) organization?: AuditLogOrganizationDto;
  @ApiProperty({ type: CoderUserDto, nullable: true }) user: CoderUserDto | null;
}

/** codersdk.AuditLogResponse */
export class AuditLogResponseDto {
  @ApiProperty({ type: [AuditLogDto] }) audit_logs: AuditLogDto[];
  @ApiProperty() count: number;
  @ApiProperty({ description: 'where the count stops (AUDIT_COUNT_CAP)' }) count_cap: number;
}
