/** The realm git, npm and curl show when they ask for credentials (the site's name). */
export const SITE_REALM = 'devplane';

/** `WWW-Authenticate` of the protocol dialects: a Basic challenge, so git and npm prompt for credentials. */
export function basicChallenge(): Record<string, string> {
  return { 'WWW-Authenticate': `Basic realm="${SITE_REALM}"` };
}
