import type { ByteRange } from './blob-store';

/** A byte range that lies outside the blob (HTTP 416). Rendered by callers that serve ranges. */
export class RangeNotSatisfiableError extends Error {
  constructor(readonly totalSize: number) {
    super(`Range not satisfiable (size ${totalSize}).`);
  }
}

/** Resolves a requested range against a blob's size; throws RangeNotSatisfiableError when it cannot be served. */
export function resolveRange(
  range: ByteRange | undefined,
  totalSize: number,
): { start: number; end: number } {
  if (!range) return { start: 0, end: Math.max(totalSize - 1, -1) };
  const end = Math.min(range.end ?? totalSize - 1, totalSize - 1);
  if (
    !Number.isSafeInteger(range.start) ||
    range.start < 0 ||
    range.start >= totalSize ||
    end < range.start
  ) {
    throw new RangeNotSatisfiableError(totalSize);
  }
  return { start: range.start, end };
}
