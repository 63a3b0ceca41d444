/**
 * What the rule service takes (typed, parsed at the edge by the DTOs in `dto/`). The check elements
 * are parsed but not judged at the edge: Nextcloud validates them after the operation and the entity,
 * so the service reports them in that order.
 */
export interface WorkflowCheckInput {
  class: string;
  /** null when the operator is missing or not a string ("The given operator is invalid", after the class checks). */
  operator: string | null;
  value: string;
}

/** One element of `checks`: null when it is not an object or its class or value is not a string ("Invalid check provided"). */
export type WorkflowCheckElement = WorkflowCheckInput | null;

/** Update body: the stored class is kept, so the body has none. */
export interface UpdateWorkflowRuleInput {
  name: string;
  checks: WorkflowCheckElement[];
  operation: string;
  entity: string;
  events: string[];
  /** Nextcloud 34: "" when left out (or null). */
  description?: string | null;
}

export interface CreateWorkflowRuleInput extends UpdateWorkflowRuleInput {
  class: string;
}

/** Parses one wire element of `checks` (never throws). */
export function parseCheckElement(raw: unknown): WorkflowCheckElement {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const check = raw as Record<string, unknown>;
  if (typeof check.class !== 'string' || typeof check.value !== 'string') return null;
  return {
    class: check.class,
    operator: typeof check.operator === 'string' ? check.operator : null,
    value: check.value,
  };
}
