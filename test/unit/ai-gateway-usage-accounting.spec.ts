import { sumUsage, usage } from '../../src/modules/ai-gateway/ai-gateway-queries.service';

describe('AI gateway usage accounting', () => {
  it("a record's usage: bigint columns (strings from the database) as numbers, absent ones 0", () => {
    expect(usage({ input_tokens: '12', output_tokens: 3, cache_read_input_tokens: null })).toEqual({
      input_tokens: 12,
      output_tokens: 3,
      cache_read_input_tokens: 0,
      cache_write_input_tokens: 0,
    });
  });

  it('a thread sums every usage record of every interception', () => {
    const rows = [
      {
        usages: [
          {
            input_tokens: '10',
            output_tokens: '2',
            cache_read_input_tokens: '5',
            cache_write_input_tokens: '0',
          },
          {
            input_tokens: '1',
            output_tokens: '1',
            cache_read_input_tokens: '0',
            cache_write_input_tokens: '7',
          },
        ],
      },
      { usages: [] },
      { usages: [{ input_tokens: 100, output_tokens: 50 }] },
    ];
    expect(sumUsage(rows)).toEqual({
      input_tokens: 111,
      output_tokens: 53,
      cache_read_input_tokens: 5,
      cache_write_input_tokens: 7,
    });
  });

  it('no interceptions is zero usage', () => {
    expect(sumUsage([])).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_write_input_tokens: 0,
    });
  });
});
