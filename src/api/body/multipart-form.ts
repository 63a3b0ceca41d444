import busboy from 'busboy';
import type { Request, Response } from 'express';
import { type Readable, Transform } from 'node:stream';
import { BadRequestError, TooLargeError } from '../../platform/errors/domain-error';
import { discardRest } from './discard-body';
import { requestBodyStream } from './request-body-stream';

export interface MultipartField {
  kind: 'field';
  name: string;
  value: string;
}

export interface MultipartFile {
  kind: 'file';
  /** The form field name. */
  name: string;
  filename: string;
  mimeType: string;
  /**
   * The file's bytes as they arrive; read it (or skip it) before asking for the next part, and read it
   * to the end before leaving the `parts()` loop: leaving the loop discards the rest of the body.
   */
  stream: Readable;
}

export type MultipartPart = MultipartField | MultipartFile;

const FORM = Symbol('devplane:multipart-form');

export function setRequestMultipartForm(req: Request, form: MultipartForm): void {
  (req as unknown as Record<symbol, MultipartForm>)[FORM] = form;
}

export function requestMultipartForm(req: Request): MultipartForm | undefined {
  return (req as unknown as Record<symbol, MultipartForm | undefined>)[FORM];
}

export function multipartTooLarge(maxBytes: number): TooLargeError {
  return new TooLargeError('Request body too large.', {
    code: 'BODY_TOO_LARGE',
    detail: `Maximum request body size is ${maxBytes} bytes.`,
  });
}

/**
 * A multipart/form-data body read with busboy while the handler iterates `parts()`: fields arrive as
 * strings, files as streams (never buffered whole; busboy waits while a file stream is not read).
 * More than `maxBytes` (counted on the inflated bytes as they arrive) fails the current file stream
 * and the iteration with a TooLargeError at once, so the 413 goes out before the client has sent the
 * rest; the rest is then discarded and the connection closed.
 */
export class MultipartForm {
  private started = false;

  constructor(
    private readonly req: Request,
    private readonly res: Response,
    readonly maxBytes: number,
  ) {}

  async *parts(): AsyncGenerator<MultipartPart, void, undefined> {
    if (this.started) throw new Error('The multipart body can be read once.');
    this.started = true;
    const source = requestBodyStream(this.req);
    const parser = busboy({ headers: this.req.headers });
    const queue: MultipartPart[] = [];
    let failure: unknown;
    let finished = false;
    let wake: (() => void) | undefined;
    let current: Readable | undefined;
    const notify = () => {
      const resume = wake;
      wake = undefined;
      resume?.();
    };
    const fail = (error: unknown) => {
      if (failure !== undefined || finished) return;
      failure = error;
      source.unpipe(counter);
      current?.destroy(error instanceof Error ? error : new Error(String(error)));
      // Discard what the client still sends (up to a bound, so it reads the answer); the answer goes out now.
      discardRest(this.req, this.res);
      notify();
    };
    let received = 0;
    const maxBytes = this.maxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (received > maxBytes) callback(multipartTooLarge(maxBytes));
        else callback(null, chunk);
      },
    });
    parser.on('field', (name, value) => {
      queue.push({ kind: 'field', name, value });
      notify();
    });
    parser.on('file', (name, stream, info) => {
      queue.push({ kind: 'file', name, filename: info.filename ?? '', mimeType: info.mimeType, stream });
      notify();
    });
    parser.on('close', () => {
      finished = true;
      notify();
    });
    parser.on('error', (error: Error) =>
      fail(
        new BadRequestError('Malformed multipart body.', {
          code: 'MALFORMED_MULTIPART',
          detail: error.message,
        }),
      ),
    );
    counter.on('error', fail);
    source.on('error', fail);
    // A client that goes away mid-body must not leave the handler waiting for the next part.
    this.req.on('close', () => {
      if (!this.req.complete) fail(new BadRequestError('Request aborted.', { code: 'REQUEST_ABORTED' }));
    });
    source.pipe(counter).pipe(parser);
    try {
      for (;;) {
        // A file the handler skipped is drained so busboy can go on to the next part.
        if (current && !current.readableEnded && !current.destroyed) current.resume();
        if (failure !== undefined) throw failure;
        const next = queue.shift();
        if (next) {
          current = next.kind === 'file' ? next.stream : undefined;
          yield next;
          continue;
        }
        if (finished) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      if (!finished && failure === undefined) {
        // The handler stopped early: stop parsing and discard the rest of the body.
        source.unpipe(counter);
        counter.unpipe(parser);
        this.req.resume();
      }
    }
  }

  /** Every field as a string and every file read by `onFile` in order (a convenience over `parts()`). */
  async collect(onFile: (file: MultipartFile) => Promise<void>): Promise<Record<string, string>> {
    const fields = Object.create(null) as Record<string, string>;
    for await (const part of this.parts()) {
      if (part.kind === 'field') fields[part.name] = part.value;
      else await onFile(part);
    }
    return fields;
  }
}
