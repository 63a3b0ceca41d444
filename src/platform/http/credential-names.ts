/** Wire names of the session credential, shared by auth (which reads it) and the Coder dialect (CSRF rule). */
export const SESSION_COOKIE = 'service_session_token';
export const SESSION_HEADER = 'service-session-token';
/**
 * Coder's own names for the same credential (`Coder-Session-Token` header, `coder_session_token` cookie
 * and query parameter), accepted as aliases so Coder's unmodified clients (its web UI, IDE extensions)
 * authenticate. devplane's own names win when a request carries both.
 */
export const CODER_SESSION_COOKIE = 'coder_session_token';
export const CODER_SESSION_HEADER = 'coder-session-token';
/** Every cookie / query name of the session token, devplane's first. */
export const SESSION_COOKIE_NAMES = [SESSION_COOKIE, CODER_SESSION_COOKIE] as const;
/** Every header name of the session token, devplane's first. */
export const SESSION_HEADER_NAMES = [SESSION_HEADER, CODER_SESSION_HEADER] as const;
/** Double-submit CSRF token: a readable cookie set at login, echoed by browsers in a header. */
export const CSRF_COOKIE = 'csrf_token';
export const CSRF_HEADER = 'x-csrf-token';

function firstString(value: unknown): string | undefined {
  if (Array.isArray(value)) return firstString(value[0]);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The first non-empty value among `names` in a cookie, query or header record. */
export function firstNamed(
  record: Record<string, unknown> | undefined,
  names: readonly string[],
): string | undefined {
  if (!record) return undefined;
  for (const name of names) {
    const value = firstString(record[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}
