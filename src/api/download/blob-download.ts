import type { Request, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import type { BlobStore, ByteRange } from '../../platform/storage/blob-store';
import { RangeNotSatisfiableError } from '../../platform/storage/range';

/**
 * `Range: bytes=a-b` / `bytes=a-` / `bytes=-n` against a size: the one range to serve, undefined for
 * the whole body (no header, several ranges, or a header that is not a byte range: served whole, as
 * RFC 9110 allows), or 'unsatisfiable'.
 */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | undefined | 'unsatisfiable' {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** Files up to this size are served from memory once read (npm tarballs, most attachments). */
export const SMALL_BLOB_BYTES = 256 * 1024;

/**
 * Bytes of small blobs by key and content hash, up to 32 MiB in all (least recently used leave first).
 * The content hash comes from the caller's row, so an entry can only ever answer with the bytes that
 * row names, even if a key were written again; a deleted file's row is gone before its blob is, so
 * nothing serves it. `npm install` asks for hundreds of small tarballs at once: from memory each is one
 * `end(buffer)` instead of a file stream with its open, reads, close and pipeline (issue 15 item 7).
 */
const smallBlobs = new LRUCache<string, Buffer>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (bytes) => Math.max(bytes.length, 1),
});

async function smallBlob(store: BlobStore, file: BlobDownload): Promise<Buffer> {
  const cacheKey = `${store.driver}\0${file.key}\0${file.etag}`;
  const cached = smallBlobs.get(cacheKey);
  if (cached) return cached;
  const bytes = await buffer((await store.get(file.key)).stream);
  // A blob whose length differs from its row's is served as read but not remembered.
  if (bytes.length === file.size) smallBlobs.set(cacheKey, bytes);
  return bytes;
}

export interface BlobDownload {
  key: string;
  size: number;
  /** A strong validator (the content hash). */
  etag: string;
  fileName: string;
  contentType: string;
  lastModified?: Date;
  /** `attachment` (default) or `inline`. */
  disposition?: 'attachment' | 'inline';
}

/**
 * Sends a stored blob as a file download: `Content-Disposition`, `Content-Length`, `ETag` with
 * `If-None-Match` (304), `Accept-Ranges` with single byte ranges (206, 416), HEAD without a body.
 * The bytes are streamed from the store; only files up to SMALL_BLOB_BYTES are held in memory. Resolves to whether file bytes were
 * sent (200 or 206 to a GET), so a caller can count downloads.
 */
export async function sendBlobDownload(
  store: BlobStore,
  req: Request,
  res: Response,
  file: BlobDownload,
): Promise<boolean> {
  const etag = `"${file.etag}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Cache-Control', 'private, max-age=300');
  if (file.lastModified) res.setHeader('Last-Modified', file.lastModified.toUTCString());
  res.attachment(file.fileName);
  if (file.disposition === 'inline')
    res.setHeader(
      'Content-Disposition',
      (res.getHeader('Content-Disposition') as string).replace(/^attachment/, 'inline'),
    );
  res.setHeader('Content-Type', file.contentType);
  const noneMatch = req.get('if-none-match');
  if (noneMatch && noneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    res.status(304).end();
    return false;
  }
  const ifRange = req.get('if-range');
  const range = ifRange && ifRange !== etag ? undefined : parseRange(req.get('range'), file.size);
  if (range === 'unsatisfiable') {
    res.status(416).setHeader('Content-Range', `bytes */${file.size}`);
    res.end();
    return false;
  }
  if (req.method === 'HEAD') {
    res.status(200).setHeader('Content-Length', String(file.size));
    res.end();
    return false;
  }
  if (!range && file.size <= SMALL_BLOB_BYTES) {
    const bytes = await smallBlob(store, file);
    res.status(200).setHeader('Content-Length', String(bytes.length));
    res.end(bytes);
    return true;
  }
  let read;
  try {
    read = await store.get(file.key, range);
  } catch (error) {
    if (error instanceof RangeNotSatisfiableError) {
      res.status(416).setHeader('Content-Range', `bytes */${error.totalSize}`);
      res.end();
      return false;
    }
    throw error;
  }
  if (range) {
    res.status(206).setHeader('Content-Range', `bytes ${read.start}-${read.end}/${read.totalSize}`);
  } else {
    res.status(200);
  }
  res.setHeader('Content-Length', String(read.totalSize === 0 ? 0 : read.end - read.start + 1));
  return pipeline(read.stream, res).then(
    () => true,
    () => {
      // The client went away mid-download: nothing to answer.
      read.stream.destroy();
      return false;
    },
  );
}
