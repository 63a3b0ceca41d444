/**
 * The way any module asks for a notification: emit `notification.requested` (after commit);
 * NotificationsModule enqueues it for the template's methods. Template ids are the stable UUIDs
 * seeded by the notifications migrations (see notifications/README.md).
 */
export interface NotificationEvents {
  'notification.requested': {
    templateId: string;
    /** Numeric id of the recipient. */
    userId: string;
    labels: Record<string, string>;
    data?: Record<string, unknown>;
    /** UUIDs of the objects this is about (inbox `targets`). */
    targets?: string[];
    createdBy?: string;
  };
}

declare module '../../platform/events/event-map' {
  interface DomainEventMap extends NotificationEvents {}
}
