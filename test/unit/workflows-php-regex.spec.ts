import { compilePhpRegex, isValidPhpRegex, phpRegexTest, splitPhpRegex } from '../../src/modules/workflows/checks/php-regex';

/** PHP-delimited regular expressions translated to JavaScript (reference §5, php-src pcre parsing). */
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
    ['/(?P<x>a)(?P=x)/', 'aa', true],
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
    ['/a(?=b)/', 'ab', true],
    ['/(?<!x)b/', 'ab', true],
    ['/(a)\\1/', 'aa', true],
  ])('%j on %j → %s', (pattern, subject, expected) => {
    expect(test(pattern, subject)).toBe(expected);
  });

  it.each(['', '   ', 'abc', '\\abc\\', '/abc', '/abc/g', '/abc/e', '/abc/\t', '/(/', '/a++/', '/a*+/', '/(?>a)/', '/(?R)/', '/(?1)/', '/(?(1)a|b)/', '/(*FAIL)/', '/\\G/', '/a\\Kb/', '/\\R/', '/\\X/', '/a(?i)b/', '/(?i:a)/', '/[[:foo:]]/', '/*/', 'éaé'])(
    'invalid %j',
    (pattern) => {
      expect(isValidPhpRegex(pattern)).toBe(false);
    },
  );

  it('splits like PHP: leading whitespace, bracket nesting, spaces among modifiers', () => {
    expect(splitPhpRegex(' \n/x/ i')).toEqual({ body: 'x', modifiers: ' i' });
    expect(splitPhpRegex('(a(b)c)i')).toEqual({ body: 'a(b)c', modifiers: 'i' });
    expect(splitPhpRegex('{a\\}b}')).toEqual({ body: 'a\\}b', modifiers: '' });
  });

  it('catastrophic patterns are run with a time limit and fail (both matches and !matches false)', () => {
    const compiled = compilePhpRegex('/^(a+)+$/');
    expect(compiled.risky).toBe(true);
    expect(phpRegexTest(compiled, 'aaaa', 1000)).toBe(true);
    expect(phpRegexTest(compiled, `${'a'.repeat(40)}!`, 30)).toBeNull();
  });

  it('only patterns with nested quantifiers go to the time-limited path (lookbehinds and \\A do not)', () => {
    expect(compilePhpRegex('/(?<!x)b/').risky).toBe(false);
    expect(compilePhpRegex('/\\Aabc\\z/').risky).toBe(false);
    expect(compilePhpRegex('/b/A').risky).toBe(false);
    expect(compilePhpRegex('/(?<=(a+)+)b/').risky).toBe(true);
  });

  it.each([
    ['/^(a|a)*$/', true],
    ['/^(a|aa)+$/', true],
    ['/(ab){2,}/', true],
    ['/(a)\\1/', true],
    ['/(?P<x>a)(?P=x)/', true],
    ['/^a*a*b$/', true],
    ['/x.{0,100}y.*z/', true],
    ['/\\.exe$/i', false],
    ['/(ab)?c/', false],
    ['/^report-1\\.(pdf|docx?)$/i', false],
    ['/(vnd\\.(ms-|openxmlformats-|oasis\\.opendocument).*)$/', false],
    ['/a{2,32}b/', false],
  ])('cost screen: %j runs time-limited: %s', (pattern, risky) => {
    expect(compilePhpRegex(pattern).risky).toBe(risky);
  });

  it('exponential alternation in a repeated group (star height 1, so safe-regex2 passes it) fails fast instead of blocking', () => {
    const compiled = compilePhpRegex('/^(a|a)*$/');
    expect(phpRegexTest(compiled, `${'a'.repeat(32)}!`, 30)).toBeNull();
    expect(phpRegexTest(compiled, 'aaaa', 1000)).toBe(true);
  });

  it('an event has one budget of time-limited work: spent, the time-limited tests fail; direct ones still run', () => {
    const costly = compilePhpRegex('/^(a|a)*$/');
    const budget = { remainingMs: 40 };
    expect(phpRegexTest(costly, `${'a'.repeat(32)}!`, 50, budget)).toBeNull();
    expect(budget.remainingMs).toBeLessThan(40);
    const spent = { remainingMs: 0 };
    expect(phpRegexTest(costly, 'aaaa', 50, spent)).toBeNull();
    expect(phpRegexTest(costly, 'aaaa', 50, { remainingMs: 100 })).toBe(true);
    expect(phpRegexTest(compilePhpRegex('/\\.exe$/'), 'a.exe', 50, spent)).toBe(true);
  });

  it('one unbounded quantifier runs directly on short subjects and time-limited on long ones (quadratic)', () => {
    const compiled = compilePhpRegex('/a*b/');
    expect(compiled).toMatchObject({ risky: false, superlinear: true });
    expect(phpRegexTest(compiled, 'aaab')).toBe(true);
    expect(phpRegexTest(compiled, 'a'.repeat(1000))).toBe(false);
    expect(phpRegexTest(compiled, 'a'.repeat(60_000), 5)).toBeNull();
    expect(phpRegexTest(compiled, `${'a'.repeat(2000)}b`, 1000)).toBe(true);
    expect(compilePhpRegex('/\\.exe$/').superlinear).toBe(false);
  });

  it.each(['/a{65536}/', '/a{1,65536}/', '/a{65536,}/'])('PCRE quantifier limit: %j is invalid', (pattern) => {
    expect(isValidPhpRegex(pattern)).toBe(false);
  });

  it('subjects above 64 KiB fail', () => {
    expect(phpRegexTest(compilePhpRegex('/a/'), 'a'.repeat(70_000))).toBeNull();
  });
});
