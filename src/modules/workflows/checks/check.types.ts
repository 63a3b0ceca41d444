import type { RequestSnapshot } from '../../../platform/events/subject-events';
import { InvalidError } from '../../../platform/errors/domain-error';
import type { RegexBudget } from './php-regex';

/** What a check can read about the event (a snapshot; never a live request). */
export interface CheckSubject {
  entity: string;
  actorUserId: string | null;
  request: RequestSnapshot | null;
  file?: { name: string; mimeType: string | null; size: number | null };
  /** Lower-cased group ids of the acting user (`org`, `org/team`, `admin`), loaded when a rule needs them. */
  groups?: Set<string>;
  /** Current time in unix seconds. */
  now: number;
  /** Regex steps left for this event (php-regex RegexBudget); none = only the per-test limit (tests). */
  regexBudget?: RegexBudget;
}

/** A check with its operator and value parsed once, when rules are loaded. */
export type CompiledCheck = (subject: CheckSubject) => boolean;

export interface CheckValidationDeps {
  groupExists(group: string): Promise<boolean>;
}

export interface CheckDefinition {
  id: string;
  name: string;
  operators: string[];
  valueFormat: string;
  examples: string[];
  /** Entities the check may be used with; empty = any. */
  supportedEntities: string[];
  /** Scopes where Nextcloud's UI offers it (informational; not enforced, as in Nextcloud). */
  scopes: number[];
  /** Whether evaluation needs the acting user's groups. */
  needsGroups?: boolean;
  /** Throws CheckInvalidError with Nextcloud's message. Operator first, then value. */
  validate(operator: string, value: string, deps: CheckValidationDeps): void | Promise<void>;
  /** Compiles a stored (already valid) check. Must not throw for stored data; return () => false instead. */
  compile(operator: string, value: string): CompiledCheck;
}

export class CheckInvalidError extends InvalidError {
  constructor(message: string) {
    super(message, { code: 'WORKFLOW_INVALID' });
  }
}

export const OPERATOR_INVALID = 'The given operator is invalid';
