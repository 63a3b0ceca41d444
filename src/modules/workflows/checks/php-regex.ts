import safeRegex from 'safe-regex2';
import { Script, createContext } from 'node:vm';

/**
 * PHP (PCRE) delimited regular expressions (`/.../i`, `#...#`, `{...}`) translated to JavaScript.
 * Parsing follows php-src `pcre_get_compiled_regex_cache`; the body is rewritten token by token and
 * always compiled with the JS `u` flag, so constructs JS does not know fail loudly instead of being
 * misread. What JS cannot express (possessive quantifiers, atomic groups, recursion, conditionals,
 * verbs, `\G \K \R \X \C`, inline flags after the start) is rejected as invalid.
 *
 * Known gap: PHP without `/u` works on bytes (`.` = one byte); here `.` is one code point.
 */
export class PhpRegexError extends Error {}

export interface CompiledPhpRegex {
  /** The translated JavaScript source and flags. */
  source: string;
  flags: string;
  regex: RegExp;
  /**
   * Evaluated in a vm with a time limit (PHP's backtrack limit): flagged by safe-regex2, or a
   * repeated group (`(a|a)*`, exponential), a back reference, or two unbounded quantifiers (polynomial).
   */
  risky: boolean;
  /** Has an unbounded quantifier (`/a*b/` is quadratic on long subjects): long subjects go to the vm too. */
  superlinear: boolean;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\v', '\f', '\r']);
const BRACKETS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
const MODIFIERS = new Set(['i', 'm', 's', 'x', 'n', 'u', 'A', 'D', 'S', 'X', 'U', 'J', ' ', '\n', '\r']);
const POSIX: Record<string, string> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  lower: 'a-z',
  xdigit: '0-9A-Fa-f',
  punct: '!-\\/:-@\\[-`{-~',
  word: 'A-Za-z0-9_',
  blank: ' \\t',
  cntrl: '\\x00-\\x1F\\x7F',
  print: ' -~',
  graph: '!-~',
  ascii: '\\x00-\\x7F',
};
const END_OF_SUBJECT = '(?![\\s\\S])';
const START_OF_SUBJECT = '(?<![\\s\\S])';
const DOLLAR = '(?=\\n?(?![\\s\\S]))';
const MAX_SUBJECT = 64 * 1024;
/** Subjects longer than this run in the vm when the pattern has an unbounded quantifier. */
const LONG_SUBJECT = 1024;
/** PCRE's limit on `{n,m}` ("number too big in {} quantifier"). */
const MAX_REPEAT = 65535;
/** `{n,m}` with m above this counts as unbounded for the cost screen. */
const LARGE_REPEAT = 32;

interface Options {
  i: boolean;
  m: boolean;
  s: boolean;
  x: boolean;
  D: boolean;
  A: boolean;
}

function isAsciiPunct(c: string): boolean {
  const code = c.charCodeAt(0);
  return code >= 0x21 && code <= 0x7e && !/[A-Za-z0-9]/.test(c);
}

