/** What stands for each path segment after the first in a logged URL. */
export const REDACTED_SEGMENT = '***';

/**
 * An outbound URL as it may appear in logs and stored error texts: scheme, host and the first path
 * segment; every later segment is replaced by `***`. User info (`https://user:token@…`), the query
 * (`?access_token=…`) and the fragment are dropped, and webhook URLs also carry their secret in the
 * path (`https://hooks.slack.com/services/T…/B…/<secret>`, Discord, Teams, Gitea's own hook URLs:
 * issue 31.10), so the path is kept only as far as it names the service (`/services/***`).
 */
export function safeUrl(url: string | URL | undefined | null): string {
  if (url === undefined || url === null || url === '') return '';
  try {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    if (parsed.origin === 'null') return `${parsed.protocol}[opaque URL]`;
    return `${parsed.origin}${redactPath(parsed.pathname)}`;
  } catch {
    return '[invalid URL]';
  }
}

/** `/services/T0/B0/secret` becomes `/services` and three redacted segments (empty ones, e.g. a trailing slash, stay empty). */
function redactPath(pathname: string): string {
  return pathname
    .split('/')
    .map((segment, index) => (index < 2 || segment === '' ? segment : REDACTED_SEGMENT))
    .join('/');
}

/** Replaces every occurrence of `url` (as given and as normalised) in a message with its safe form. */
export function redactUrlIn(message: string, url: string | URL | undefined | null): string {
  if (!url) return message;
  const safe = safeUrl(url);
  let text = message;
  const forms = new Set<string>([String(url)]);
  try {
    const parsed = new URL(String(url));
    forms.add(parsed.href);
    forms.add(`${parsed.origin}${parsed.pathname}`); // as libraries quote it without user info and query
  } catch {
    // not a URL: the literal form only
  }
  // Longest first: a shorter form inside a longer one must not leave the longer one's tail behind.
  for (const form of [...forms].sort((a, b) => b.length - a.length))
    if (form) text = text.split(form).join(safe);
  return text;
}
