import type { SubjectEvents } from './subject-events';

/**
 * The typed map of in-process domain events: the payload type follows the event name.
 * The platform declares only its own (`subject-events.ts`); each module adds what it emits by
 * augmenting this interface in its `events.ts`:
 *
 *   declare module '../../platform/events/event-map' {
 *     interface DomainEventMap extends WorkflowEvents {}
 *   }
 */
export interface DomainEventMap extends SubjectEvents {}

export type DomainEventName = keyof DomainEventMap & string;
