import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsArray, IsOptional, IsString } from 'class-validator';
import {
  parseCheckElement,
  type UpdateWorkflowRuleInput,
  type WorkflowCheckElement,
} from '../workflow-rule.input';
import { WorkflowCheckDto } from './workflow-check.dto';

/**
 * PUT `…/workflows/{global,user}/{id}`. A failure answers the OCS 400 `Parameter "<field>" is missing or has
 * the wrong type` for the first failing field in declaration order (api/ocs/ocs-validation.ts): keep the
 * order name, checks, operation, entity, events, description. `class` is not part of it (the stored class is kept).
 */
export class UpdateWorkflowDto implements UpdateWorkflowRuleInput {
  @ApiProperty({ description: 'Name of the rule (at most 256 bytes)' })
  @IsString()
  name: string;

  @ApiProperty({
    type: [WorkflowCheckDto],
    description: 'At least one check (validated after operation and entity, in Nextcloud order)',
  })
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map(parseCheckElement) : value))
  @IsArray()
  checks: WorkflowCheckElement[];

  @ApiProperty({ description: 'Operation data (at most 4096 bytes)' })
  @IsString()
  operation: string;

  @ApiProperty({ minLength: 1, example: 'OCA\\WorkflowEngine\\Entity\\File' })
  @IsString()
  entity: string;

  @ApiProperty({ type: [String], example: ['OCP\\Files\\Events\\Node\\NodeCreatedEvent'] })
  @IsArray()
  @IsString({ each: true })
  events: string[];

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Nextcloud 34 field; "" when left out' })
  @IsOptional()
  @IsString()
  description?: string | null;
}
