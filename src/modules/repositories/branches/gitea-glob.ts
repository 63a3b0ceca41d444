import { RE2JS } from 're2js';

/** Characters that make a protection rule name a glob (Gitea: `* ? \ [ ] { }`); other names are plain. */
const GLOB_CHARACTERS = /[*?\\[\]{}]/;

export function isGlobRuleName(name: string): boolean {
  return GLOB_CHARACTERS.test(name);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * Gitea's glob (modules/glob; separator `/` for branch rules, `.` and `/` for file patterns) as an RE2 source, or null when the glob is
 * malformed (an unclosed class or brace, a trailing backslash): `*` any run without `/`, `**` anything,
 * `?` one character but `/`, `[abc]` / `[!abc]` / `[^abc]` / `[a-z]` one character of (not of) the set,
 * `{a,b}` alternation (nestable), `\x` the character x; the whole name must match.
 */
export function giteaGlobSource(glob: string, separators = '/'): string | null {
  // No separators (gobwas/glob as webhooks' branch_filter uses it): `*` and `?` take any character.
  const notSeparator = separators ? `[^${escapeRegex(separators)}]` : '[\\s\\S]';
  let out = '';
  let depth = 0;
  for (let i = 0; i < glob.length;) {
    const c = glob[i]!;
    if (c === '\\') {
      if (i + 1 >= glob.length) return null;
      out += escapeRegex(glob[i + 1]!);
      i += 2;
    } else if (c === '*') {
      let stars = 0;
      while (glob[i] === '*') {
        stars++;
        i++;
      }
      out += stars > 1 ? '.*' : `${notSeparator}*`;
    } else if (c === '?') {
      out += notSeparator;
      i++;
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) return null;
      let body = glob.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      if (!body) return null;
      // Keep ranges (`a-z`), escape everything else.
      const set = body.replace(/[\\\]^[]/g, '\\$&');
      out += negated ? `[^${set}]` : `[${set}]`;
      i = close + 1;
    } else if (c === '{') {
      depth++;
      out += '(?:';
      i++;
    } else if (c === ',' && depth > 0) {
      out += '|';
      i++;
    } else if (c === '}' && depth > 0) {
      depth--;
      out += ')';
      i++;
    } else {
      out += escapeRegex(c);
      i++;
    }
  }
  return depth === 0 ? out : null;
}

export type BranchMatcher = (branch: string) => boolean;

/**
 * How a protection rule name matches branch names, as Gitea decides: a plain name matches exactly,
 * case-insensitively; a glob matches as above; a malformed glob is taken literally. Globs run in RE2
 * (linear time), so no rule name can stall a push or a branch list.
 */
const compiledRules = new Map<string, BranchMatcher>();
const COMPILED_RULES_LIMIT = 5_000;

export function compileRuleName(name: string): BranchMatcher {
  // RE2JS compilation costs far more than a match: each distinct rule name is compiled once.
  let matcher = compiledRules.get(name);
  if (!matcher) {
    matcher = compileRuleNameUncached(name);
    if (compiledRules.size >= COMPILED_RULES_LIMIT) compiledRules.delete(compiledRules.keys().next().value!);
    compiledRules.set(name, matcher);
  }
  return matcher;
}

function compileRuleNameUncached(name: string): BranchMatcher {
  if (!isGlobRuleName(name)) {
    const lower = name.toLowerCase();
    return (branch) => branch.toLowerCase() === lower;
  }
  const source = giteaGlobSource(name);
  if (source === null) return (branch) => branch === name;
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(`^(?:${source})$`, RE2JS.DOTALL);
  } catch {
    return (branch) => branch === name;
  }
  return (branch) => regex.matches(branch);
}

/**
 * A protection rule's file patterns (semicolon-separated globs, Gitea's `protected_file_patterns`):
 * matched against lower-cased paths with `.` and `/` as separators, as Gitea does. Malformed
 * patterns are dropped.
 */
const compiledPatterns = new Map<string, BranchMatcher | null>();

export function compileFilePatterns(patterns: string): BranchMatcher | null {
  if (compiledPatterns.has(patterns)) return compiledPatterns.get(patterns)!;
  const matcher = compileFilePatternsUncached(patterns);
  if (compiledPatterns.size >= COMPILED_RULES_LIMIT)
    compiledPatterns.delete(compiledPatterns.keys().next().value!);
  compiledPatterns.set(patterns, matcher);
  return matcher;
}

function compileFilePatternsUncached(patterns: string): BranchMatcher | null {
  const sources = patterns
    .split(';')
    .map((pattern) => pattern.trim().toLowerCase())
    .filter(Boolean)
    .map((pattern) => giteaGlobSource(pattern, './'))
    .filter((source): source is string => source !== null);
  if (sources.length === 0) return null;
  const regex = RE2JS.compile(`^(?:${sources.map((source) => `(?:${source})`).join('|')})$`, RE2JS.DOTALL);
  return (file) => regex.matches(file.toLowerCase());
}
