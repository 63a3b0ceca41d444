/** Events emitted by admin user management (user deletion is identity's `user.deleted`). */
export interface AdminUsersEvents {}

declare module '../../platform/events/event-map' {
  interface DomainEventMap extends AdminUsersEvents {}
}
