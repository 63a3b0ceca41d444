import type { Request, Response } from 'express';
import rangeParser from 'range-parser';
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
  const ranges = rangeParser(size, header.trim(), { combine: true });
  if (ranges === -2) return undefined; // malformed: served whole
  if (ranges === -1) return 'unsatisfiable';
  if (ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
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
  /**
   * Awaited once bytes are about to be sent (a 200 or 206 to a GET), before the first is written: a
   * download counted here is committed before the client has the file (a count written after the
   * response raced with the client's next request). Not called for HEAD, 304 or 416.
   */
  beforeBody?: () => Promise<void>;
}

/**
 * Sends a stored blob as a file download: `Content-Disposition`, `Content-Length`, `ETag` with
 * `If-None-Match` (304), `Accept-Ranges` with single byte ranges (206, 416), HEAD without a body.
 * The bytes are streamed from the store, or written at once when the store holds them in memory.
 * Resolves to whether file bytes were sent (200 or 206 to a GET), so a caller can count downloads.
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
  if (file.beforeBody) {
    try {
      await file.beforeBody();
    } catch (error) {
      read.stream.destroy();
      throw error;
    }
  }
  if (range) {
    res.status(206).setHeader('Content-Range', `bytes ${read.start}-${read.end}/${read.totalSize}`);
  } else {
    res.status(200);
  }
  res.setHeader('Content-Length', String(read.totalSize === 0 ? 0 : read.end - read.start + 1));
  if (read.bytes) {
    // Held in memory by the store (small blobs): one write, no stream or pipeline (npm install fetches
    // hundreds of small tarballs at once).
    res.end(read.bytes);
    return true;
  }
  return pipeline(read.stream, res).then(
    () => true,
    () => {
      // The client went away mid-download: nothing to answer.
      read.stream.destroy();
      return false;
    },
  );
}
