/** Route metadata naming how a route's request body is read (set by the decorators in body.decorators.ts). */
export const BODY_METADATA = 'devplane:body';

/** Today's limit of JSON (and declared form) bodies. */
export const JSON_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export type BodyMode =
  /** Parsed JSON up to `limitBytes` (default for every route), form-encoded too when `form`; NUL and surrogate sanitisers. */
  | { kind: 'json'; limitBytes: number; form: boolean }
  /** Parsed JSON up to NPM_PUBLISH_MAX_SIZE_MB (npm publish documents with base64 tarballs), or `limitBytes`. */
  | { kind: 'large-json'; limitBytes?: number }
  /** The whole body as a Buffer in `req.body`, any content type, up to `limitBytes` (small binary documents). */
  | { kind: 'raw'; limitBytes: number }
  /** Nothing is read: the handler gets the untouched request stream (`@BodyStream()` inflates gzip). */
  | { kind: 'stream' }
  /** multipart/form-data read with busboy as the handler iterates (`@Multipart()`), at most `maxBytes`. */
  | { kind: 'multipart'; maxBytes: number };

export const DEFAULT_BODY_MODE: BodyMode = { kind: 'json', limitBytes: JSON_BODY_LIMIT_BYTES, form: false };
