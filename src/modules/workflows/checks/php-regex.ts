import { RE2JS } from 're2js';

/**
 * PHP (PCRE) delimited regular expressions (`/.../i`, `#...#`, `{...}`) run on RE2 (re2js: pure
 * JavaScript, linear time in the subject for a given pattern, no backtracking). Parsing follows php-src
 * `pcre_get_compiled_regex_cache`; the body is rewritten token by token into RE2 syntax, so a construct
 * RE2 does not know fails loudly instead of being misread.
 *
 * Refused at create/update (what RE2 cannot run in linear time, a deviation from Nextcloud):
 * look-around assertions and back-references (`unsupported` errors with a reason), repetition counts
 * above 1000 (RE2's limit) and programs above {@link MAX_PROGRAM_SIZE} instructions. Refused as plain
 * invalid (neither PCRE-compatible in JS before nor in RE2 now): possessive quantifiers, atomic groups,
 * recursion, conditionals, backtracking verbs, `\G \K \R \X \C`, inline flags after the start, `(?i:…)`.
 *
 * Known gap: PHP without `/u` works on bytes (`.` = one byte); here `.` is one code point.
 */
export class PhpRegexError extends Error {
  /** Set when the pattern is valid PCRE that RE2 cannot run (the reason is shown to the client). */
  readonly unsupported: boolean;

  constructor(message: string, unsupported = false) {
    super(message);
    this.unsupported = unsupported;
  }
}

export interface CompiledPhpRegex {
  /** The translated RE2 source and the RE2JS flags. */
  source: string;
  flags: number;
  regex: RE2JS;
  /** RE2's program size (instructions): the per-character cost bound of a match. */
  programSize: number;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\v', '\f', '\r']);
const BRACKETS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
const MODIFIERS = new Set(['i', 'm', 's', 'x', 'n', 'u', 'A', 'D', 'S', 'X', 'U', 'J', ' ', '\n', '\r']);
const POSIX: Record<string, string> = {
  alpha: 'A-Za-z',
  digit: '0-9',
  alnum: 'A-Za-z0-9',
  space: '\\t\\n\\x{0b}\\f\\r ',
  upper: 'A-Z',
  lower: 'a-z',
  xdigit: '0-9A-Fa-f',
  punct: '!-\\/:-@\\[-`{-~',
  word: 'A-Za-z0-9_',
  blank: ' \\t',
  cntrl: '\\x{00}-\\x{1f}\\x{7f}',
  print: ' -~',
  graph: '!-~',
  ascii: '\\x{00}-\\x{7f}',
};
/** PCRE's `$` without /m or /D (and `\Z`): at the end, or before a final newline. Consumes that newline, which a boolean test cannot tell apart. */
const DOLLAR = '(?:\\n?\\z)';
/** PCRE2's `\s` (ASCII, with VT); RE2's lacks VT. */
const SPACE = '\\t\\n\\x{0b}\\f\\r ';
const MAX_SUBJECT = 64 * 1024;
/** PCRE's limit on `{n,m}` ("number too big in {} quantifier"). */
const MAX_REPEAT = 65535;
/** RE2's limit on `{n,m}`. */
const RE2_MAX_REPEAT = 1000;
/**
 * Largest RE2 program accepted at create/update. A match costs at most (program size × subject length)
 * steps, and compiling costs about 1.5 µs per instruction: 5,000 keeps both small (ordinary patterns
 * are below 100; `/[a-z]{999}/` is about 1,000).
 */
export const MAX_PROGRAM_SIZE = 5000;
/** Largest (program size × subject length) one test may cost; above, the test fails (both operators false, like PHP's backtrack limit). */
export const MAX_STEPS_PER_TEST = 1 << 22;

const LOOK_AROUND =
  'look-around assertions cannot run in linear time (devplane runs regular expressions on RE2)';
const BACK_REFERENCE = 'back-references cannot run in linear time (devplane runs regular expressions on RE2)';
const BIG_REPEAT = `repetition counts above ${RE2_MAX_REPEAT} (nested repeats multiply) are not supported (devplane runs regular expressions on RE2)`;
const TOO_LARGE = `the pattern is too large (more than ${MAX_PROGRAM_SIZE} RE2 instructions)`;

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
  return codePoint(c.codePointAt(0)!);
}

function codePoint(cp: number): string {
  return `\\x{${cp.toString(16)}}`;
}

