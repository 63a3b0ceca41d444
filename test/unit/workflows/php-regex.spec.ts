import {
  compilePhpRegex,
  isValidPhpRegex,
  MAX_PROGRAM_SIZE,
  MAX_STEPS_PER_TEST,
  phpRegexProblem,
  phpRegexTest,
  REGEX_STEPS_PER_EVENT,
  splitPhpRegex,
} from '../../../src/modules/workflows/checks/php-regex';

/** PHP-delimited regular expressions translated to RE2 (reference §5, php-src pcre parsing; issue 11.1). */
describe('PHP regex translation', () => {
  const test = (pattern: string, subject: string) => phpRegexTest(compilePhpRegex(pattern), subject);

  it.each([
    ['/abc/', 'xabcx', true],
    ['/ABC/i', 'xabcx', true],
    ['#a/b#', 'a/b', true],
    ['(a(b)c)', 'abc', true],
    ['[a]', 'a', true],
    ['<a<b>c>', 'a<b>c', true],
    ['{^a\\{2\\}$}', 'a{2}', true],
    ['/a{2}/', 'aa', true],
    ['/a{x}/', 'a{x}', true],
    ['/a}/', 'a}', true],
    ['/]/', ']', true],
    ['/[]a]/', ']', true],
    ['/[^]a]/', 'b', true],
    ['/^a.c$/', 'a\nc', false],
    ['/^a.c$/s', 'a\nc', true],
    ['/^abc$/', 'abc\n', true],
    ['/^abc$/D', 'abc\n', false],
    ['/^b$/m', 'a\nb\nc', true],
    ['/\\Aabc\\z/', 'abc', true],
    ['/\\Aabc\\z/', 'abc\n', false],
    ['/abc\\Z/', 'abc\n', true],
    ['/a b # comment\n c/x', 'abc', true],
    ['/[[:digit:]]+/', '42', true],
    ['/^[[:alpha:]]+$/', 'abc1', false],
    ['/(?i)abc/', 'ABC', true],
    ['/\\x41\\x{42}/', 'AB', true],
    ['/\\Q.*\\E/', '.*', true],
    ['/\\Q.*\\E/', 'ab', false],
    ['/a\\-b\\@c\\#/', 'a-b@c#', true],
    ['/\\d+\\s\\w/', '12 a', true],
    ['/\\h/', 'a\tb', true],
    ['/b/A', 'ab', false],
    ['/a/A', 'ab', true],
    ['/(?#comment)a/', 'a', true],
    ['/caf\\x{e9}/u', 'café', true],
    ['/\\p{Lu}/u', 'É', true],
    ['/a+?b*?/', 'aab', true],
    ["/(?P<x>a)(?<y>b)(?'z'c)/", 'abc', true],
    ['/^$/', '\n', true],
    ['/a$/', 'a\n\n', false],
    ['/\\s/', '\x0b', true],
    ['/\\cA/', '\x01', true],
    ['/[\\x{e9}-\\x{ea}]/u', 'ê', true],
    ['/^.$/u', '😀', true],
    ['/a.c/i', 'ABC', true],
  ])('%j on %j → %s', (pattern, subject, expected) => {
    expect(test(pattern, subject)).toBe(expected);
  });

  it.each([
    '',
    '   ',
    'abc',
    '\\abc\\',
    '/abc',
    '/abc/g',
    '/abc/e',
    '/abc/\t',
    '/(/',
    '/a++/',
    '/a*+/',
    '/(?>a)/',
    '/(?R)/',
    '/(?1)/',
    '/(?(1)a|b)/',
    '/(*FAIL)/',
    '/\\G/',
    '/a\\Kb/',
    '/\\R/',
    '/\\X/',
    '/a(?i)b/',
    '/(?i:a)/',
    '/[[:foo:]]/',
    '/*/',
    'éaé',
  ])('invalid %j', (pattern) => {
    expect(isValidPhpRegex(pattern)).toBe(false);
  });

  it('splits like PHP: leading whitespace, bracket nesting, spaces among modifiers', () => {
    expect(splitPhpRegex(' \n/x/ i')).toEqual({ body: 'x', modifiers: ' i' });
    expect(splitPhpRegex('(a(b)c)i')).toEqual({ body: 'a(b)c', modifiers: 'i' });
    expect(splitPhpRegex('{a\\}b}')).toEqual({ body: 'a\\}b', modifiers: '' });
  });

  it.each([
    ['/a(?=b)/', 'look-around'],
    ['/a(?!b)/', 'look-around'],
    ['/(?<!x)b/', 'look-around'],
    ['/(?<=x)b/', 'look-around'],
    ['/(a)\\1/', 'back-references'],
    ['/(?P<x>a)(?P=x)/', 'back-references'],
    ['/(?<x>a)\\k<x>/', 'back-references'],
    ['/(a)\\g{1}/', 'back-references'],
    ['/a{1001}/', 'repetition counts above 1000'],
    ['/a{2,1500}/', 'repetition counts above 1000'],
  ])('valid PCRE that RE2 cannot run is refused with the reason: %j', (pattern, reason) => {
    const problem = phpRegexProblem(pattern);
    expect(problem?.unsupported).toBe(true);
    expect(problem?.message).toContain(reason);
    expect(problem?.message).toContain('RE2');
  });

  it('plain invalid patterns are not "unsupported"', () => {
    expect(phpRegexProblem('abc')?.unsupported).toBe(false);
    expect(phpRegexProblem('/(/')?.unsupported).toBe(false);
    expect(phpRegexProblem('/\\.exe$/i')).toBeNull();
  });

  it('a pattern whose RE2 program is too large is refused (compile and match cost stay bounded)', () => {
    let body = '';
    for (let n = 999; body.length < 1990; n--) body += `a[ab]{${n}}c|`;
    const problem = phpRegexProblem(`/(?:${body.slice(0, -1)})/`);
    expect(problem?.unsupported).toBe(true);
    expect(problem?.message).toContain(`more than ${MAX_PROGRAM_SIZE} RE2 instructions`);
    // Just above the limit after compiling, and far above it before (refused by the estimate, never compiled).
    expect(
      phpRegexProblem('/a[ab]{999}c|b[ab]{998}c|c[ab]{997}c|d[ab]{996}c|e[ab]{995}c|f[ab]{994}c/')?.message,
    ).toContain('too large');
    expect(phpRegexProblem('/(?:[ab]{99}x){20}/')?.message).toContain(
      'repetition counts above 1000 (nested repeats multiply)',
    );
    expect(phpRegexProblem('/(?:(?:[ab]{999}){9}){9}/')?.message).toContain('too large');
    expect(compilePhpRegex('/(a{100}|b{100}){10}/').programSize).toBeLessThanOrEqual(MAX_PROGRAM_SIZE);
  });

  it('issue 11.1: the empty-alternation patterns (26 and 400 groups) compile to a tiny RE2 program and answer', () => {
    for (const groups of [26, 400]) {
      const compiled = compilePhpRegex(`/${'(?:|)'.repeat(groups)}x/`);
      expect(compiled.programSize).toBeLessThan(50);
      expect(phpRegexTest(compiled, `${'a'.repeat(200)}x`)).toBe(true);
      expect(phpRegexTest(compiled, 'a'.repeat(2000))).toBe(false);
    }
  });

  it('formerly catastrophic patterns (nested and alternating repeats) run in one pass', () => {
    expect(test('/^(a+)+$/', `${'a'.repeat(5000)}!`)).toBe(false);
    expect(test('/^(a+)+$/', 'a'.repeat(5000))).toBe(true);
    expect(test('/^(a|a)*$/', `${'a'.repeat(5000)}!`)).toBe(false);
    expect(test('/^(a|aa)+$/', 'a'.repeat(5000))).toBe(true);
    expect(test('/a*b/', 'a'.repeat(60_000))).toBe(false);
  });

  it('a test costing more than MAX_STEPS_PER_TEST steps (program size × subject length) fails (both operators false)', () => {
    const compiled = compilePhpRegex('/[ab]{999}c/');
    const fits = Math.floor(MAX_STEPS_PER_TEST / compiled.programSize);
    expect(phpRegexTest(compiled, 'a'.repeat(fits))).toBe(false);
    expect(phpRegexTest(compiled, 'a'.repeat(fits + 1))).toBeNull();
  });

  it('an event has one budget of steps: spent, the remaining tests fail', () => {
    const compiled = compilePhpRegex('/\\.exe$/');
    const cost = compiled.programSize * 'a.exe'.length;
    const budget = { remainingSteps: cost * 2 };
    expect(phpRegexTest(compiled, 'a.exe', budget)).toBe(true);
    expect(phpRegexTest(compiled, 'a.exe', budget)).toBe(true);
    expect(budget.remainingSteps).toBe(0);
    expect(phpRegexTest(compiled, 'a.exe', budget)).toBeNull();
    expect(phpRegexTest(compiled, 'a.exe', { remainingSteps: REGEX_STEPS_PER_EVENT })).toBe(true);
  });

  it.each(['/a{65536}/', '/a{1,65536}/', '/a{65536,}/'])(
    'PCRE quantifier limit: %j is invalid',
    (pattern) => {
      expect(isValidPhpRegex(pattern)).toBe(false);
    },
  );

  it('subjects above 64 KiB fail', () => {
    expect(phpRegexTest(compilePhpRegex('/a/'), 'a'.repeat(70_000))).toBeNull();
  });
});
