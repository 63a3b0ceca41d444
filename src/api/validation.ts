import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { InvalidError, type FieldError } from '../platform/errors/domain-error';
import { memoizeValidationMetadata } from './validation-metadata-cache';

/** The code of every InvalidError raised by DTO validation; dialect renderers format these. */
export const DTO_VALIDATION = 'VALIDATION';

/**
 * Flattens class-validator's tree into one FieldError per failed constraint, in declaration
 * order, keeping what a dialect's formatter needs: the constraint name (`rule`), its message,
 * the value, the decorator's `context` and the DTO class name (`target`).
 */
export function flattenValidationErrors(errors: ValidationError[], prefix = ''): FieldError[] {
  const fields: FieldError[] = [];
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const target = error.target?.constructor?.name;
    for (const [rule, detail] of Object.entries(error.constraints ?? {})) {
      const context = error.contexts?.[rule] as Record<string, unknown> | undefined;
      fields.push({
        field,
        detail,
        rule,
        value: error.value,
        ...(context ? { context } : {}),
        ...(target ? { target } : {}),
      });
    }
    if (error.children?.length) fields.push(...flattenValidationErrors(error.children, field));
  }
  return fields;
}

/**
 * Validation at the edge: DTOs with class-validator; unknown fields are stripped (none of the
 * three dialects rejects them). Failures become one InvalidError (code VALIDATION) carrying the
 * constraint metadata; each dialect's formatter (`src/api/<dialect>/`) turns it into its texts.
 */
export function createValidationPipe(): ValidationPipe {
  memoizeValidationMetadata();
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) =>
      new InvalidError('Validation failed.', {
        code: DTO_VALIDATION,
        fields: flattenValidationErrors(errors),
      }),
  });
}
