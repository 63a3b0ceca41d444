import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import type { CreateWorkflowRuleInput } from '../workflow-rule.input';
import { UpdateWorkflowDto } from './update-workflow.dto';

/** POST `…/workflows/{global,user}`: `class` is validated first (a subclass's own fields come before the inherited ones). */
export class CreateWorkflowDto extends UpdateWorkflowDto implements CreateWorkflowRuleInput {
  @ApiProperty({ minLength: 1, example: 'OCA\\FlowNotifications\\Flow\\Operation' })
  @IsString()
  class: string;
}
