import type { ValidationOptions } from 'class-validator';
import type { FieldError } from '../../platform/errors/domain-error';

/** Context key of a class-validator decorator that chooses the OCS 400 text of its failure. */
export const OCS_MESSAGE = 'ocsMessage';

/**
 * Options for a class-validator decorator on an OCS DTO whose failure has its own OCS text
 * (`@IsString(ocsMessage('The given name is invalid'))`). `%s` is replaced by the parameter name.
 */
export function ocsMessage(message: string, options: ValidationOptions = {}): ValidationOptions {
  return {
    ...options,
    context: { ...(options.context as Record<string, unknown> | undefined), [OCS_MESSAGE]: message },
  };
}

/**
 * The OCS formatter of DTO validation failures (InvalidError code VALIDATION): OCS answers one
 * message, for the first failing parameter in the DTO's declaration order (Nextcloud's controllers
 * take parameters in that order). The text is the decorator's `ocsMessage` context, else devplane's
 * `Parameter "<name>" is missing or has the wrong type` (Nextcloud itself answers 500 there).
 * A nested failure (`checks.0.class`) names the request parameter (`checks`).
 */
export function ocsValidationMessage(fields: readonly FieldError[]): string {
  const first = fields[0];
  if (!first) return 'Invalid request parameters';
  const parameter = first.field.split('.')[0]!;
  const custom = first.context?.[OCS_MESSAGE];
  if (typeof custom === 'string') return custom.replace('%s', parameter);
  return `Parameter "${parameter}" is missing or has the wrong type`;
}
