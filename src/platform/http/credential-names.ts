/** Wire names of the session credential, shared by auth (which reads it) and the Coder dialect (CSRF rule). */
export const SESSION_COOKIE = 'service_session_token';
export const SESSION_HEADER = 'service-session-token';
/** Double-submit CSRF token: a readable cookie set at login, echoed by browsers in a header. */
export const CSRF_COOKIE = 'csrf_token';
export const CSRF_HEADER = 'x-csrf-token';
