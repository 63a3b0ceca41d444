import { BadRequestError, type FieldError, InvalidError } from '../../platform/errors/domain-error';

/**
 * Coder's request decoding, by hand where the exact texts matter: wrong JSON types are
 * `Request body must be valid JSON.` (Go's decoder), failed `validate:` tags are
 * `Validation failed.` with `Validation failed for tag "<tag>" with value: "<value>"`.
 */
export type JsonBody = Record<string, unknown>;

function goType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

function badJson(struct: string, field: string, value: unknown, expected: string): BadRequestError {
  return new BadRequestError('Request body must be valid JSON.', {
    code: 'MALFORMED_JSON',
    detail: `json: cannot unmarshal ${goType(value)} into Go struct field ${struct}.${field} of type ${expected}`,
  });
}

/** The body as an object ({} when absent). */
export function bodyObject(body: unknown, struct: string): JsonBody {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestError('Request body must be valid JSON.', {
      code: 'MALFORMED_JSON',
      detail: `json: cannot unmarshal ${goType(body)} into Go value of type codersdk.${struct}`,
    });
  }
  return body as JsonBody;
}

export function stringField(body: JsonBody, field: string, struct: string): string {
  const value = body[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw badJson(struct, field, value, 'string');
  return value;
}

export function boolField(body: JsonBody, field: string, struct: string): boolean {
  const value = body[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw badJson(struct, field, value, 'bool');
  return value;
}

export function numberField(body: JsonBody, field: string, struct: string, goTypeName = 'int64'): number {
  const value = body[field];
  if (value === undefined || value === null) return 0;
  // Go integers (int64, time.Duration) refuse fractions and values beyond 64 bits.
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) >= 2 ** 63) throw badJson(struct, field, value, goTypeName);
  return value;
}

export function stringArrayField(body: JsonBody, field: string, struct: string): string[] {
  const value = body[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw badJson(struct, field, value, '[]string');
  }
  return value as string[];
}

export function objectField(body: JsonBody, field: string, struct: string): JsonBody | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw badJson(struct, field, value, 'object');
  return value as JsonBody;
}

/** go-playground's `email` (a pragmatic equivalent). */
export function isEmail(value: string): boolean {
  return /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:.]+$/.test(value) || /^[^\s@]+@localhost$/.test(value);
}

/** Collects `validate:` failures in field order; `throwIfAny` raises Coder's 400. */
export class CoderValidation {
  private readonly fields: FieldError[] = [];

  required(field: string, value: string): this {
    if (value === '') this.fail(field, 'required', value);
    return this;
  }

  email(field: string, value: string): this {
    if (value === '') this.fail(field, 'required', value);
    else if (!isEmail(value)) this.fail(field, 'email', value);
    return this;
  }

  fail(field: string, tag: string, value: string): this {
    this.fields.push({ field, rule: tag, detail: `Validation failed for tag "${tag}" with value: "${value}"` });
    return this;
  }

  throwIfAny(): void {
    if (this.fields.length > 0) throw new InvalidError('Validation failed.', { code: 'VALIDATION', fields: this.fields });
  }
}