function hex(c: string): string {
  const cp = c.codePointAt(0)!;
  return cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u{${cp.toString(16)}}`;
}

/** Splits `pattern` into body and modifiers as PHP does. */
export function splitPhpRegex(pattern: string): { body: string; modifiers: string } {
  let p = 0;
  while (p < pattern.length && WHITESPACE.has(pattern[p]!)) p++;
  if (p >= pattern.length) throw new PhpRegexError('Empty regular expression');
  const delimiter = pattern[p]!;
  if (/[A-Za-z0-9\\\0]/.test(delimiter) || delimiter.charCodeAt(0) > 0x7f) throw new PhpRegexError('Delimiter must not be alphanumeric, backslash, or NUL');
  const start = ++p;
  const end = BRACKETS[delimiter];
  if (end) {
    let depth = 1;
    while (p < pattern.length) {
      const c = pattern[p]!;
      if (c === '\\' && p + 1 < pattern.length) {
        p += 2;
        continue;
      }
      if (c === end && --depth === 0) break;
      if (c === delimiter) depth++;
      p++;
    }
  } else {
    while (p < pattern.length) {
      const c = pattern[p]!;
      if (c === '\\' && p + 1 < pattern.length) {
        p += 2;
        continue;
      }
      if (c === delimiter) break;
      p++;
    }
  }
  if (p >= pattern.length) throw new PhpRegexError('No ending delimiter found');
  const body = pattern.slice(start, p);
  const modifiers = pattern.slice(p + 1);
  for (const m of modifiers) if (!MODIFIERS.has(m)) throw new PhpRegexError(`Unknown modifier ${m}`);
  return { body, modifiers };
}

class Translator {
  private p = 0;
  private out = '';
  /** Whether the last emitted token can take a quantifier. */
  private quantifiable = false;
  /** Whether the last emitted token closed a group. */
  private lastWasGroup = false;
  /** Cost screen (see CompiledPhpRegex.risky): quantifiers that repeat without (a small) bound. */
  unbounded = 0;
  /** A group repeated more than once (`(…)*`, `(…)+`, `(…){2,}`), or a back reference. */
  costly = false;

  constructor(
    private readonly src: string,
    private readonly o: Options,
  ) {}

  run(): string {
    const s = this.src;
    while (this.p < s.length) {
      const c = s[this.p]!;
      if (this.o.x && WHITESPACE.has(c)) {
        this.p++;
        continue;
      }
      if (this.o.x && c === '#') {
        while (this.p < s.length && s[this.p] !== '\n') this.p++;
        continue;
      }
      switch (c) {
        case '\\':
          this.escape(false);
          break;
        case '[':
          this.charClass();
          break;
        case '(':
          this.group();
          break;
        case ')':
          this.emit(')', true);
          this.lastWasGroup = true;
          this.p++;
          break;
        case '*':
        case '+':
        case '?':
          this.quantifier(c);
          break;
        case '{': {
          const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.p));
          if (m && this.quantifiable) {
            const min = Number(m[1]);
            const max = m[2] === undefined ? min : m[3] ? Number(m[3]) : Infinity;
            if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw new PhpRegexError('Number too big in {} quantifier');
            this.repeated(max);
            this.p += m[0].length;
            this.out += m[0];
            this.afterQuantifier();
          } else {
            this.emit('\\{', true);
            this.p++;
          }
          break;
        }
        case '}':
        case ']':
          this.emit(`\\${c}`, true);
          this.p++;
          break;
        case '$':
          this.emit(this.o.m ? '$' : this.o.D ? END_OF_SUBJECT : DOLLAR, false);
          this.p++;
          break;
        case '^':
          this.emit('^', false);
          this.p++;
          break;
        case '.':
          this.emit(this.o.s ? '[\\s\\S]' : '[^\\n]', true);
          this.p++;
          break;
        case '|':
          this.emit('|', false);
          this.p++;
          break;
        default:
          {
            const cp = String.fromCodePoint(s.codePointAt(this.p)!);
            this.emit(cp, true);
            this.p += cp.length;
          }
      }
    }
    return this.out;
  }

  private emit(text: string, quantifiable: boolean): void {
    this.out += text;
    this.quantifiable = quantifiable;
    this.lastWasGroup = false;
  }

  /** Records the cost of a quantifier with this maximum applied to the last token. */
  private repeated(max: number): void {
    if (max > LARGE_REPEAT) this.unbounded++;
    if (max > 1 && this.lastWasGroup) this.costly = true;
  }

  private quantifier(c: string): void {
    if (!this.quantifiable) throw new PhpRegexError('Quantifier does not follow a repeatable item');
    if (c !== '?') this.repeated(Infinity);
    this.out += c;
    this.p++;
    this.afterQuantifier();
  }

  private afterQuantifier(): void {
    const next = this.src[this.p];
    if (next === '+') throw new PhpRegexError('Possessive quantifiers are not supported');
    if (next === '?') {
      this.out += '?';
      this.p++;
    }
    this.quantifiable = false;
    this.lastWasGroup = false;
  }

  private group(): void {
    const s = this.src;
    const rest = s.slice(this.p);
    if (rest.startsWith('(*')) throw new PhpRegexError('Backtracking verbs are not supported');
    if (!rest.startsWith('(?')) {
      this.emit('(', false);
      this.p++;
      return;
    }
    if (rest.startsWith('(?#')) {
      const close = s.indexOf(')', this.p);
      if (close < 0) throw new PhpRegexError('Missing ) after comment');
      this.p = close + 1;
      return;
    }
    for (const keep of ['(?:', '(?=', '(?!', '(?<=', '(?<!']) {
      if (rest.startsWith(keep)) {
        this.emit(keep, false);
        this.p += keep.length;
        return;
      }
    }
    let m = /^\(\?(?:P?<|')([A-Za-z_][A-Za-z0-9_]*)[>']/.exec(rest);
    if (m) {
      this.emit(`(?<${m[1]}>`, false);
      this.p += m[0].length;
      return;
    }
    m = /^\(\?P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
    if (m) {
      this.costly = true;
      this.emit(`\\k<${m[1]}>`, true);
      this.p += m[0].length;
      return;
    }
    throw new PhpRegexError('Unsupported group construct');
  }

  private escape(inClass: boolean): void {
    const s = this.src;
    const c = s[this.p + 1];
    if (c === undefined) throw new PhpRegexError('\\ at end of pattern');
    const put = (text: string, quantifiable = true): void => {
      if (inClass) this.out += text;
      else this.emit(text, quantifiable);
    };
    if (c === 'Q') {
      const end = s.indexOf('\\E', this.p + 2);
      const literal = end < 0 ? s.slice(this.p + 2) : s.slice(this.p + 2, end);
      this.p = end < 0 ? s.length : end + 2;
      for (const ch of literal) put(isAsciiPunct(ch) ? hex(ch) : ch);
      return;
    }
    if (c === 'E') {
      this.p += 2;
      return;
    }
    if (isAsciiPunct(c) || c.charCodeAt(0) > 0x7f || c === ' ') {
      put(hex(c));
      this.p += 2;
      return;
    }
    // Hexadecimal and octal escapes.
    if (c === 'x') {
      const braced = /^\\x\{([0-9A-Fa-f]+)\}/.exec(s.slice(this.p));
      if (braced) {
        const cp = parseInt(braced[1]!, 16);
        if (cp > 0x10ffff) throw new PhpRegexError('Character code point value is too large');
        put(`\\u{${cp.toString(16)}}`);
        this.p += braced[0].length;
        return;
      }
      const short = /^\\x([0-9A-Fa-f]{0,2})/.exec(s.slice(this.p))!;
      put(`\\u{${parseInt(short[1] || '0', 16).toString(16)}}`);
      this.p += short[0].length;
      return;
    }
    if (c === '0') {
      const oct = /^\\0([0-7]{0,2})/.exec(s.slice(this.p))!;
      put(`\\u{${parseInt(oct[1] || '0', 8).toString(16)}}`);
      this.p += oct[0].length;
      return;
    }
    if (/[1-9]/.test(c)) {
      if (inClass) throw new PhpRegexError('Back references are not allowed in a class');
      const ref = /^\\([1-9][0-9]?)/.exec(s.slice(this.p))!;
      this.costly = true;
      put(`\\${ref[1]}`);
      this.p += ref[0].length;
      return;
    }
    if ((c === 'p' || c === 'P') && !inClass) {
      const m = /^\\[pP](\{\^?[A-Za-z_& ]+\}|[A-Za-z])/.exec(s.slice(this.p));
      if (!m) throw new PhpRegexError('Malformed \\p');
      let name = m[1]!.startsWith('{') ? m[1]!.slice(1, -1) : m[1]!;
      let neg = c === 'P';
      if (name.startsWith('^')) {
        name = name.slice(1);
        neg = !neg;
      }
      put(`\\${neg ? 'P' : 'p'}{${name.replace(/&$/, '')}}`);
      this.p += m[0].length;
      return;
    }
    if (c === 'k' || c === 'g') {
      const m = /^\\[kg](?:<([A-Za-z_]\w*)>|\{([A-Za-z_]\w*)\}|'([A-Za-z_]\w*)')/.exec(s.slice(this.p));
      if (m && !inClass) {
        this.costly = true;
        put(`\\k<${m[1] ?? m[2] ?? m[3]}>`);
        this.p += m[0].length;
        return;
      }
      const n = /^\\g\{?([1-9][0-9]?)\}?/.exec(s.slice(this.p));
      if (c === 'g' && n && !inClass) {
        this.costly = true;
        put(`\\${n[1]}`);
        this.p += n[0].length;
        return;
      }
      throw new PhpRegexError('Unsupported back reference');
    }
    if (c === 'c') {
      const ch = s[this.p + 2];
      if (!ch || !/[A-Za-z]/.test(ch)) throw new PhpRegexError('Unsupported \\c');
      put(`\\c${ch}`);
      this.p += 3;
      return;
    }
    const simple: Record<string, [string, string]> = {
      // [outside a class, inside a class]
      d: ['\\d', '\\d'],
      D: ['\\D', '\\D'],
      w: ['\\w', '\\w'],
      W: ['\\W', '\\W'],
      s: ['\\s', '\\s'],
      S: ['\\S', '\\S'],
      n: ['\\n', '\\n'],
      r: ['\\r', '\\r'],
      t: ['\\t', '\\t'],
      f: ['\\f', '\\f'],
      e: ['\\x1b', '\\x1b'],
      a: ['\\x07', '\\x07'],
      h: ['[\\t \\xa0]', '\\t \\xa0'],
      v: ['[\\n\\x0b\\f\\r\\x85\\u2028\\u2029]', '\\n\\x0b\\f\\r\\x85\\u2028\\u2029'],
      H: ['[^\\t \\xa0]', ''],
      V: ['[^\\n\\x0b\\f\\r\\x85\\u2028\\u2029]', ''],
      N: ['[^\\n]', ''],
      b: ['\\b', '\\x08'],
      B: ['\\B', ''],
      A: [START_OF_SUBJECT, ''],
      z: [END_OF_SUBJECT, ''],
      Z: [DOLLAR, ''],
    };
    const entry = simple[c];
    const text = entry ? entry[inClass ? 1 : 0] : '';
    if (!text) throw new PhpRegexError(`Unsupported escape \\${c}`);
    put(text, !['b', 'B', 'A', 'z', 'Z'].includes(c));
    this.p += 2;
  }

  private charClass(): void {
    const s = this.src;
    this.out += '[';
    this.p++;
    if (s[this.p] === '^') {
      this.out += '^';
      this.p++;
    }
    if (s[this.p] === ']') {
      this.out += '\\]';
      this.p++;
    }
    while (this.p < s.length) {
      const c = s[this.p]!;
      if (c === ']') {
        this.emit(']', true);
        this.p++;
        return;
      }
      if (c === '\\') {
        this.escape(true);
        continue;
      }
      if (c === '[') {
        const posix = /^\[:(\^?)([a-z]+):\]/.exec(s.slice(this.p));
        if (posix) {
          const ranges = POSIX[posix[2]!];
          if (!ranges || posix[1]) throw new PhpRegexError('Unsupported POSIX class');
          this.out += ranges;
          this.p += posix[0].length;
          continue;
        }
        this.out += '\\[';
        this.p++;
        continue;
      }
      if (c === '/' || c === '{' || c === '}' || c === '(' || c === ')' || c === '|') {
        this.out += `\\${c}`;
        this.p++;
        continue;
      }
      const cp = String.fromCodePoint(s.codePointAt(this.p)!);
      this.out += cp;
      this.p += cp.length;
    }
    throw new PhpRegexError('Missing terminating ] for character class');
  }
}

const cache = new Map<string, CompiledPhpRegex>();
const CACHE_LIMIT = 2000;

/** Parses, translates and compiles a PHP-delimited regex. Throws PhpRegexError when it is invalid. */
export function compilePhpRegex(pattern: string): CompiledPhpRegex {
  const cached = cache.get(pattern);
  if (cached) {
    cache.delete(pattern);
    cache.set(pattern, cached);
    return cached;
  }
  const { body: rawBody, modifiers } = splitPhpRegex(pattern);
  const o: Options = {
    i: modifiers.includes('i'),
    m: modifiers.includes('m'),
    s: modifiers.includes('s'),
    x: modifiers.includes('x'),
    D: modifiers.includes('D'),
    A: modifiers.includes('A'),
  };
  let body = rawBody;
  const inline = /^\(\?([imsx]+)\)/.exec(body);
  if (inline) {
    for (const f of inline[1]!) o[f as 'i' | 'm' | 's' | 'x'] = true;
    body = body.slice(inline[0].length);
  }
  const translator = new Translator(body, o);
  let source = translator.run();
  if (o.A) source = `${START_OF_SUBJECT}(?:${source})`;
  const flags = `u${o.i ? 'i' : ''}${o.m ? 'm' : ''}`;
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags);
  } catch (error) {
    throw new PhpRegexError((error as Error).message);
  }
  let risky = translator.costly || translator.unbounded >= 2;
  if (!risky) {
    try {
      // safe-regex2's parser does not know lookbehinds and calls them unsafe: screen an equivalent
      // source for the analysis (star height does not change), compile the real one.
      const screened = source.split(START_OF_SUBJECT).join('^').replace(/\(\?<[=!]/g, '(?:');
      risky = !safeRegex(new RegExp(screened, flags));
    } catch {
      risky = true;
    }
  }
  const compiled = { source, flags, regex, risky, superlinear: translator.unbounded > 0 };
  cache.set(pattern, compiled);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return compiled;
}

export function isValidPhpRegex(pattern: string): boolean {
  try {
    compilePhpRegex(pattern);
    return true;
  } catch (error) {
    if (error instanceof PhpRegexError) return false;
    throw error;
  }
}

/**
 * Time-limited regex work one event may spend (shared by all its rules): without it, a user with many
 * rules of costly patterns could hold the event loop for (rules × limit). Once spent, the remaining
 * time-limited tests fail (both `matches` and `!matches` false); direct-path patterns are not affected.
 */
export interface RegexBudget {
  remainingMs: number;
}

/** Per event: the matcher's CheckSubject carries one. */
export const REGEX_BUDGET_PER_EVENT_MS = 250;

const sandbox = createContext({});
const runner = new Script('re.test(subject)');

/**
 * `preg_match`: true/false, or null when the match fails at run time (PHP's backtrack limit; here
 * a 50 ms limit for patterns safe-regex2 flags, or a subject above 64 KiB). Never throws.
 */
export function phpRegexTest(compiled: CompiledPhpRegex, subject: string, timeoutMs = 50, budget?: RegexBudget): boolean | null {
  if (subject.length > MAX_SUBJECT) return null;
  if (!compiled.risky && !(compiled.superlinear && subject.length > LONG_SUBJECT)) return compiled.regex.test(subject);
  if (budget && budget.remainingMs <= 0) return null;
  const started = performance.now();
  try {
    if (budget) timeoutMs = Math.max(1, Math.min(timeoutMs, Math.ceil(budget.remainingMs)));
    sandbox.re = compiled.regex;
    sandbox.subject = subject;
    return runner.runInContext(sandbox, { timeout: timeoutMs }) === true;
  } catch {
    return null;
  } finally {
    sandbox.re = undefined;
    sandbox.subject = undefined;
    if (budget) budget.remainingMs -= performance.now() - started;
  }
}
