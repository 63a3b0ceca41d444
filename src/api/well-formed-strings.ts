import type { NextFunction, Request, Response } from 'express';
import { wellFormed } from '../platform/text/well-formed';

/**
 * Every lone UTF-16 surrogate of a parsed JSON (or form) body (run by the body guard, src/api/body) becomes U+FFFD before validation (platform/text), so
 * all modules see, validate and answer the string that will be stored.
 */
export function wellFormedStrings() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (req.body !== null && typeof req.body === 'object') req.body = wellFormed(req.body as unknown);
    next();
  };
}
