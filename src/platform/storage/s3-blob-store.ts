import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { NotFoundError } from '../errors/domain-error';
import { assertBlobKey } from './blob-key';
import {
  BlobStore,
  type BlobPutOptions,
  type BlobPutResult,
  type BlobReadResult,
  type BlobStat,
  type ByteRange,
} from './blob-store';
import { MeasuringStream, tooLarge } from './measuring-stream';
import { resolveRange } from './range';

export interface S3BlobStoreOptions {
  endpoint?: string;
  bucket: string;
  accessKey?: string;
  secretKey?: string;
  region: string;
  /** Prefix inside the bucket (tests use one per run). */
  prefix?: string;
}

/** S3's smallest part (except the last); parts are buffered one at a time, so memory per upload stays at this. */
const PART_SIZE = 8 * 1024 * 1024;

/** S3's limit of one PutObject: a body of known size up to this goes in one streamed request. */
const MAX_SINGLE_PUT = 5 * 1024 * 1024 * 1024;

/** Commands whose body is blob bytes. */
const UNSIGNED_COMMANDS = new Set(['PutObjectCommand', 'UploadPartCommand']);

function isMissing(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const name = (error as { name?: string }).name;
  return status === 404 || name === 'NotFound' || name === 'NoSuchKey';
}

/**
 * Blobs in an S3-compatible bucket. An upload that fits in one part is one PutObject; a larger
 * one is a multipart upload, completed only when the whole stream was read within the limit and
 * aborted otherwise, so a failed upload never becomes visible (S3 publishes an object only when
 * the PUT or the Complete succeeds).
 */
export class S3BlobStore extends BlobStore {
  readonly driver = 's3' as const;
  private readonly client: S3Client;
  /**
   * The client of streamed PutObjects. Same settings, but one attempt, and checksums only where an
   * operation requires one: with the default (`WHEN_SUPPORTED`) the SDK sends a stream body `aws-chunked` with a CRC32
   * trailer, an encoding s3rver stores verbatim, frames and all.
   */
  private readonly streamClient: S3Client;

  constructor(private readonly options: S3BlobStoreOptions) {
    super();
    const config = {
      region: options.region,
      // A download is not checksummed again on its way through (the stored SHA-256 is the validator).
      responseChecksumValidation: 'WHEN_REQUIRED' as const,
      ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
      ...(options.accessKey && options.secretKey
        ? { credentials: { accessKeyId: options.accessKey, secretAccessKey: options.secretKey } }
        : {}),
    };
    this.client = new S3Client(config);
    // One attempt: a streamed body cannot be sent twice (a retry would announce bytes already consumed).
    this.streamClient = new S3Client({
      ...config,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      maxAttempts: 1,
    });
    // Part and object bodies are sent with an unsigned payload and a CRC32 checksum header (what the
    // SDK adds by default, natively computed), as AWS's own SDKs do for large uploads: signing the
    // payload hashed every byte with SHA-256 once more on the request thread (issue 34 item 4). The
    // headers stay signed; S3 verifies the CRC32 of each part. Streamed PutObjects carry no checksum
    // (see streamClient): their bytes are the request's, counted against the announced length.
    for (const client of [this.client, this.streamClient])
      client.middlewareStack.add(
        (next, context) => (args) => {
          const request = args.request as { headers?: Record<string, string> };
          if (UNSIGNED_COMMANDS.has(context.commandName ?? '') && request.headers)
            request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
          return next(args);
        },
        { step: 'build', name: 'devplaneUnsignedPayload' },
      );
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    return `${this.options.prefix ?? ''}${key}`;
  }

  async put(key: string, body: Readable, options: BlobPutOptions = {}): Promise<BlobPutResult> {
    const expected = options.expectedSize;
    if (expected !== undefined && options.maxBytes !== undefined && expected > options.maxBytes) {
      this.objectKey(key); // a bad key is still a BadRequestError first
      body.destroy();
      throw tooLarge(options.maxBytes);
    }
    if (expected !== undefined && expected <= MAX_SINGLE_PUT)
      return this.putStreamed(key, body, expected, options);
    return this.putBuffered(key, body, options);
  }

  /**
   * A body of known size: one PutObject whose body is the stream itself (no part in memory, no copy).
   * MeasuringStream holds the stream to the announced length: a body that ends short or runs long fails
   * the stream, the request is aborted before it is complete, and S3 publishes nothing.
   */
  private async putStreamed(
    key: string,
    body: Readable,
    expectedSize: number,
    options: BlobPutOptions,
  ): Promise<BlobPutResult> {
    const Key = this.objectKey(key);
    const measure = new MeasuringStream(options.maxBytes, options.digests, expectedSize);
    const abort = new AbortController();
    let failure: Error | undefined;
    const fail = (error: Error) => {
      failure ??= error;
      abort.abort(error);
    };
    measure.on('error', fail);
    body.on('error', (error) => measure.destroy(error));
    body.pipe(measure);
    try {
      await this.streamClient.send(
        new PutObjectCommand({
          Bucket: this.options.bucket,
          Key,
          Body: measure,
          ContentLength: expectedSize,
          ContentType: options.contentType,
        }),
        { abortSignal: abort.signal },
      );
      // The server answered once it had the announced bytes; the digests are ready once the stream ended.
      if (!measure.writableFinished || !measure.readableEnded) await finished(measure);
    } catch (error) {
      body.unpipe(measure);
      if (!body.destroyed) body.destroy();
      if (!measure.destroyed) measure.destroy();
      throw failure ?? error;
    }
    return { key, size: measure.size, sha256: measure.sha256, digests: measure.digests };
  }

