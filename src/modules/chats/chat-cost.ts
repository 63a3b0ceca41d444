/**
 * The cost of one model response (spec 2, chat cost rules): each token kind times its price, summed
 * exactly (BigInt), a fractional micro-dollar rounded up once after the sum. Reasoning tokens are
 * inside the output tokens (not added again). null when the model configuration prices nothing, 0
 * when it is free.
 */
export interface TokenUsage {
  input: number | bigint;
  /** Includes reasoning tokens. */
  output: number | bigint;
  cacheRead: number | bigint;
  cacheWrite: number | bigint;
}

/** Micro-dollars per million tokens of each kind; null = not priced. */
export interface ModelPrices {
  input: bigint | null;
  output: bigint | null;
  cacheRead: bigint | null;
  cacheWrite: bigint | null;
}

const MILLION = 1_000_000n;

export function costMicros(usage: TokenUsage, prices: ModelPrices | null): bigint | null {
  if (!prices) return null;
  const parts: [number | bigint, bigint | null][] = [
    [usage.input, prices.input],
    [usage.output, prices.output],
    [usage.cacheRead, prices.cacheRead],
    [usage.cacheWrite, prices.cacheWrite],
  ];
  if (parts.every(([, price]) => price === null)) return null;
  let numerator = 0n;
  for (const [tokens, price] of parts) numerator += BigInt(tokens) * (price ?? 0n);
  return (numerator + MILLION - 1n) / MILLION;
}

/** `"3"`, `"0.075"`, `"1.000001"` dollars per million tokens → micro-dollars per million (exact; ≤ 6 decimals). */
export function parseDollars(value: string): bigint | null {
  const match = /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(value.trim());
  if (!match) return null;
  return BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}

/** Micro-dollars per million → the decimal dollar text clients see. */
export function formatDollars(micros: bigint | null): string | null {
  if (micros === null) return null;
  const whole = micros / 1_000_000n;
  const fraction = (micros % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}
