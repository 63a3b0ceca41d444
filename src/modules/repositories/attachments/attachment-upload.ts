import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { MultipartForm } from '../../../api/body/multipart-form';
import { declaredBodySize, requestBodyStream } from '../../../api/body/request-body-stream';
import { BadRequestError } from '../../../platform/errors/domain-error';

/** Room for the multipart framing around the file (boundaries, part headers, other small fields). */
const MULTIPART_OVERHEAD = 1024 * 1024;

export const MISSING_FILE_MESSAGE = 'attachment is required (multipart form field "attachment")';

/**
 * The uploaded file of an attachment route, handed to `handle` as a stream while it arrives:
 * multipart's `attachment` field (its file name unless `nameOverride` is non-empty) or, where
 * `allowRaw`, the raw body of any other content type (named only by `nameOverride`), with its declared
 * size when the request carries one (`declaredBodySize`).
 */
export async function withUploadedFile<T>(
  req: Request,
  res: Response,
  options: { nameOverride?: string; maxBytes: number; allowRaw: boolean },
  handle: (name: string, body: Readable, expectedSize?: number) => Promise<T>,
): Promise<T> {
  const type = req.get('content-type') ?? '';
  if (/^multipart\/form-data\b/i.test(type)) {
    const form = new MultipartForm(req, res, options.maxBytes + MULTIPART_OVERHEAD);
    for await (const part of form.parts()) {
      if (part.kind === 'file' && part.name === 'attachment') {
        // `return await`: leaving the loop ends the form, so the file must be read first.
        return await handle(options.nameOverride || part.filename, part.stream);
      }
    }
    throw new BadRequestError(MISSING_FILE_MESSAGE, { code: 'ATTACHMENT_MISSING' });
  }
  if (!options.allowRaw) throw new BadRequestError(MISSING_FILE_MESSAGE, { code: 'ATTACHMENT_MISSING' });
  return handle(options.nameOverride ?? '', requestBodyStream(req), declaredBodySize(req));
}