  /** A body of unknown size (or above 5 GiB): parts of 8 MiB, one in memory at a time. */
  private async putBuffered(key: string, body: Readable, options: BlobPutOptions): Promise<BlobPutResult> {
    const Key = this.objectKey(key);
    const Bucket = this.options.bucket;
    const measure = new MeasuringStream(options.maxBytes, options.digests, options.expectedSize);
    body.on('error', (error) => measure.destroy(error));
    body.pipe(measure);
    let uploadId: string | undefined;
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    // One part buffer per upload, filled by copying each chunk once and reused for every part (the
    // chunks are not kept, so memory is this buffer, not the chunks plus a concatenated copy).
    let part: Buffer | undefined;
    let first: Buffer[] = [];
    let filled = 0;
    const flushPart = async (): Promise<void> => {
      if (!uploadId) {
        const created = await this.client.send(
          new CreateMultipartUploadCommand({ Bucket, Key, ContentType: options.contentType }),
        );
        uploadId = created.UploadId;
      }
      const PartNumber = parts.length + 1;
      const sent = await this.client.send(
        new UploadPartCommand({
          Bucket,
          Key,
          UploadId: uploadId,
          PartNumber,
          Body: part!.subarray(0, filled),
        }),
      );
      parts.push({ ETag: sent.ETag, PartNumber });
      filled = 0;
    };
    /** Copies a chunk into the part buffer, sending the part each time it is full. */
    const fill = async (chunk: Buffer): Promise<void> => {
      let offset = 0;
      while (offset < chunk.length) {
        const copied = chunk.copy(part!, filled, offset);
        offset += copied;
        filled += copied;
        if (filled === PART_SIZE) await flushPart();
      }
    };
    try {
      for await (const chunk of measure as AsyncIterable<Buffer>) {
        if (part) {
          await fill(chunk);
          continue;
        }
        // Until a part is full the chunks are kept as they are: a small blob is one PutObject of them.
        first.push(chunk);
        filled += chunk.length;
        if (filled < PART_SIZE) continue;
        part = Buffer.allocUnsafeSlow(PART_SIZE);
        const pending = first;
        first = [];
        filled = 0;
        for (const piece of pending) await fill(piece);
      }
      if (!part) {
        await this.client.send(
          new PutObjectCommand({
            Bucket,
            Key,
            Body: first.length === 1 ? first[0] : Buffer.concat(first, filled),
            ContentType: options.contentType,
          }),
        );
      } else {
        if (filled > 0) await flushPart();
        await this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket,
            Key,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts },
          }),
        );
      }
    } catch (error) {
      body.unpipe(measure);
      if (!body.destroyed) body.destroy();
      if (!measure.destroyed) measure.destroy();
      if (uploadId) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId }))
          .catch(() => undefined);
      }
      throw error;
    }
    return { key, size: measure.size, sha256: measure.sha256, digests: measure.digests };
  }

  async get(key: string, range?: ByteRange): Promise<BlobReadResult> {
    const found = await this.stat(key);
    if (!found) throw new NotFoundError('Blob not found.', { code: 'BLOB_NOT_FOUND' });
    const { start, end } = resolveRange(range, found.size);
    if (found.size === 0) return { stream: Readable.from([]), totalSize: 0, start, end };
    try {
      const object = await this.client.send(
        new GetObjectCommand({
          Bucket: this.options.bucket,
          Key: this.objectKey(key),
          ...(range ? { Range: `bytes=${start}-${end}` } : {}),
        }),
      );
      return { stream: object.Body as Readable, totalSize: found.size, start, end };
    } catch (error) {
      if (isMissing(error)) throw new NotFoundError('Blob not found.', { code: 'BLOB_NOT_FOUND' });
      throw error;
    }
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }),
      );
      return { key, size: head.ContentLength ?? 0, lastModified: head.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<boolean> {
    const existed = (await this.stat(key)) !== null;
    if (existed)
      await this.client.send(
        new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }),
      );
    return existed;
  }

  /** Readiness: whether the bucket answers (within 5 s: a hung endpoint is not ready either). */
  override async ping(): Promise<void> {
    await this.client
      .send(
        new HeadObjectCommand({
          Bucket: this.options.bucket,
          Key: `${this.options.prefix ?? ''}.devplane-ping`,
        }),
        { abortSignal: AbortSignal.timeout(5_000) },
      )
      .catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      });
  }

  close(): void {
    this.client.destroy();
    this.streamClient.destroy();
  }
}
