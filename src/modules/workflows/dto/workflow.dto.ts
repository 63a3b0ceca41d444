import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Documentation of the bodies and answers; the service validates the raw body itself (Nextcloud's order and messages). */
export class WorkflowCheckDto {
  @ApiProperty({ minLength: 1, example: 'OCA\\WorkflowEngine\\Check\\FileName' })
  class: string;

  @ApiProperty({
    enum: ['is', 'in', 'match', 'matches', 'less', 'greater', 'matchesIPv4', 'matchesIPv6', '!is', '!in', '!match', '!matches', '!less', '!greater', '!matchesIPv4', '!matchesIPv6'],
  })
  operator: string;

  @ApiProperty({ example: '/\\.exe$/i' })
  value: string;
}

export class UpdateWorkflowDto {
  @ApiProperty({ description: 'Name of the rule (at most 256 bytes)' })
  name: string;

  @ApiProperty({ type: [WorkflowCheckDto], description: 'At least one check' })
  checks: WorkflowCheckDto[];

  @ApiProperty({ description: 'Operation data (at most 4096 bytes)' })
  operation: string;

  @ApiProperty({ minLength: 1, example: 'OCA\\WorkflowEngine\\Entity\\File' })
  entity: string;

  @ApiProperty({ type: [String], example: ['OCP\\Files\\Events\\Node\\NodeCreatedEvent'] })
  events: string[];

  @ApiPropertyOptional({ description: 'Nextcloud 34 field; "" when left out' })
  description?: string;
}

export class CreateWorkflowDto extends UpdateWorkflowDto {
  @ApiProperty({ minLength: 1, example: 'OCA\\FlowNotifications\\Flow\\Operation' })
  class: string;
}

export class WorkflowRuleDto extends CreateWorkflowDto {
  @ApiProperty({ type: 'integer', format: 'int64' })
  id: number;

  @ApiPropertyOptional({ description: 'Index and show only: 0 admin, 1 user' })
  scope_type?: number;

  @ApiPropertyOptional({ description: 'Index and show only: "" for the admin scope, the username for a user scope' })
  scope_actor_id?: string;
}

export class ConfirmPasswordDto {
  @ApiProperty()
  password: string;
}

export class ConfirmPasswordResponseDto {
  @ApiProperty({ description: 'Unix seconds of the confirmation' })
  lastLogin: number;
}
