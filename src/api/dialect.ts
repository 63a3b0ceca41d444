/** The wire dialects devplane speaks; `plain` covers everything outside the three APIs. */
export type Dialect = 'ocs' | 'coder' | 'gitea' | 'plain';

/** Which dialect a path belongs to; used for errors raised before a controller is known (404, body parsing). */
export function dialectOfPath(path: string): Dialect {
  if (path.startsWith('/ocs/')) return 'ocs';
  if (path.startsWith('/api/v2/') || path === '/api/v2' || path.startsWith('/api/experimental')) return 'coder';
  if (path.startsWith('/api/v1/') || path === '/api/v1' || path.startsWith('/api/packages/')) return 'gitea';
  return 'plain';
}