/** Splits `pattern` into body and modifiers as PHP does. */
export function splitPhpRegex(pattern: string): { body: string; modifiers: string } {
  let p = 0;
  while (p < pattern.length && WHITESPACE.has(pattern[p]!)) p++;
  if (p >= pattern.length) throw new PhpRegexError('Empty regular expression');
  const delimiter = pattern[p]!;
  if (/[A-Za-z0-9\\\0]/.test(delimiter) || delimiter.charCodeAt(0) > 0x7f)
    throw new PhpRegexError('Delimiter must not be alphanumeric, backslash, or NUL');
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
  /**
   * Estimated RE2 program size, so a pattern that expands hugely (`(?:a[ab]{999}c|b[ab]{998}c|…)`, about
   * 150,000 instructions and 0.2 s of compiling) is refused before RE2 compiles it: one per token, a repeat
   * multiplies the size of its item. The exact limit is checked on the compiled program.
   */
  private size = 0;
  /** Estimated sizes of the open groups (innermost last) and of the last repeatable item. */
  private readonly groups: number[] = [];
  private lastItem = 0;

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
          this.closeGroup();
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
            if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT))
              throw new PhpRegexError('Number too big in {} quantifier');
            if (min > RE2_MAX_REPEAT || (max !== Infinity && max > RE2_MAX_REPEAT))
              throw new PhpRegexError(BIG_REPEAT, true);
            this.grow(this.lastItem * (Math.max(min, max === Infinity ? min + 1 : max) - 1) + 1);
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
          this.emit(this.o.m ? '$' : this.o.D ? '\\z' : DOLLAR, false);
          this.p++;
          break;
        case '^':
          this.emit('^', false);
          this.p++;
          break;
        case '.':
          // RE2's `.` is PCRE's: any character but \n (DOTALL with /s).
          this.emit('.', true);
          this.p++;
          break;
        case '|':
          this.emit('|', false);
          this.p++;
          break;
        default: {
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
    this.grow(1);
    this.lastItem = 1;
  }

  /** Adds to the estimate (and to every open group); refuses a pattern far above MAX_PROGRAM_SIZE. */
  private grow(n: number): void {
    this.size += n;
    if (this.groups.length > 0) this.groups[this.groups.length - 1]! += n;
    if (this.size > 4 * MAX_PROGRAM_SIZE) throw new PhpRegexError(TOO_LARGE, true);
  }

  private openGroup(): void {
    this.groups.push(0);
  }

  /** The closed group becomes the repeatable item; its size counts in the enclosing group too. */
  private closeGroup(): void {
    const inner = this.groups.pop() ?? 0;
    if (this.groups.length > 0) this.groups[this.groups.length - 1]! += inner;
    this.lastItem = inner + 1;
  }

  private quantifier(c: string): void {
    if (!this.quantifiable) throw new PhpRegexError('Quantifier does not follow a repeatable item');
    this.grow(1);
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
  }

  private group(): void {
    const s = this.src;
    const rest = s.slice(this.p);
    if (rest.startsWith('(*')) throw new PhpRegexError('Backtracking verbs are not supported');
    if (!rest.startsWith('(?')) {
      this.emit('(', false);
      this.openGroup();
      this.p++;
      return;
    }
    if (rest.startsWith('(?#')) {
      const close = s.indexOf(')', this.p);
      if (close < 0) throw new PhpRegexError('Missing ) after comment');
      this.p = close + 1;
      return;
    }
    if (rest.startsWith('(?:')) {
      this.emit('(?:', false);
      this.openGroup();
      this.p += 3;
      return;
    }
    if (/^\(\?(?:=|!|<=|<!)/.test(rest)) throw new PhpRegexError(LOOK_AROUND, true);
    let m = /^\(\?(?:P?<|')([A-Za-z_][A-Za-z0-9_]*)[>']/.exec(rest);
    if (m) {
      this.emit(`(?P<${m[1]}>`, false);
      this.openGroup();
      this.p += m[0].length;
      return;
    }
    m = /^\(\?P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest);
    if (m) throw new PhpRegexError(BACK_REFERENCE, true);
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
        put(codePoint(cp));
        this.p += braced[0].length;
        return;
      }
      const short = /^\\x([0-9A-Fa-f]{0,2})/.exec(s.slice(this.p))!;
      put(codePoint(parseInt(short[1] || '0', 16)));
      this.p += short[0].length;
      return;
    }
    if (c === '0') {
      const oct = /^\\0([0-7]{0,2})/.exec(s.slice(this.p))!;
      put(codePoint(parseInt(oct[1] || '0', 8)));
      this.p += oct[0].length;
      return;
    }
    if (/[1-9]/.test(c)) {
      if (inClass) throw new PhpRegexError('Back references are not allowed in a class');
      throw new PhpRegexError(BACK_REFERENCE, true);
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
      if (m && !inClass) throw new PhpRegexError(BACK_REFERENCE, true);
      const n = /^\\g\{?([1-9][0-9]?)\}?/.exec(s.slice(this.p));
      if (c === 'g' && n && !inClass) throw new PhpRegexError(BACK_REFERENCE, true);
      throw new PhpRegexError('Unsupported back reference');
    }
    if (c === 'c') {
      const ch = s[this.p + 2];
      if (!ch || !/[A-Za-z]/.test(ch)) throw new PhpRegexError('Unsupported \\c');
      put(codePoint(ch.toUpperCase().charCodeAt(0) ^ 0x40));
      this.p += 3;
      return;
    }
    const simple: Record<string, [string, string]> = {
      // [outside a class, inside a class]
      d: ['\\d', '\\d'],
      D: ['\\D', '\\D'],
      w: ['\\w', '\\w'],
      W: ['\\W', '\\W'],
      s: [`[${SPACE}]`, SPACE],
      S: [`[^${SPACE}]`, '\\S'],
      n: ['\\n', '\\n'],
      r: ['\\r', '\\r'],
      t: ['\\t', '\\t'],
      f: ['\\f', '\\f'],
      e: ['\\x{1b}', '\\x{1b}'],
      a: ['\\x{07}', '\\x{07}'],
      h: ['[\\t \\x{a0}]', '\\t \\x{a0}'],
      v: ['[\\n\\x{0b}\\f\\r\\x{85}\\x{2028}\\x{2029}]', '\\n\\x{0b}\\f\\r\\x{85}\\x{2028}\\x{2029}'],
      H: ['[^\\t \\x{a0}]', ''],
      V: ['[^\\n\\x{0b}\\f\\r\\x{85}\\x{2028}\\x{2029}]', ''],
      N: ['[^\\n]', ''],
      b: ['\\b', '\\x{08}'],
      B: ['\\B', ''],
      A: ['\\A', ''],
      z: ['\\z', ''],
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

/** RE2's own refusals of what PCRE accepts. */
function re2Refusal(message: string): PhpRegexError {
  if (/invalid repeat count/.test(message)) return new PhpRegexError(BIG_REPEAT, true);
  if (/expression too large|nesting depth/.test(message)) return new PhpRegexError(TOO_LARGE, true);
  return new PhpRegexError(message);
}

/** Parses, translates and compiles a PHP-delimited regex for RE2. Throws PhpRegexError when it is invalid or unsupported. */
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
  if (o.A) source = `\\A(?:${source})`;
  const flags = (o.i ? RE2JS.CASE_INSENSITIVE : 0) | (o.m ? RE2JS.MULTILINE : 0) | (o.s ? RE2JS.DOTALL : 0);
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(source, flags);
  } catch (error) {
    throw re2Refusal((error as Error).message);
  }
  const programSize = regex.programSize();
  if (programSize > MAX_PROGRAM_SIZE) throw new PhpRegexError(TOO_LARGE, true);
  const compiled = { source, flags, regex, programSize };
  cache.set(pattern, compiled);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return compiled;
}

