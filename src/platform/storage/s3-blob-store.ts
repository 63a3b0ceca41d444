import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ConfigError } from '../config/app-config';
import { DomainError, NotFoundError, UnavailableError } from '../errors/domain-error';
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

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function isMissing(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  if (name === 'NoSuchBucket') return false; // the bucket, not the object: the store is unusable
  return statusOf(error) === 404 || name === 'NotFound' || name === 'NoSuchKey';
}

/**
 * Whether an S3 failure means the store cannot serve at all (issue 51.3): no answer (refused, reset,
 * timed out, DNS), a 5xx, a missing bucket, or credentials it refuses. Those become one
 * `UnavailableError` that every dialect renders as its 503, instead of a 500.
 */
function isStoreDown(error: unknown): boolean {
  if (error instanceof DomainError) return false;
  const status = statusOf(error);
  const name = (error as { name?: string } | null)?.name;
  if (status === undefined) return true;
  return (
    status >= 500 ||
    name === 'NoSuchBucket' ||
    name === 'InvalidAccessKeyId' ||
    name === 'SignatureDoesNotMatch' ||
    status === 403
  );
}

/** The error a caller sees when the bucket cannot be reached (the cause is kept for the log). */
/** The system error code of a request that got no answer (ECONNREFUSED, ...), where the SDK keeps it. */
function networkCode(error: unknown, depth = 0): string | undefined {
  const found = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | null;
  if (!found || typeof found !== 'object' || depth > 3) return undefined;
  if (typeof found.code === 'string') return found.code;
  return (
    networkCode(found.cause, depth + 1) ??
    (Array.isArray(found.errors) ? networkCode(found.errors[0], depth + 1) : undefined) ??
    // The SDK's wrapper of a non-Error rejection keeps only the message ("... connect ECONNREFUSED ...").
    /\b(E[A-Z]{4,})\b/.exec(String((found as { message?: unknown }).message ?? ''))?.[1]
  );
}

function storeDown(error: unknown): UnavailableError {
  const status = statusOf(error);
  const reason =
    status === undefined
      ? (networkCode(error) ?? (error as { name?: string } | null)?.name ?? 'no answer')
      : `HTTP ${status} ${(error as { name?: string }).name ?? ''}`.trim();
  return new UnavailableError('The file storage is unavailable; try again later.', {
    code: 'BLOB_STORE_UNAVAILABLE',
    detail: `The S3 blob store did not serve the request (${reason}).`,
    cause: error,
  });
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
    // Outermost (around the retries): a failure meaning the store is down becomes an UnavailableError
    // (503 in every dialect) for every request; a missing object and other answers stay as they are.
    for (const client of [this.client, this.streamClient])
      client.middlewareStack.add(
        (next) => async (args) => {
          try {
            return await next(args);
          } catch (error) {
            if (!isMissing(error) && isStoreDown(error)) throw storeDown(error);
            throw error;
          }
        },
        { step: 'initialize', name: 'devplaneStoreDown' },
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

  /**
   * At boot (src/main.ts, issue 51.3): the bucket exists and these credentials may use it, else one
   * ConfigError naming the setting to fix (a missing bucket, refused credentials, an endpoint that
   * does not answer within 10 s).
   */
  async checkBucket(): Promise<void> {
    const { bucket, endpoint, region } = this.options;
    // Never the endpoint's user or password, if it carries any.
    const where = endpoint ? new URL(endpoint).origin : `AWS S3 (region ${region})`;
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: bucket }), {
        abortSignal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      const cause = error instanceof UnavailableError ? error.cause : error;
      const status = statusOf(cause);
      const name = (cause as { name?: string } | null)?.name;
      if (status === 404 || name === 'NotFound' || name === 'NoSuchBucket')
        throw new ConfigError(
          'S3_BUCKET',
          `"${bucket}" does not exist at ${where}: create it (e.g. \`aws s3 mb s3://${bucket}\` or \`mc mb <alias>/${bucket}\`), or set S3_BUCKET to an existing bucket`,
        );
      if (status === 401 || status === 403)
        throw new ConfigError(
          'S3_ACCESS_KEY',
          `is refused access to bucket "${bucket}" at ${where} (HTTP ${status}): check S3_ACCESS_KEY and S3_SECRET_KEY and the key's permissions on the bucket`,
        );
      if (status === undefined) {
        const code = networkCode(cause) ?? name ?? 'no answer';
        throw new ConfigError(
          'S3_ENDPOINT',
          `${where} cannot be reached (${code}): start the S3 server or fix S3_ENDPOINT (STORAGE_TYPE=s3)`,
        );
      }
      throw new ConfigError(
        'S3_BUCKET',
        `"${bucket}" at ${where} answered HTTP ${status} (${name ?? 'error'}): check the S3 server and S3_BUCKET`,
      );
    }
  }

  close(): void {
    this.client.destroy();
    this.streamClient.destroy();
  }
}
