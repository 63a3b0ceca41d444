import type { NextFunction, Request, Response } from 'express';

type Unicode = { isWellFormed(): boolean; toWellFormed(): string };

function wellFormed(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return (value as unknown as Unicode).isWellFormed() ? value : (value as unknown as Unicode).toWellFormed();
  }
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = wellFormed(value[i], depth + 1);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const fixedKey = wellFormed(key) as string;
    const fixedValue = wellFormed(record[key], depth + 1);
    if (fixedKey !== key) delete record[key];
    record[fixedKey] = fixedValue;
  }
  return record;
}

/**
 * JSON may carry a lone UTF-16 surrogate (`"\ud800"`), which no UTF-8 store can hold: PostgreSQL
 * refuses it in jsonb (a 500) and turns it into U+FFFD in text (so an answer differed from what was
 * stored). Like Go's JSON decoder (Coder, Gitea), every lone surrogate of a JSON body becomes
 * U+FFFD before validation, so all modules see the string that will be stored.
 */
export function wellFormedStrings() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (req.body !== null && typeof req.body === 'object') req.body = wellFormed(req.body);
    next();
  };
}
