import { createHash } from 'node:crypto';

/**
 * A weak ETag of a response text in Express's own format (`W/"<length hex>-<sha1 base64, 27>"`), for
 * bodies sent many times from a cache: setting it before `res.send` spares Express hashing the body
 * on every request, and conditional requests still get their 304.
 */
export function weakEtag(text: string): string {
  const hash = createHash('sha1').update(text).digest('base64').slice(0, 27);
  return `W/"${Buffer.byteLength(text).toString(16)}-${hash}"`;
}
