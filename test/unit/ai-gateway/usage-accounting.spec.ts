import {
  sumUsage,
  sumUsageMetadata,
  threadUsage,
  usage,
} from '../../../src/modules/ai-gateway/ai-gateway-queries.service';

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

describe('AI gateway token usage metadata (issue 33.10)', () => {
  it('sums numeric metadata by key, nested keys joined with dots, other leaves skipped', () => {
    const usages = [
      { metadata: { reasoning_tokens: 3, cache: { ephemeral_5m: 2 }, note: 'x', flags: [1] } },
      { metadata: { reasoning_tokens: 4, cache: { ephemeral_5m: 1, ephemeral_1h: 5 }, none: null } },
      { metadata: null },
      {},
    ];
    expect(sumUsageMetadata(usages)).toEqual({
      reasoning_tokens: 7,
      'cache.ephemeral_5m': 3,
      'cache.ephemeral_1h': 5,
    });
  });

  it("a thread's usage carries the summed metadata, {} without any", () => {
    expect(threadUsage([{ usages: [{ input_tokens: 1, metadata: {} }] }])).toEqual({
      input_tokens: 1,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_write_input_tokens: 0,
      metadata: {},
    });
  });
});
