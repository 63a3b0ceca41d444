import { TransactionRunner } from '../../platform/database/transaction-runner.service';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { EntityManager } from 'typeorm';
import { JobQueue } from '../../platform/jobs/job-queue.service';
import { BlobStore } from '../../platform/storage/blob-store';
import { digestStream } from '../../platform/storage/parallel-hash';
import type { PackageBlob } from './entities/package-blob.entity';
import { type BlobDigests, PackagesRepository } from './packages.repository';

export const COLLECT_BLOB_JOB = 'packages.collect-blob';
export const COLLECT_KEY_JOB = 'packages.collect-key';
/** MD5, SHA-1 and SHA-512 of a blob stored with SHA-256 only, computed after the upload answered. */
export const BLOB_DIGESTS_JOB = 'packages.blob-digests';
/** Bytes stored by an upload that never got its row are collected this long after it started. */
const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * Package bytes in the platform blob store, one blob per content: an upload streams in (limit
 * enforced while reading, SHA-256 computed on the way) and, when a blob with the same SHA-256 and size
 * already exists, the new bytes are dropped and the existing row is used. MD5, SHA-1 and SHA-512 (which
 * Gitea shows) are computed after the answer by the `packages.blob-digests` job, or on demand by a
 * reader that needs them first (`completeDigests`). Blobs no file refers to are deleted by durable jobs.
 */
@Injectable()
export class PackageBlobsService implements OnModuleInit {
  constructor(
    private readonly rows: PackagesRepository,
    private readonly blobStore: BlobStore,
    private readonly jobs: JobQueue,
    private readonly transactions: TransactionRunner,
  ) {}

  onModuleInit(): void {
    this.jobs.register<{ blobId: string }>(COLLECT_BLOB_JOB, async (job) => {
      await this.transactions.run(async ({ manager }) => {
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
    // Reading 200 MiB back and hashing it takes a few seconds; the lease leaves room for a slow store.
    this.jobs.register<{ blobId: string }>(
      BLOB_DIGESTS_JOB,
      async (job) => {
        const blob = await this.rows.findBlob(job.payload.blobId);
        if (blob) await this.completeDigests([blob]); // a blob collected meanwhile needs nothing
      },
      { leaseMs: 10 * 60_000 },
    );
  }

  /**
   * Fills in the missing MD5, SHA-1 and SHA-512 of these blobs (reading each blob back once, hashed in
   * the store's worker threads) and stores them, so a reader never shows a missing digest. The objects
   * are updated in place. Blobs with every digest cost nothing.
   */
  async completeDigests(blobs: PackageBlob[]): Promise<void> {
    const incomplete = new Map<string, PackageBlob[]>();
    for (const blob of blobs) {
      if (blob.md5 && blob.sha1 && blob.sha512) continue;
      incomplete.set(blob.id, [...(incomplete.get(blob.id) ?? []), blob]);
    }
    for (const same of incomplete.values()) {
      const digests = await this.computeDigests(same[0]!.blobKey);
      await this.rows.fillBlobDigests(same[0]!.id, digests);
      for (const blob of same) {
        blob.md5 ??= digests.md5;
        blob.sha1 ??= digests.sha1;
        blob.sha512 ??= digests.sha512;
      }
    }
  }

  private async computeDigests(key: string): Promise<BlobDigests> {
    const { stream } = await this.blobStore.get(key);
    const digests = await digestStream(stream, ['md5', 'sha1', 'sha512']);
    return { md5: digests.md5!, sha1: digests.sha1!, sha512: digests.sha512! };
  }

  /**
   * Stores the bytes (or finds the same content stored before) and returns its row. Only SHA-256 is
   * computed while streaming; `digests` are the other three when the caller already has them (npm
   * publish hashes the tarball in memory), else a job computes them after the answer.
   */
  async store(
    body: Readable,
    options: {
      maxBytes?: number;
      contentType?: string;
      /** The body's declared length (Content-Length): the store may send it in one streamed request. */
      expectedSize?: number;
      digests?: BlobDigests;
    } = {},
  ): Promise<PackageBlob> {
    const uuid = randomUUID();
    const key = `packages/${uuid.slice(0, 2)}/${uuid.slice(2, 4)}/${uuid}`;
    await this.transactions.run(({ manager }) =>
      this.jobs.enqueue(manager, COLLECT_KEY_JOB, { key }, { delayMs: ORPHAN_GRACE_MS }),
    );
    let stored;
    try {
      stored = await this.blobStore.put(key, body, {
        maxBytes: options.maxBytes,
        contentType: options.contentType,
        expectedSize: options.expectedSize,
      });
    } catch (error) {
      await this.blobStore.delete(key).catch(() => false);
      throw error;
    }
    const size = String(stored.size);
    const given = options.digests;
    try {
      return await this.transactions.run(async ({ manager }) => {
        const existing = await this.rows.findBlobByContent(stored.sha256, size, manager);
        if (existing) {
          await this.blobStore.delete(key);
          // Known digests complete a row whose job has not run yet (its job then finds nothing to do).
          if (given && !(existing.md5 && existing.sha1 && existing.sha512)) {
            await this.rows.fillBlobDigests(existing.id, given, manager);
            existing.md5 ??= given.md5;
            existing.sha1 ??= given.sha1;
            existing.sha512 ??= given.sha512;
          }
          return existing;
        }
        const row = await this.rows.createBlob(manager, {
          size,
          blobKey: key,
          sha256: stored.sha256,
          md5: given?.md5 ?? null,
          sha1: given?.sha1 ?? null,
          sha512: given?.sha512 ?? null,
        });
        // Collected unless a file refers to it by then (a crash between this and the file's commit).
        await this.jobs.enqueue(manager, COLLECT_BLOB_JOB, { blobId: row.id }, { delayMs: ORPHAN_GRACE_MS });
        // The other digests, after the answer (committed with the row, so never lost).
        if (!given) await this.jobs.enqueue(manager, BLOB_DIGESTS_JOB, { blobId: row.id });
        return row;
      });
    } catch (error) {
      // A concurrent upload of the same content won the unique index: use its row.
      const winner = await this.rows.findBlobByContent(stored.sha256, size);
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
