import type { AdminUsersEvents } from '../../modules/admin-users/events';
import type { AuthEvents } from '../../modules/auth/events';
import type { IdentityEvents } from '../../modules/identity/events';
import type { NotificationEvents } from '../../modules/notifications/events';
import type { WorkflowEvents } from '../../modules/workflows/events';
import type { SubjectEvents } from './subject-events';

/**
 * The typed map of in-process domain events: the payload type follows the event name.
 * Each module declares what it emits in its own `events.ts`; they are joined here.
 */
export interface DomainEventMap
  extends IdentityEvents,
    AuthEvents,
    WorkflowEvents,
    NotificationEvents,
    AdminUsersEvents,
    SubjectEvents {}

export type DomainEventName = keyof DomainEventMap & string;
