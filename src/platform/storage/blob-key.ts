import { BadRequestError } from '../errors/domain-error';

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/;

/** Refuses keys that could escape the store's root or mean different things to different drivers. */
export function assertBlobKey(key: string): void {
  const segments = key.split('/');
  if (
    key.length === 0 ||
    key.length > 1024 ||
    segments.some((segment) => !SEGMENT.test(segment) || segment.includes('..'))
  ) {
    throw new BadRequestError('Invalid blob key.', { code: 'BLOB_KEY' });
  }
}
