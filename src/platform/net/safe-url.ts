/**
 * An outbound URL as it may appear in logs and stored error texts: origin and path only. User
 * info (`https://user:token@…`), the query (`?access_token=…`) and the fragment are dropped, since
 * webhook and endpoint URLs routinely carry credentials there.
 */
export function safeUrl(url: string | URL | undefined | null): string {
  if (url === undefined || url === null || url === '') return '';
  try {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    if (parsed.origin === 'null') return `${parsed.protocol}[opaque URL]`;
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '[invalid URL]';
  }
}

/** Replaces every occurrence of `url` (as given and as normalised) in a message with its safe form. */
export function redactUrlIn(message: string, url: string | URL | undefined | null): string {
  if (!url) return message;
  const safe = safeUrl(url);
  let text = message;
  const forms = new Set<string>([String(url)]);
  try {
    forms.add(new URL(String(url)).href);
  } catch {
    // not a URL: the literal form only
  }
  for (const form of forms) if (form) text = text.split(form).join(safe);
  return text;
}
