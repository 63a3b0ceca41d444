import { jsonTooDeep, MAX_BODY_DEPTH, parseFormBody, parseJsonBody } from '../../../src/api/body/read-body';

describe('body parsing limits (read-body)', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('counts nesting of arrays and objects up to the cap', () => {
    expect(jsonTooDeep(nested(MAX_BODY_DEPTH))).toBe(false);
    expect(jsonTooDeep(nested(MAX_BODY_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep('{"a":'.repeat(65) + '1' + '}'.repeat(65))).toBe(true);
    // Siblings do not add up: depth goes back down after each closing bracket.
    expect(jsonTooDeep(`[${Array.from({ length: 100 }, () => nested(10)).join(',')}]`)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const inString = JSON.stringify({ a: '['.repeat(1000), b: 'say \\"[[[[\\" \\\\', c: '"'.repeat(9) });
    expect(jsonTooDeep(inString)).toBe(false);
    expect(parseJsonBody(inString)).toEqual(JSON.parse(inString));
    const escapedThenDeep = `["\\\\", ${nested(100)}]`; // a string ending in a backslash, then real nesting
    expect(jsonTooDeep(escapedThenDeep)).toBe(true);
  });

  it('answers 400 for deep, scalar and malformed JSON; empty is {}', () => {
    expect(() => parseJsonBody(nested(10_000))).toThrow(/nested too deeply/);
    expect(() => parseJsonBody('"x"')).toThrow('Request body must be valid JSON.');
    expect(() => parseJsonBody('{bad')).toThrow('Request body must be valid JSON.');
    expect(parseJsonBody('')).toEqual({});
    expect(parseJsonBody(' \n{"a":[1,{"b":2}]}')).toEqual({ a: [1, { b: 2 }] });
  });

  it('parses forms qs-style with the same depth cap', () => {
    expect(parseFormBody('a[0][b]=1&c=2')).toEqual({ a: [{ b: '1' }], c: '2' });
    expect(() => parseFormBody(`a${'[b]'.repeat(MAX_BODY_DEPTH + 1)}=1`)).toThrow(/nested too deeply/);
    expect(() => parseFormBody(Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join('&'))).toThrow(
      'Too many parameters.',
    );
  });
});
