import type { Readable } from 'node:stream';
import type { DigestAlgorithm, Digests } from './parallel-hash';

/** A stored blob's facts. */
export interface BlobStat {
  key: string;
  size: number;
  lastModified: Date;
}

export interface BlobPutOptions {
  /** Largest accepted size in bytes; the upload fails with TooLargeError as soon as it is exceeded. */
  maxBytes?: number;
  /** Stored with the blob where the driver can (S3); callers keep their own copy in their rows. */
  contentType?: string;
  /** Digests to compute besides SHA-256 while streaming. */
  digests?: DigestAlgorithm[];
  /**
   * The exact size the caller expects (a raw upload's Content-Length). A stream that ends short of it or
   * goes past it fails (BadRequestError, nothing published); above `maxBytes` it fails at once
   * (TooLargeError). S3 uses it to send the body as one streamed PutObject (up to 5 GiB) instead of
   * buffering multipart parts.
   */
  expectedSize?: number;
}

/** What `put` measured while streaming. */
export interface BlobPutResult {
  key: string;
  size: number;
  /** Lowercase hex SHA-256 of the bytes stored. */
  sha256: string;
  /** Lowercase hex digests of the bytes stored: SHA-256 and those asked for in `digests`. */
  digests: Digests;
}

/** An inclusive byte range, as HTTP's `Range: bytes=start-end` (end omitted = to the end). */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface BlobReadResult {
  stream: Readable;
  /** Size of the whole blob. */
  totalSize: number;
  /** The inclusive range served (the whole blob when none was asked). */
  start: number;
  end: number;
  /** The range's bytes, when the store holds them in memory (the stream yields the same bytes). */
  bytes?: Buffer;
}

/**
 * Where files live (attachments, package files, chat files): the local directory under
 * DATA_DIR or an S3-compatible bucket (STORAGE_TYPE). Keys are relative paths of
 * `[A-Za-z0-9._-]` segments separated by `/`.
 *
 * Contract, proven against both drivers by test/platform/blob-store.e2e-spec.ts:
 * - `put` streams: size and sha256 are computed while reading, the size limit is enforced while
 *   reading, and the blob becomes visible only once complete (an aborted or refused upload leaves
 *   nothing, and an existing blob under the key is untouched until the new one is complete).
 * - `get` serves byte ranges; an unsatisfiable range is a RangeNotSatisfiableError.
 * - `stat` answers null for a missing key; `delete` answers whether something was deleted.
 */
export abstract class BlobStore {
  abstract readonly driver: 'local' | 's3';
  abstract put(key: string, body: Readable, options?: BlobPutOptions): Promise<BlobPutResult>;
  abstract get(key: string, range?: ByteRange): Promise<BlobReadResult>;
  abstract stat(key: string): Promise<BlobStat | null>;
  abstract delete(key: string): Promise<boolean>;

  /**
   * Readiness (`/readyz`): resolves when the store can serve reads and writes, rejects otherwise.
   * Drivers override it; the default (a store in memory) is always ready.
   */
  async ping(): Promise<void> {}
}
