import {
  costMicros,
  formatDollars,
  type ModelPrices,
  parseDollars,
} from '../../../src/modules/chats/chat-cost';

const prices = (
  input: string | null,
  output: string | null,
  cacheRead: string | null,
  cacheWrite: string | null,
): ModelPrices => ({
  input: input === null ? null : parseDollars(input),
  output: output === null ? null : parseDollars(output),
  cacheRead: cacheRead === null ? null : parseDollars(cacheRead),
  cacheWrite: cacheWrite === null ? null : parseDollars(cacheWrite),
});

describe('chat cost (micro-dollars, rounded up once after the exact sum)', () => {
  it.each([
    // [input, output, cacheRead, cacheWrite tokens], prices $/1M, expected micros
    ['one million input tokens at $3', [1_000_000, 0, 0, 0], prices('3', '15', '0.3', '3.75'), 3_000_000n],
    ['one input token at $3 is 3 micros', [1, 0, 0, 0], prices('3', '15', '0.3', '3.75'), 3n],
    ['a third of a micro rounds up to 1', [1, 0, 0, 0], prices('0.333333', null, null, null), 1n],
    [
      'fractions are summed before rounding (0.4 + 0.4 = 0.8 → 1, not 2)',
      [1, 1, 0, 0],
      prices('0.4', '0.4', null, null),
      1n,
    ],
    ['an exact sum is not rounded', [2, 1, 0, 0], prices('0.25', '0.5', null, null), 1n],
    ['all four kinds', [1000, 500, 2000, 100], prices('3', '15', '0.3', '3.75'), 11_475n],
    ['large counts stay exact', [123_456_789_012, 0, 0, 0], prices('0.000001', null, null, null), 123_457n],
    ['free is 0', [5000, 5000, 0, 0], prices('0', '0', '0', '0'), 0n],
    [
      'unpriced kinds count as free when another kind is priced',
      [1_000_000, 1_000_000, 0, 0],
      prices('1', null, null, null),
      1_000_000n,
    ],
  ] as const)('%s', (_name, [input, output, cacheRead, cacheWrite], price, expected) => {
    expect(costMicros({ input, output, cacheRead, cacheWrite }, price)).toBe(expected);
  });

  it('is null when nothing is priced or there is no configuration', () => {
    expect(
      costMicros({ input: 10, output: 10, cacheRead: 0, cacheWrite: 0 }, prices(null, null, null, null)),
    ).toBeNull();
    expect(costMicros({ input: 10, output: 10, cacheRead: 0, cacheWrite: 0 }, null)).toBeNull();
  });

  it('reasoning tokens are inside the output tokens, not added again', () => {
    // 100 output tokens of which 60 reasoning: charged as 100 output tokens.
    expect(
      costMicros({ input: 0, output: 100, cacheRead: 0, cacheWrite: 0 }, prices(null, '10', null, null)),
    ).toBe(1_000n);
  });

  it('parses and prints prices exactly', () => {
    expect(parseDollars('0.075')).toBe(75_000n);
    expect(parseDollars('15')).toBe(15_000_000n);
    expect(parseDollars('1.0000001')).toBeNull();
    expect(parseDollars('-1')).toBeNull();
    expect(formatDollars(75_000n)).toBe('0.075');
    expect(formatDollars(15_000_000n)).toBe('15');
    expect(formatDollars(null)).toBeNull();
  });
});
