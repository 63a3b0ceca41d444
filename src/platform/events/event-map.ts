import type { IdentityEvents } from '../../modules/identity/events';

/**
 * The typed map of in-process domain events: the payload type follows the event name.
 * Each module declares its events in its own `events.ts` and they are joined here.
 */
export interface DomainEventMap extends IdentityEvents {}

export type DomainEventName = keyof DomainEventMap & string;
