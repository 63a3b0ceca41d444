import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WorkflowCheckDto } from './workflow-check.dto';

/** A stored rule as the OCS routes answer it (create/update: the first eight fields; index/show add the scope). */
export class WorkflowRuleDto {
  @ApiProperty({ type: 'integer', format: 'int64' })
  id: number;

  @ApiProperty({ minLength: 1, example: 'OCA\\FlowNotifications\\Flow\\Operation' })
  class: string;

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

  @ApiPropertyOptional({ description: 'Index and show only: 0 admin, 1 user' })
  scope_type?: number;

  @ApiPropertyOptional({
    description: 'Index and show only: "" for the admin scope, the username for a user scope',
  })
  scope_actor_id?: string;
}
