import type { AppConfig } from '../config/app-config';

/** `scheme://host[:port]` of a URL, or undefined when it is not one. */
export function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** The browser origins allowed to use cookie-authenticated sockets and streams: PUBLIC_URL's plus CORS_ORIGINS. */
export function allowedOrigins(config: Pick<AppConfig, 'publicUrl' | 'corsOrigins'>): Set<string> {
  const allowed = new Set<string>();
  for (const value of [config.publicUrl, ...(config.corsOrigins ?? [])]) {
    const origin = originOf(value.trim());
    if (origin) allowed.add(origin);
  }
  return allowed;
}

/**
 * Cross-site check for cookie credentials (issue 11.6): a request without `Origin` is not a
 * browser's cross-site request (browsers always send it on WebSocket upgrades and cross-origin
 * fetches) and passes; otherwise the origin must be allowed. `null` (sandboxed frames, file://)
 * is refused.
 */
export function originPermitted(
  header: string | string[] | undefined,
  allowed: ReadonlySet<string>,
): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return true;
  const origin = originOf(value);
  return origin !== undefined && allowed.has(origin);
}
