import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { TooLargeError } from '../errors/domain-error';

/**
 * Passes bytes through while counting them and hashing them (SHA-256), and fails the pipeline
 * with TooLargeError the moment the count passes `maxBytes`, before the rest is read.
 */
export class MeasuringStream extends Transform {
  size = 0;
  private readonly hash: Hash = createHash('sha256');
  private digest: string | undefined;

  constructor(private readonly maxBytes: number | undefined) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.maxBytes !== undefined && this.size > this.maxBytes) {
      callback(
        new TooLargeError(`Blob exceeds the limit of ${this.maxBytes} bytes.`, { code: 'BLOB_TOO_LARGE' }),
      );
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  get sha256(): string {
    this.digest ??= this.hash.digest('hex');
    return this.digest;
  }
}
