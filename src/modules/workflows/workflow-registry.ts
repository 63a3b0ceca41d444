import { isPrivateHost, isPublicAddress } from '../../platform/net/private-address';
import type { SubjectEventName } from '../../platform/events/subject-events';
import type { DomainEventMap } from '../../platform/events/event-map';
import { CHECKS_BY_ID } from './checks/check-registry';
import { CheckInvalidError } from './checks/check.types';
import type { WorkflowCheckElement } from './workflow-rule.input';
import {
  ENTITY_BRANCH,
  ENTITY_FILE,
  ENTITY_PACKAGE,
  ENTITY_USER,
  OPERATION_ACCESS_CONTROL,
  OPERATION_NOTIFICATION,
  OPERATION_WEBHOOK,
  SCOPE_ADMIN,
  SCOPE_USER,
} from './workflow.constants';

/** Domain events the engine listens to: the subject events plus identity's user events. */
export type EngineEventName =
  | SubjectEventName
  | 'user.created'
  | 'user.updated'
  | 'user.status_changed'
  | 'user.renamed'
  | 'user.deleted';

/**
 * One event as the engine receives it: a discriminated union on the domain event's name, each member
 * carrying the payload type its owning module declares in the event map (platform subject events for
 * files, branches and packages; identity's events for users).
 */
export type EngineEventInput = {
  [K in EngineEventName]: { name: K; payload: DomainEventMap[K] };
}[EngineEventName];

export interface WorkflowEventDefinition {
  /** The name rules store in `events`. */
  eventName: string;
  displayName: string;
  /** The devplane domain event that fires it (absent: accepted in rules, not emitted on devplane). */
  domainEvent?: EngineEventName;
  /** Display text, `%actor` and `%subject` replaced (Nextcloud's File entity texts). */
  text: string;
}

export interface WorkflowEntityDefinition {
  id: string;
  name: string;
  events: WorkflowEventDefinition[];
}

const NODE = 'OCP\\Files\\Events\\Node\\';
const DEV = 'OCA\\Devplane\\Events\\';

export const ENTITIES: readonly WorkflowEntityDefinition[] = [
  {
    id: ENTITY_FILE,
    name: 'File',
    events: [
      {
        eventName: `${NODE}NodeCreatedEvent`,
        displayName: 'File created',
        domainEvent: 'file.created',
        text: '%actor created %subject',
      },
      {
        eventName: `${NODE}NodeUpdatedEvent`,
        displayName: 'File updated',
        domainEvent: 'file.updated',
        text: '%actor modified %subject',
      },
      {
        eventName: `${NODE}NodeRenamedEvent`,
        displayName: 'File renamed',
        domainEvent: 'file.renamed',
        text: '%actor renamed %subject',
      },
      {
        eventName: `${NODE}NodeDeletedEvent`,
        displayName: 'File deleted',
        domainEvent: 'file.deleted',
        text: '%actor deleted %subject',
      },
      {
        eventName: `${NODE}NodeTouchedEvent`,
        displayName: 'File accessed',
        domainEvent: 'file.accessed',
        text: '%actor accessed %subject',
      },
      { eventName: `${NODE}NodeCopiedEvent`, displayName: 'File copied', text: '%actor copied %subject' },
      {
        eventName: 'OC\\SystemTag\\Events\\SingleTagAssignedEvent',
        displayName: 'Tag assigned',
        text: '%actor assigned a tag to %subject',
      },
    ],
  },
  {
    id: ENTITY_BRANCH,
    name: 'Branch',
    events: [
      {
        eventName: `${DEV}BranchCreatedEvent`,
        displayName: 'Branch created',
        domainEvent: 'branch.created',
        text: '%actor created branch %subject',
      },
      {
        eventName: `${DEV}BranchUpdatedEvent`,
        displayName: 'Branch pushed',
        domainEvent: 'branch.updated',
        text: '%actor pushed to branch %subject',
      },
      {
        eventName: `${DEV}BranchDeletedEvent`,
        displayName: 'Branch deleted',
        domainEvent: 'branch.deleted',
        text: '%actor deleted branch %subject',
      },
    ],
  },
  {
    id: ENTITY_PACKAGE,
    name: 'Package',
    events: [
      {
        eventName: `${DEV}PackagePublishedEvent`,
        displayName: 'Package version published',
        domainEvent: 'package.published',
        text: '%actor published %subject',
      },
      {
        eventName: `${DEV}PackageDeletedEvent`,
        displayName: 'Package version deleted',
        domainEvent: 'package.deleted',
        text: '%actor deleted %subject',
      },
    ],
  },
  {
    id: ENTITY_USER,
    name: 'User',
    events: [
      {
        eventName: `${DEV}UserCreatedEvent`,
        displayName: 'User created',
        domainEvent: 'user.created',
        text: '%actor created user %subject',
      },
      {
        eventName: `${DEV}UserUpdatedEvent`,
        displayName: 'User updated',
        domainEvent: 'user.updated',
        text: '%actor updated user %subject',
      },
      {
        eventName: `${DEV}UserStatusChangedEvent`,
        displayName: 'User suspended or activated',
        domainEvent: 'user.status_changed',
        text: '%actor changed the status of user %subject',
      },
      {
        eventName: `${DEV}UserRenamedEvent`,
        displayName: 'User renamed',
        domainEvent: 'user.renamed',
        text: '%actor renamed user %subject',
      },
      {
        eventName: `${DEV}UserDeletedEvent`,
        displayName: 'User deleted',
        domainEvent: 'user.deleted',
        text: '%actor deleted user %subject',
      },
    ],
  },
];

