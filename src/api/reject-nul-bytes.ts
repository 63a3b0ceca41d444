import type { NextFunction, Request, Response } from 'express';
import { BadRequestError } from '../platform/errors/domain-error';

export const NUL_CHARACTER = 'Request contains a NUL character.';

/** Whether a parsed body holds a NUL character in any string or key. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  for (const item of Array.isArray(value) ? value : Object.entries(value as Record<string, unknown>).flat()) {
    if (containsNul(item, depth + 1)) return true;
  }
  return false;
}

/**
 * PostgreSQL text cannot hold NUL, so a NUL byte anywhere in the path or the query would fail in the
 * database (a 500). It is refused at the edge instead, before routing, in the dialect's shape. Parsed
 * bodies are checked by the body guard (JSON and form routes only; streams and files may hold NUL).
 */
export function rejectNulBytes(onError: (error: unknown, req: Request, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (/%00/i.test(req.originalUrl) || req.originalUrl.includes('\u0000')) {
      onError(new BadRequestError(NUL_CHARACTER, { code: 'NUL_CHARACTER' }), req, res);
      return;
    }
    next();
  };
}
