import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, constants, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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

/** Blobs up to this size are kept in memory once read; at most SMALL_CACHE_BYTES of them. */
const SMALL_BLOB_BYTES = 64 * 1024;
const SMALL_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Blobs as files under `<root>/objects/<key>`. Uploads are written to `<root>/tmp/` and renamed
 * into place once complete (rename is atomic on one filesystem), so readers never see a partial
 * blob and a failed upload leaves only a temporary file that is removed at once.
 *
 * Small blobs (npm tarballs, most attachments: up to SMALL_BLOB_BYTES) are kept in memory once
 * read, up to SMALL_CACHE_BYTES in all, least recently used first out: a read of one from disk was
 * four thread-pool round trips (stat, open, read, close), about as long as the rest of an npm
 * tarball request (issue 15 item 7). Keys are never rewritten with other content (every module
 * names a blob by a fresh UUID), so an entry cannot go stale; `put` and `delete` drop it anyway.
 */
export class LocalBlobStore extends BlobStore {
  readonly driver = 'local' as const;
  private readonly objects: string;
  private readonly tmp: string;
  private readonly small = new Map<string, Buffer>();
  private smallBytes = 0;

  constructor(root: string) {
    super();
    this.objects = path.join(root, 'objects');
    this.tmp = path.join(root, 'tmp');
  }

  private file(key: string): string {
    assertBlobKey(key);
    return path.join(this.objects, key);
  }

  async put(key: string, body: Readable, options: BlobPutOptions = {}): Promise<BlobPutResult> {
    const target = this.file(key);
    this.forget(key);
    await mkdir(this.tmp, { recursive: true, mode: 0o700 });
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const temporary = path.join(this.tmp, randomUUID());
    const measure = new MeasuringStream(options.maxBytes, options.digests, options.expectedSize);
    try {
      // 1 MiB of buffering lets the write stream batch chunks (writev) instead of one system call per 64 KiB.
      await pipeline(
        body,
        measure,
        createWriteStream(temporary, { mode: 0o600, flags: 'wx', highWaterMark: 1024 * 1024 }),
      );
      await rename(temporary, target);
      this.forget(key); // a read during the upload may have kept the content it replaced
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { key, size: measure.size, sha256: measure.sha256, digests: measure.digests };
  }

  async get(key: string, range?: ByteRange): Promise<BlobReadResult> {
    const cached = this.small.get(key);
    if (cached) {
      this.small.delete(key); // most recently used last
      this.small.set(key, cached);
      return this.fromBuffer(cached, range);
    }
    const found = await this.stat(key);
    if (!found) throw new NotFoundError('Blob not found.', { code: 'BLOB_NOT_FOUND' });
    if (found.size > 0 && found.size <= SMALL_BLOB_BYTES) {
      const data = await readFile(this.file(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') throw new NotFoundError('Blob not found.', { code: 'BLOB_NOT_FOUND' });
        throw error;
      });
      this.remember(key, data);
      return this.fromBuffer(data, range);
    }
    const { start, end } = resolveRange(range, found.size);
    // An empty blob has nothing to read (createReadStream with end -1 would read everything). Read in
    // 1 MiB chunks: a sixteenth of the system calls and socket writes of the 64 KiB default on large files.
    const stream =
      found.size === 0
        ? Readable.from([])
        : createReadStream(this.file(key), { start, end, highWaterMark: 1024 * 1024 });
    return { stream, totalSize: found.size, start, end };
  }

  private fromBuffer(data: Buffer, range?: ByteRange): BlobReadResult {
    const { start, end } = resolveRange(range, data.length);
    const bytes = data.subarray(start, end + 1);
    return { stream: Readable.from([bytes]), totalSize: data.length, start, end, bytes };
  }

  private remember(key: string, data: Buffer): void {
    this.forget(key);
    this.small.set(key, data);
    this.smallBytes += data.length;
    for (const [oldest, buffer] of this.small) {
      if (this.smallBytes <= SMALL_CACHE_BYTES) break;
      this.small.delete(oldest);
      this.smallBytes -= buffer.length;
    }
  }

  private forget(key: string): void {
    const buffer = this.small.get(key);
    if (!buffer) return;
    this.small.delete(key);
    this.smallBytes -= buffer.length;
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const info = await stat(this.file(key));
      return info.isFile() ? { key, size: info.size, lastModified: info.mtime } : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<boolean> {
    const file = this.file(key);
    this.forget(key);
    try {
      await rm(file);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  /**
   * Removes uploads a killed process left in `tmp/` (issue #46.5): at start, every temporary file
   * untouched for `graceMs` (0 on a single instance: nothing of this process is uploading yet; with a
   * directory other instances may share, only old ones). Returns how many were removed.
   */
  async removeAbandonedUploads(graceMs: number, now = Date.now()): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.tmp).catch(() => [] as string[])) {
      const file = path.join(this.tmp, name);
      const info = await stat(file).catch(() => undefined);
      if (!info || now - info.mtimeMs < graceMs) continue;
      await rm(file, { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  /** Readiness: the directory uploads are written to exists (or can be made) and is writable. */
  override async ping(): Promise<void> {
    await mkdir(this.tmp, { recursive: true, mode: 0o700 });
    await access(this.tmp, constants.R_OK | constants.W_OK);
  }
}
