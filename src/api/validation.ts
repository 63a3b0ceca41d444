import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { InvalidError, type FieldError } from '../platform/errors/domain-error';

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  const fields: FieldError[] = [];
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    for (const [rule, detail] of Object.entries(error.constraints ?? {})) fields.push({ field, detail, rule });
    if (error.children?.length) fields.push(...flatten(error.children, field));
  }
  return fields;
}

/**
 * Validation at the edge: DTOs with class-validator; unknown fields are stripped (none of the
 * three dialects rejects them). Failures become one InvalidError that each dialect renders.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) =>
      new InvalidError('Validation failed.', { code: 'VALIDATION', fields: flatten(errors) }),
  });
}
