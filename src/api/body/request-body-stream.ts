import type { Request } from 'express';
import { PassThrough, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { BadRequestError, UnsupportedMediaTypeError } from '../../platform/errors/domain-error';

/** The Content-Encoding of a request (`identity` when none), lower-cased. */
export function contentEncoding(req: Request): string {
  return (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase() || 'identity';
}

function decoderFor(encoding: string): Transform | null {
  switch (encoding) {
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new UnsupportedMediaTypeError(`Unsupported content encoding "${encoding}".`, {
        code: 'UNSUPPORTED_CONTENT_ENCODING',
      });
  }
}

/**
 * The request body as a stream, nothing buffered: the request itself, or its inflated bytes when the
 * client sent `Content-Encoding: gzip` (git does for large negotiations), `deflate` or `br`. Bytes that
 * are not what the header claims end the stream with a BadRequestError (400 in the route's dialect);
 * an unknown encoding throws UnsupportedMediaTypeError (415) at once.
 */
export function requestBodyStream(req: Request): Readable {
  const encoding = contentEncoding(req);
  const decoder = decoderFor(encoding);
  if (!decoder) return req;
  const out = new PassThrough();
  decoder.on('error', (error: Error) => {
    req.unpipe(decoder);
    out.destroy(
      new BadRequestError(`Request body is not valid ${encoding} data.`, {
        code: 'BAD_CONTENT_ENCODING',
        detail: error.message,
      }),
    );
  });
  req.on('error', (error) => out.destroy(error));
  req.on('aborted', () => out.destroy(new BadRequestError('Request aborted.', { code: 'REQUEST_ABORTED' })));
  req.pipe(decoder).pipe(out);
  // The decoder can fail before the route attaches its listeners, or after a reader gave up on the body
  // (a 413 stops reading): the error stays on the stream for whoever reads it, and never ends the process.
  out.on('error', () => undefined);
  return out;
}

/**
 * The size of the body `requestBodyStream` yields, when the client declared it: the Content-Length of a
 * body sent without Content-Encoding (an encoded body's length says nothing of the inflated bytes) and
 * without chunked transfer. Undefined otherwise. The blob store holds the stream to it exactly.
 */
export function declaredBodySize(req: Request): number | undefined {
  if (contentEncoding(req) !== 'identity' || req.headers['transfer-encoding']) return undefined;
  const length = req.headers['content-length'];
  if (length === undefined || !/^\d{1,15}$/.test(length.trim())) return undefined;
  return Number(length.trim());
}
