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
import { MeasuringStream } from './measuring-stream';
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

  constructor(private readonly options: S3BlobStoreOptions) {
    super();
    this.client = new S3Client({
      region: options.region,
      // A download is not checksummed again on its way through (the stored SHA-256 is the validator).
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
      ...(options.accessKey && options.secretKey
        ? { credentials: { accessKeyId: options.accessKey, secretAccessKey: options.secretKey } }
        : {}),
    });
    // Part and object bodies are sent with an unsigned payload and a CRC32 checksum header (what the
    // SDK adds by default, natively computed), as AWS's own SDKs do for large uploads: signing the
    // payload hashed every byte with SHA-256 once more on the request thread (issue 34 item 4). The
    // headers stay signed; S3 verifies the CRC32 of each part.
    this.client.middlewareStack.add(
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
    const Key = this.objectKey(key);
    const Bucket = this.options.bucket;
    const measure = new MeasuringStream(options.maxBytes, options.digests);
    body.on('error', (error) => measure.destroy(error));
    body.pipe(measure);
    let uploadId: string | undefined;
    const parts: { ETag: string | undefined; PartNumber: number }[] = [];
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flushPart = async (): Promise<void> => {
      if (!uploadId) {
        const created = await this.client.send(
          new CreateMultipartUploadCommand({ Bucket, Key, ContentType: options.contentType }),
        );
        uploadId = created.UploadId;
      }
      const PartNumber = parts.length + 1;
      const part = await this.client.send(
        new UploadPartCommand({
          Bucket,
          Key,
          UploadId: uploadId,
          PartNumber,
          Body: Buffer.concat(pending, pendingBytes),
        }),
      );
      parts.push({ ETag: part.ETag, PartNumber });
      pending = [];
      pendingBytes = 0;
    };
    try {
      for await (const chunk of measure as AsyncIterable<Buffer>) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= PART_SIZE) await flushPart();
      }
      if (!uploadId) {
        await this.client.send(
          new PutObjectCommand({
            Bucket,
            Key,
            Body: Buffer.concat(pending, pendingBytes),
            ContentType: options.contentType,
          }),
        );
      } else {
        if (pendingBytes > 0) await flushPart();
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
  }
}
