import { isValidGitRefName } from '../../api/gitea/gitea-binding-rules';

/** Gitea's repository name rules (binding AlphaDashDot + MaxSize(100), reserved names and patterns). */
const RESERVED = new Set(['.', '..', '-']);
const RESERVED_SUFFIXES = ['.git', '.wiki', '.rss', '.atom'];
const ALPHA_DASH_DOT = /^[A-Za-z0-9_.-]+$/;
/** Gitea's invalidRepoNamePattern: two or more consecutive dots (`a..b`, `..`) are refused before the reserved list. */
const CONSECUTIVE_DOTS = /[.]{2,}/;

/** Why a name cannot be used, in Gitea's words, or null. `field` is the Go form field (`Name`). */
export function repositoryNameProblem(
  name: string,
  field = 'Name',
): { text: string; binding: boolean } | null {
  if (name === '') return { text: `[${field}]: Required`, binding: true };
  if (!ALPHA_DASH_DOT.test(name)) return { text: `[${field}]: AlphaDashDot`, binding: true };
  if (name.length > 100) return { text: `[${field}]: MaxSize`, binding: true };
  // IsUsableRepoName: validRepoNamePattern / invalidRepoNamePattern answer ErrNameCharsNotAllowed first.
  if (CONSECUTIVE_DOTS.test(name)) {
    return {
      text: `name is invalid [${name}]: must be valid alpha or numeric or dash(-_) or dot characters`,
      binding: false,
    };
  }
  if (RESERVED.has(name.toLowerCase())) return { text: `name is reserved [name: ${name}]`, binding: false };
  const suffix = RESERVED_SUFFIXES.find((end) => name.toLowerCase().endsWith(end));
  if (suffix) return { text: `name pattern is not allowed [pattern: *${suffix}]`, binding: false };
  return null;
}

/** A branch or tag name: Gitea's GitRefName rules, at most 255 characters, not starting with `-` (an option to git). */
export function isValidBranchName(name: string): boolean {
  return name.length <= 255 && !name.startsWith('-') && isValidGitRefName(name);
}
