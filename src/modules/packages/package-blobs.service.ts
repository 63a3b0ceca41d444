import { Injectable, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DataSource, type EntityManager } from 'typeorm';
import { JobQueue } from '../../platform/jobs/job-queue.service';
import { BlobStore } from '../../platform/storage/blob-store';
import type { PackageBlob } from './entities/package-blob.entity';
import { PackagesRepository } from './packages.repository';

export const COLLECT_BLOB_JOB = 'packages.collect-blob';
export const COLLECT_KEY_JOB = 'packages.collect-key';
/** Bytes stored by an upload that never got its row are collected this long after it started. */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * Package bytes in the platform blob store, one blob per content: an upload streams in (limit
 * enforced while reading) and, when a blob with the same SHA-512 already exists, the new bytes are
 * dropped and the existing row is used. Blobs no file refers to are deleted by durable jobs.
 */
@Injectable()
export class PackageBlobsService implements OnModuleInit {
  constructor(
    private readonly rows: PackagesRepository,
    private readonly blobStore: BlobStore,
    private readonly jobs: JobQueue,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.jobs.register<{ blobId: string }>(COLLECT_BLOB_JOB, async (job) => {
      await this.dataSource.transaction(async (manager) => {
        const blob = await this.rows.lockBlob(manager, job.payload.blobId);
        if (!blob || (await this.rows.blobInUse(manager, blob.id))) return;
        await this.rows.deleteBlob(manager, blob.id);
        await this.blobStore.delete(blob.blobKey);
      });
    });
    this.jobs.register<{ key: string }>(COLLECT_KEY_JOB, async (job) => {
      if (await this.rows.blobKeyExists(job.payload.key)) return;
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
    let stored;
    try {
      // The four digests Gitea keeps are computed by the store while it streams, off the request thread.
      stored = await this.blobStore.put(key, body, {
        maxBytes: options.maxBytes,
        contentType: options.contentType,
        digests: ['md5', 'sha1', 'sha512'],
      });
    } catch (error) {
      await this.blobStore.delete(key).catch(() => false);
      throw error;
    }
    const digests = {
      md5: stored.digests.md5!,
      sha1: stored.digests.sha1!,
      sha256: stored.sha256,
      sha512: stored.digests.sha512!,
    };
    try {
      return await this.dataSource.transaction(async (manager) => {
        const existing = await this.rows.findBlobBySha512(digests.sha512, manager);
        if (existing) {
          await this.blobStore.delete(key);
          return existing;
        }
        const row = await this.rows.createBlob(manager, {
          size: String(stored.size),
          blobKey: key,
          ...digests,
        });
        // Collected unless a file refers to it by then (a crash between this and the file's commit).
        await this.jobs.enqueue(manager, COLLECT_BLOB_JOB, { blobId: row.id }, { delayMs: ORPHAN_GRACE_MS });
        return row;
      });
    } catch (error) {
      // A concurrent upload of the same content won the unique index: use its row.
      const winner = await this.rows.findBlobBySha512(digests.sha512);
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
