/** Events emitted by the auth module (after commit). NotificationsModule delivers the passcode. */
export interface AuthEvents {
  'auth.one_time_passcode_requested': {
    userId: string;
    email: string;
    username: string;
    /** The passcode in clear: never logged; kept only in the notification queue row until its mail is sent. */
    passcode: string;
    expiresAt: string;
  };
  'auth.password_changed': { userId: string; via: 'one_time_passcode' | 'admin' | 'self' };
  /** An API key or session was deleted (logout, key deletion); open sockets of it close (realtime). */
  'auth.token_revoked': { userId: string; tokenId: string | null; reason: 'logout' | 'deleted' };
}

declare module '../../platform/events/event-map' {
  interface DomainEventMap extends AuthEvents {}
}
