import { Transform, type TransformCallback } from 'node:stream';
import { TooLargeError } from '../errors/domain-error';
import { type DigestAlgorithm, type Digests, ParallelHash } from './parallel-hash';

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

  constructor(
    private readonly maxBytes: number | undefined,
    extraDigests: DigestAlgorithm[] = [],
  ) {
    // 1 MiB buffered ahead on each side: fewer, larger writes downstream (the file or the S3 part).
    super({ highWaterMark: 1024 * 1024 });
    this.hash = new ParallelHash([...new Set<DigestAlgorithm>(['sha256', ...extraDigests])]);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.maxBytes !== undefined && this.size > this.maxBytes) {
      callback(
        new TooLargeError(`Blob exceeds the limit of ${this.maxBytes} bytes.`, { code: 'BLOB_TOO_LARGE' }),
      );
      return;
    }
    const waiting = this.hash.update(chunk);
    if (!waiting) {
      callback(null, chunk);
      return;
    }
    this.push(chunk);
    waiting.then(
      () => callback(),
      (error: Error) => callback(error),
    );
  }

  override _flush(callback: TransformCallback): void {
    this.hash.digest().then(
      (digests) => {
        this.result = digests;
        callback();
      },
      (error: Error) => callback(error),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
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
