import { CHECKS } from './checks/check-registry';
import { ENTITIES, OPERATIONS } from './workflow-registry';
import { OPERATOR_ALIASES } from './workflow.constants';

export interface WorkflowCatalogue {
  entities: {
    id: string;
    name: string;
    events: { eventName: string; displayName: string; emitted: boolean }[];
  }[];
  checks: {
    id: string;
    name: string;
    operators: string[];
    valueFormat: string;
    examples: string[];
    supportedEntities: string[];
    scopes: number[];
  }[];
  operations: {
    id: string;
    name: string;
    description: string;
    scopes: number[];
    complex: boolean;
    triggerHint?: string;
    entity?: string;
    operationFormat: string;
  }[];
  operatorAliases: Record<string, string>;
}

let cached: WorkflowCatalogue | undefined;

/** Built from the same registries the validator uses, so the two cannot drift. */
export function buildCatalogue(): WorkflowCatalogue {
  cached ??= {
    entities: ENTITIES.map((entity) => ({
      id: entity.id,
      name: entity.name,
      events: entity.events.map((event) => ({
        eventName: event.eventName,
        displayName: event.displayName,
        emitted: event.domainEvent !== undefined,
      })),
    })),
    checks: CHECKS.map((check) => ({
      id: check.id,
      name: check.name,
      operators: check.operators,
      valueFormat: check.valueFormat,
      examples: check.examples,
      supportedEntities: check.supportedEntities,
      scopes: check.scopes,
    })),
    operations: OPERATIONS.map((operation) => ({
      id: operation.id,
      name: operation.name,
      description: operation.description,
      scopes: operation.scopes,
      complex: operation.complex,
      ...(operation.triggerHint ? { triggerHint: operation.triggerHint } : {}),
      ...(operation.entity ? { entity: operation.entity } : {}),
      operationFormat: operation.operationFormat,
    })),
    operatorAliases: { ...OPERATOR_ALIASES },
  };
  return cached;
}
