import type { Request, Response } from 'express';
import qs from 'qs';
import {
  BadRequestError,
  TooLargeError,
  UnsupportedMediaTypeError,
} from '../../platform/errors/domain-error';
import { discardRest } from './discard-body';
import { contentEncoding, requestBodyStream } from './request-body-stream';

/** Deepest nesting of arrays/objects a parsed JSON or form body may have (issue #31.9). */
export const MAX_BODY_DEPTH = 64;
/** As body-parser: at most this many form parameters. */
const FORM_PARAMETER_LIMIT = 1000;

export function bodyTooLarge(limitBytes: number): TooLargeError {
  return new TooLargeError('Request body too large.', {
    code: 'BODY_TOO_LARGE',
    detail: `Maximum request body size is ${limitBytes} bytes.`,
  });
}

export function bodyTooDeep(): BadRequestError {
  return new BadRequestError(`Request body is nested too deeply (at most ${MAX_BODY_DEPTH} levels).`, {
    code: 'BODY_TOO_DEEP',
  });
}

/**
 * Stops reading a request whose answer is an error: the decoder (if any) is detached and destroyed so
 * nothing more is inflated; what the client still sends is discarded as raw bytes, up to a bound,
 * so it can read the answer (discard-body.ts, issue #46.7).
 */
function abandon(req: Request, res: Response): void {
  discardRest(req, res);
}

/**
 * Reads the whole request body, inflated when Content-Encoding says so, refusing it with a 413 the
 * moment the INFLATED bytes pass `limitBytes` (a declared identity length over the limit is refused
 * before reading). Nothing more is inflated after that; the rest of the upload is discarded.
 */
export function readBody(req: Request, res: Response, limitBytes: number): Promise<Buffer> {
  const identity = contentEncoding(req) === 'identity';
  const declared = Number(req.headers['content-length']);
  if (identity && Number.isFinite(declared) && declared > limitBytes) {
    abandon(req, res);
    return Promise.reject(bodyTooLarge(limitBytes));
  }
  const stream = requestBodyStream(req); // throws 415 for unknown encodings
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const finish = (error: unknown, body?: Buffer): void => {
      if (settled) return;
      settled = true;
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      // A decoder still holding bytes may fail after the answer was chosen: nothing listens any more.
      stream.on('error', () => undefined);
      req.off('close', onClose);
      if (error !== undefined) {
        chunks.length = 0;
        if (stream !== req) stream.destroy();
        abandon(req, res);
        reject(error);
      } else resolve(body!);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limitBytes) finish(bodyTooLarge(limitBytes));
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (identity && Number.isFinite(declared) && received !== declared) {
        finish(new BadRequestError('Request size did not match content length.', { code: 'BAD_BODY' }));
      } else finish(undefined, Buffer.concat(chunks, received));
    };
    const onError = (error: unknown): void =>
      finish(
        error instanceof BadRequestError || error instanceof UnsupportedMediaTypeError
          ? error
          : new BadRequestError('Request body could not be read.', {
              code: 'BAD_BODY',
              detail: error instanceof Error ? error.message : String(error),
            }),
      );
    const onClose = (): void => {
      if (!req.complete) finish(new BadRequestError('Request aborted.', { code: 'REQUEST_ABORTED' }));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    req.on('close', onClose);
  });
}

/** The charset of the body, as body-parser accepts it for JSON (utf-8 by default, other UTF encodings decoded). */
function decodeText(req: Request, body: Buffer, jsonOnly: boolean): string {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.headers['content-type'] ?? '');
  const charset = (match?.[1] ?? 'utf-8').toLowerCase();
  if (charset === 'utf-8' || charset === 'utf8') return body.toString('utf8');
  if (jsonOnly && !charset.startsWith('utf-'))
    throw new UnsupportedMediaTypeError(`unsupported charset "${charset.toUpperCase()}"`);
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    throw new UnsupportedMediaTypeError(`unsupported charset "${charset.toUpperCase()}"`);
  }
}

/**
 * Whether the text nests arrays/objects deeper than `max`: a scan that skips strings, so it costs one
 * pass and never recurses (JSON.parse itself copes with any depth, but every later walk - validation,
 * class-transformer, sanitisers - would not).
 */
export function jsonTooDeep(text: string, max = MAX_BODY_DEPTH): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Jump to the closing quote (escaped quotes have an odd run of backslashes before them).
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i === -1) return false; // unterminated: JSON.parse refuses it
        let backslashes = 0;
        for (let j = i - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

/** Parses a JSON text as body-parser's strict mode does (objects and arrays only; empty is `{}`), depth-capped. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) return {};
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') {
    throw new BadRequestError('Request body must be valid JSON.', {
      code: 'MALFORMED_JSON',
      detail: 'JSON bodies must be an object or an array.',
    });
  }
  if (jsonTooDeep(text)) throw bodyTooDeep();
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BadRequestError('Request body must be valid JSON.', {
      code: 'MALFORMED_JSON',
      detail: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Reads and parses a JSON body (limit counted on inflated bytes, depth capped). */
export async function readJsonBody(req: Request, res: Response, limitBytes: number): Promise<unknown> {
  const body = await readBody(req, res, limitBytes);
  return parseJsonBody(decodeText(req, body, true));
}

/** Parses a form-encoded text with qs (`a[0][b]=...`) as body-parser's extended mode, nesting capped. */
export function parseFormBody(text: string): Record<string, unknown> {
  if (text.length === 0) return {};
  let count = 1;
  for (let index = text.indexOf('&'); index !== -1; index = text.indexOf('&', index + 1)) {
    if (++count > FORM_PARAMETER_LIMIT)
      throw new TooLargeError('Too many parameters.', { code: 'TOO_MANY_PARAMETERS' });
  }
  try {
    return qs.parse(text, {
      allowPrototypes: true,
      arrayLimit: Math.max(100, count),
      depth: MAX_BODY_DEPTH,
      strictDepth: true,
      parameterLimit: FORM_PARAMETER_LIMIT,
    });
  } catch (error) {
    if (error instanceof RangeError) throw bodyTooDeep();
    throw new BadRequestError('Malformed form body.', {
      code: 'MALFORMED_FORM',
      detail: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Reads and parses a form-encoded body. */
export async function readFormBody(req: Request, res: Response, limitBytes: number): Promise<unknown> {
  const body = await readBody(req, res, limitBytes);
  return parseFormBody(decodeText(req, body, false));
}
