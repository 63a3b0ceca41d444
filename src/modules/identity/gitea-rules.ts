import picomatch from 'picomatch';
import { isValidUsername } from '../../api/gitea/gitea-binding-rules';

/** The binding rules live with the Gitea dialect (`api/gitea/gitea-binding-rules.ts`). */
export { isValidUsername, parseGoBool } from '../../api/gitea/gitea-binding-rules';

/**
 * Gitea's account-name and email rules (models/user, modules/validation), as pure functions.
 * Messages are Gitea's texts; callers pick the status (422 on create and rename, 400 on edit).
 */

export const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  '.',
  '..',
  '.well-known',
  'api',
  'metrics',
  'v2',
  'assets',
  'attachments',
  'avatar',
  'avatars',
  'repo-avatars',
  'captcha',
  'login',
  'org',
  'repo',
  'user',
  'explore',
  'issues',
  'pulls',
  'milestones',
  'notifications',
  'favicon.ico',
  'manifest.json',
  'robots.txt',
  'sitemap.xml',
  'ssh_info',
  'swagger.v1.json',
  'ghost',
  'gitea-actions',
]);

export const RESERVED_USERNAME_PATTERNS: readonly string[] = ['*.keys', '*.gpg', '*.rss', '*.atom', '*.png'];

/** Gitea `IsUsableUsername`: the first problem with a name as an account name, or null. */
export function usernameProblem(name: string): string | null {
  if (!isValidUsername(name)) {
    return `name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`;
  }
  const lower = name.trim().toLowerCase();
  if (RESERVED_USERNAMES.has(lower)) return `name is reserved [name: ${lower}]`;
  for (const pattern of RESERVED_USERNAME_PATTERNS) {
    if (lower.endsWith(pattern.slice(1))) return `name pattern is not allowed [pattern: ${pattern}]`;
  }
  return null;
}

/** Gitea's `emailRegexp` of validateEmailBasic (note `+,-./` is a range in Go's class). */
const EMAIL_CHARSET =
  /^[a-zA-Z0-9.!#$%&'*+,\-./=?^_`{|}~]*@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/**
 * Approximates Go's net/mail.ParseAddress for addresses that already passed the charset regex:
 * the local part must be a dot-atom (no empty atoms, so no leading, trailing or double dots) and
 * must not contain `,` (a list separator for the parser).
 */
function parsesAsAddress(email: string): boolean {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  if (local === '' || local.includes(',')) return false;
  return local.split('.').every((atom) => atom !== '');
}

/** Gitea `validateEmailBasic`: the error message, or null when the address is acceptable. */
export function emailProblem(email: string): string | null {
  if (email === '') return 'e-mail invalid [email: ]';
  if (!EMAIL_CHARSET.test(email)) return `e-mail address contains unsupported character [email: ${email}]`;
  if (email.startsWith('-') || !parsesAsAddress(email)) return `e-mail invalid [email: ${email}]`;
  return null;
}

export function emailDomainMessage(email: string): string {
  return `the domain of user email ${email} conflicts with EMAIL_DOMAIN_ALLOWLIST or EMAIL_DOMAIN_BLOCKLIST`;
}

/**
 * Gitea `IsEmailDomainAllowed`: with an allowlist, the domain must match one of its globs;
 * otherwise it must match none of the blocklist. Globs have no separators (`*` matches dots).
 */
export function compileEmailDomainCheck(
  allowlist: string[],
  blocklist: string[],
): (email: string) => boolean {
  const compile = (patterns: string[]) =>
    patterns.map((pattern) => picomatch(pattern.toLowerCase(), { nocase: true, dot: true }));
  const allow = compile(allowlist);
  const block = compile(blocklist);
  return (email: string) => {
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (allow.length > 0) return allow.some((matches) => matches(domain));
    return !block.some((matches) => matches(domain));
  };
}
