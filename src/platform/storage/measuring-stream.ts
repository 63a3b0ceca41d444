import { Transform, type TransformCallback } from 'node:stream';
import { BadRequestError, TooLargeError } from '../errors/domain-error';
import { type DigestAlgorithm, type Digests, ParallelHash } from './parallel-hash';

export function tooLarge(maxBytes: number): TooLargeError {
  return new TooLargeError(`Blob exceeds the limit of ${maxBytes} bytes.`, { code: 'BLOB_TOO_LARGE' });
}

function sizeMismatch(expected: number, got: 'more' | 'fewer'): BadRequestError {
  return new BadRequestError(`The body has ${got} bytes than the ${expected} announced.`, {
    code: 'BLOB_SIZE_MISMATCH',
  });
}

/**
 * Passes bytes through while counting them and hashing them (SHA-256, plus any other digests asked
 * for), and fails the pipeline with TooLargeError the moment the count passes `maxBytes`, before the
 * rest is read. The hashing runs in worker threads (ParallelHash): a chunk goes on at once, and the
 * stream only waits when the workers are four batches behind; the digests are complete when the
 * stream has ended (`_flush` waits for them).
 */
export class MeasuringStream extends Transform {
  size = 0;
  private readonly hash: ParallelHash;
  private result: Digests | undefined;
  /**
   * With an announced size, the chunk that completes it is held back until the stream has ended and its
   * size and digests are confirmed: a receiver (an S3 PutObject of that length) never gets the whole
   * body of a stream that then runs long or fails, so it cannot publish it.
   */
  private held: Buffer | undefined;

  constructor(
    private readonly maxBytes: number | undefined,
    extraDigests: DigestAlgorithm[] = [],
    /** The exact size announced (Content-Length): more or fewer bytes fail the stream. */
    private readonly expectedSize?: number,
  ) {
    // 1 MiB buffered ahead on each side: fewer, larger writes downstream (the file or the S3 part).
    super({ highWaterMark: 1024 * 1024 });
    this.hash = new ParallelHash([...new Set<DigestAlgorithm>(['sha256', ...extraDigests])]);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (
      this.maxBytes !== undefined &&
      (this.size > this.maxBytes || (this.expectedSize ?? 0) > this.maxBytes)
    ) {
      callback(tooLarge(this.maxBytes));
      return;
    }
    if (this.expectedSize !== undefined && this.size > this.expectedSize) {
      callback(sizeMismatch(this.expectedSize, 'more'));
      return;
    }
    const waiting = this.hash.update(chunk);
    const out = this.size === this.expectedSize ? undefined : chunk;
    if (!out) this.held = chunk;
    if (!waiting) {
      callback(null, out);
      return;
    }
    if (out) this.push(out);
    waiting.then(
      () => callback(),
      (error: Error) => callback(error),
    );
  }

  override _flush(callback: TransformCallback): void {
    if (this.maxBytes !== undefined && (this.expectedSize ?? 0) > this.maxBytes) {
      callback(tooLarge(this.maxBytes));
      return;
    }
    if (this.expectedSize !== undefined && this.size !== this.expectedSize) {
      callback(sizeMismatch(this.expectedSize, 'fewer'));
      return;
    }
    this.hash.digest().then(
      (digests) => {
        this.result = digests;
        const held = this.held;
        this.held = undefined;
        callback(null, held);
      },
      (error: Error) => callback(error),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.held = undefined;
    if (!this.result) this.hash.abort();
    callback(error);
  }

  /** Lowercase hex SHA-256 of the bytes, once the stream has ended. */
  get sha256(): string {
    return this.digests.sha256!;
  }

  /** Every digest computed, once the stream has ended. */
  get digests(): Digests {
    if (!this.result) throw new Error('the digests are known once the stream has ended');
    return this.result;
  }
}
