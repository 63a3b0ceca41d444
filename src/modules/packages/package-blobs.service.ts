import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, type Hash, randomUUID } from 'node:crypto';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { DataSource, type EntityManager, Repository as OrmRepository } from 'typeorm';
import { JobQueue } from '../../platform/jobs/job-queue.service';
import { BlobStore } from '../../platform/storage/blob-store';
import { PackageBlob } from './entities/package-blob.entity';
import { PackageFile } from './entities/package-file.entity';

export const COLLECT_BLOB_JOB = 'packages.collect-blob';
export const COLLECT_KEY_JOB = 'packages.collect-key';
/** Bytes stored by an upload that never got its row are collected this long after it started. */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/** MD5, SHA-1, SHA-256 and SHA-512 of the bytes passing through (Gitea stores all four). */
class HashingStream extends Transform {
  size = 0;
  private readonly hashes: Record<'md5' | 'sha1' | 'sha256' | 'sha512', Hash> = {
    md5: createHash('md5'),
    sha1: createHash('sha1'),
    sha256: createHash('sha256'),
    sha512: createHash('sha512'),
  };

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    for (const hash of Object.values(this.hashes)) hash.update(chunk);
    callback(null, chunk);
  }

  digests(): { md5: string; sha1: string; sha256: string; sha512: string } {
    return {
      md5: this.hashes.md5.digest('hex'),
      sha1: this.hashes.sha1.digest('hex'),
      sha256: this.hashes.sha256.digest('hex'),
      sha512: this.hashes.sha512.digest('hex'),
    };
  }
}

/**
 * Package bytes in the platform blob store, one blob per content: an upload streams in (limit
 * enforced while reading) and, when a blob with the same SHA-512 already exists, the new bytes are
 * dropped and the existing row is used. Blobs no file refers to are deleted by durable jobs.
 */
@Injectable()
export class PackageBlobsService implements OnModuleInit {
  constructor(
    @InjectRepository(PackageBlob) private readonly blobs: OrmRepository<PackageBlob>,
    private readonly blobStore: BlobStore,
    private readonly jobs: JobQueue,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.jobs.register<{ blobId: string }>(COLLECT_BLOB_JOB, async (job) => {
      await this.dataSource.transaction(async (manager) => {
        const blob = await manager
          .getRepository(PackageBlob)
          .findOne({ where: { id: job.payload.blobId }, lock: { mode: 'pessimistic_write' } });
        if (!blob || (await manager.getRepository(PackageFile).existsBy({ blobId: blob.id }))) return;
        await manager.getRepository(PackageBlob).delete({ id: blob.id });
        await this.blobStore.delete(blob.blobKey);
      });
    });
    this.jobs.register<{ key: string }>(COLLECT_KEY_JOB, async (job) => {
      if (await this.blobs.existsBy({ blobKey: job.payload.key })) return;
      await this.blobStore.delete(job.payload.key);
    });
  }

  /** Stores the bytes (or finds the same content stored before) and returns its row. */
  async store(
    body: Readable,
    options: { maxBytes?: number; contentType?: string } = {},
  ): Promise<PackageBlob> {
    const uuid = randomUUID();
    const key = `packages/${uuid.slice(0, 2)}/${uuid.slice(2, 4)}/${uuid}`;
    await this.dataSource.transaction((manager) =>
      this.jobs.enqueue(manager, COLLECT_KEY_JOB, { key }, { delayMs: ORPHAN_GRACE_MS }),
    );
    const hashing = new HashingStream();
    const source = body.pipe(hashing);
    body.once('error', (error) => hashing.destroy(error));
    let stored;
    try {
      stored = await this.blobStore.put(key, source, {
        maxBytes: options.maxBytes,
        contentType: options.contentType,
      });
    } catch (error) {
      await this.blobStore.delete(key).catch(() => false);
      throw error;
    }
    const digests = hashing.digests();
    try {
      return await this.dataSource.transaction(async (manager) => {
        const existing = await manager.getRepository(PackageBlob).findOneBy({ sha512: digests.sha512 });
        if (existing) {
          await this.blobStore.delete(key);
          return existing;
        }
        const row = await manager
          .getRepository(PackageBlob)
          .save(
            manager
              .getRepository(PackageBlob)
              .create({ size: String(stored.size), blobKey: key, ...digests }),
          );
        // Collected unless a file refers to it by then (a crash between this and the file's commit).
        await this.jobs.enqueue(manager, COLLECT_BLOB_JOB, { blobId: row.id }, { delayMs: ORPHAN_GRACE_MS });
        return row;
      });
    } catch (error) {
      // A concurrent upload of the same content won the unique index: use its row.
      const winner = await this.blobs.findOneBy({ sha512: digests.sha512 });
      await this.blobStore.delete(key).catch(() => false);
      if (winner) return winner;
      throw error;
    }
  }

  /** Queues the collection of blobs that may have lost their last file (inside the deleting transaction). */
  async collectLater(manager: EntityManager, blobIds: string[]): Promise<void> {
    for (const blobId of new Set(blobIds)) await this.jobs.enqueue(manager, COLLECT_BLOB_JOB, { blobId });
  }
}