/** null when valid; else the error (invalid PCRE, or PCRE that RE2 cannot run). */
export function phpRegexProblem(pattern: string): PhpRegexError | null {
  try {
    compilePhpRegex(pattern);
    return null;
  } catch (error) {
    if (error instanceof PhpRegexError) return error;
    throw error;
  }
}

export function isValidPhpRegex(pattern: string): boolean {
  return phpRegexProblem(pattern) === null;
}

/**
 * Regex work one event may spend across all its rules, in steps (program size × subject length; see
 * {@link MAX_STEPS_PER_TEST}). Deterministic: once spent, the remaining tests fail (both `matches` and
 * `!matches` false), so a user with thousands of rules cannot hold the event loop for long.
 */
export interface RegexBudget {
  remainingSteps: number;
}

/** Per event (and per access-control pre-check): about 0.1 s of the worst case on these machines. */
export const REGEX_STEPS_PER_EVENT = 1 << 25;

/**
 * `preg_match`: true/false, or null when the test is refused (subject above 64 KiB, more than
 * {@link MAX_STEPS_PER_TEST} steps, or the event's budget spent), like PHP's backtrack-limit failure.
 * RE2 never backtracks, so the time of a test is bounded by its steps. Never throws.
 */
export function phpRegexTest(
  compiled: CompiledPhpRegex,
  subject: string,
  budget?: RegexBudget,
): boolean | null {
  if (subject.length > MAX_SUBJECT) return null;
  const steps = compiled.programSize * Math.max(subject.length, 1);
  if (steps > MAX_STEPS_PER_TEST) return null;
  if (budget) {
    if (budget.remainingSteps < steps) return null;
    budget.remainingSteps -= steps;
  }
  try {
    return compiled.regex.test(subject);
  } catch {
    return null;
  }
}
