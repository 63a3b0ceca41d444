import { FlowCheck } from './flow-check.entity';
import { FlowOperationScope } from './flow-operation-scope.entity';
import { FlowOperation } from './flow-operation.entity';
import { WorkflowEventReceipt } from './workflow-event-receipt.entity';

export const WORKFLOWS_ENTITIES: Function[] = [
  FlowOperation,
  FlowCheck,
  FlowOperationScope,
  WorkflowEventReceipt,
];