export const ENTITIES_BY_ID: ReadonlyMap<string, WorkflowEntityDefinition> = new Map(
  ENTITIES.map((e) => [e.id, e]),
);

/** Domain event → (entity, rule event name). */
export const EVENT_BY_DOMAIN_EVENT: ReadonlyMap<
  string,
  { entity: WorkflowEntityDefinition; event: WorkflowEventDefinition }
> = new Map(
  ENTITIES.flatMap((entity) =>
    entity.events
      .filter((e) => e.domainEvent)
      .map((event) => [event.domainEvent!, { entity, event }] as const),
  ),
);

export interface OperationValidationContext {
  allowPrivateWebhooks: boolean;
}

export interface OperationDefinition {
  id: string;
  name: string;
  description: string;
  scopes: number[];
  /** Chooses its own triggers (Nextcloud IComplexOperation): `events` may be empty. */
  complex: boolean;
  /** Fixed entity (Nextcloud ISpecificOperation), informational. */
  entity?: string;
  triggerHint?: string;
  operationFormat: string;
  validate(
    operation: string,
    checks: readonly WorkflowCheckElement[],
    context: OperationValidationContext,
  ): void;
}

export interface WebhookConfig {
  url: string;
  secret?: string;
}

/** Parses a webhook rule's `operation`; throws CheckInvalidError with the message for the user. */
export function parseWebhookConfig(operation: string, allowPrivate: boolean): WebhookConfig {
  let data: unknown;
  try {
    data = JSON.parse(operation);
  } catch {
    throw new CheckInvalidError('The webhook configuration is invalid');
  }
  const config = data as Record<string, unknown>;
  if (
    !data ||
    typeof data !== 'object' ||
    Array.isArray(data) ||
    typeof config.url !== 'string' ||
    (config.secret !== undefined && typeof config.secret !== 'string')
  ) {
    throw new CheckInvalidError('The webhook configuration is invalid');
  }
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw new CheckInvalidError('The webhook URL is invalid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CheckInvalidError('The webhook URL is invalid');
  if (!allowPrivate && isPrivateHost(url.hostname))
    throw new CheckInvalidError('The webhook URL points to a private address');
  return { url: config.url, secret: config.secret as string | undefined };
}

/** The platform's private-range check (`platform/net/private-address.ts`), re-exported for this module's callers. */
export { isPrivateHost, isPublicAddress };

export const OPERATIONS: readonly OperationDefinition[] = [
  {
    id: OPERATION_ACCESS_CONTROL,
    name: 'Block access to a file',
    description: 'Refuses a file (upload, download, change) when the checks match. Admin scope only.',
    scopes: [SCOPE_ADMIN],
    complex: true,
    entity: ENTITY_FILE,
    triggerHint: 'File is accessed',
    operationFormat: 'any string; the Nextcloud UI sends "deny"',
    validate(_operation, checks) {
      if (checks.length === 0) throw new CheckInvalidError('No rule given');
    },
  },
  {
    id: OPERATION_NOTIFICATION,
    name: 'Send a notification',
    description:
      "Notifies the rule's owner when the event happens and the checks match (not when the owner acted). User scope only.",
    scopes: [SCOPE_USER],
    complex: false,
    operationFormat: 'JSON {"inscription":"text"} (Nextcloud), or any text; not validated',
    validate() {},
  },
  {
    id: OPERATION_WEBHOOK,
    name: 'Call a webhook',
    description:
      'POSTs a JSON description of the event to a URL (10 s timeout, retries on network errors, 5xx and 429).',
    scopes: [SCOPE_ADMIN, SCOPE_USER],
    complex: false,
    operationFormat:
      'JSON {"url":"https://...","secret":"optional HMAC-SHA256 key (X-Devplane-Signature: sha256=...)"}',
    validate(operation, _checks, context) {
      parseWebhookConfig(operation, context.allowPrivateWebhooks);
    },
  },
];

export const OPERATIONS_BY_ID: ReadonlyMap<string, OperationDefinition> = new Map(
  OPERATIONS.map((o) => [o.id, o]),
);

/** Every class name devplane knows, to tell "does not exist" from "is invalid". */
export function isKnownClass(name: string): boolean {
  return ENTITIES_BY_ID.has(name) || OPERATIONS_BY_ID.has(name) || CHECKS_BY_ID.has(name);
}
