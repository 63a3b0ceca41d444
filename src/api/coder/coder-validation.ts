import { BadRequestError, type FieldError, InvalidError } from '../../platform/errors/domain-error';
import {
  failingTag,
  firstMismatch,
  GO_TYPE,
  GO_VALIDATE,
  type GoTag,
  goStructNamed,
  goStructOf,
  jsonKind,
  QUERY_BOOL,
  QUERY_ENUM,
  QUERY_PARAM,
  QUERY_UNKNOWN,
} from './coder-dto.decorators';

export const CODER_BAD_JSON = 'Request body must be valid JSON.';
export const CODER_VALIDATION_FAILED = 'Validation failed.';
/** Code of the formatted failures (distinct from the pipe's raw DTO_VALIDATION). */
export const CODER_VALIDATION = 'CODER_VALIDATION';
export const CODER_BAD_QUERY = 'Query parameters have invalid values.';

function lastSegment(field: string): string {
  const dot = field.lastIndexOf('.');
  return dot < 0 ? field : field.slice(dot + 1);
}

function structOf(field: FieldError): string {
  const owner = field.context?.struct;
  return goStructOf(owner)?.name ?? goStructNamed(field.target) ?? (field.target ?? '').replace(/Dto$/, '');
}

/** Go's decoder text for a value of the wrong JSON kind. */
export function unmarshalDetail(field: FieldError): string {
  const goType = String(field.context?.goType ?? 'string');
  const mismatch = firstMismatch(field.value, goType);
  return `json: cannot unmarshal ${jsonKind(mismatch.value)} into Go struct field ${structOf(field)}.${lastSegment(field.field)} of type ${mismatch.goType}`;
}

/** Go's decoder text for a body that is not a JSON object. */
export function unmarshalBodyDetail(value: unknown, struct: string): string {
  return `json: cannot unmarshal ${jsonKind(value)} into Go value of type codersdk.${struct}`;
}

/**
 * The Coder dialect's one formatter of DTO validation failures (constraint metadata → Coder texts),
 * in the order Coder's handlers meet them:
 * 1. query parameters of the wrong kind, or unknown: 400 `Query parameters have invalid values.` + validations;
 *    then a value outside a closed set: 400 with the parameter's own message;
 * 2. a JSON value of the wrong Go type: 400 `Request body must be valid JSON.` with Go's decoder text
 *    (the first one, as Go stops there);
 * 3. failed `validate:` tags: 400 `Validation failed.` + `validations[{field, detail}]`.
 */
export function coderValidationError(fields: FieldError[]): BadRequestError | InvalidError {
  const query = fields.flatMap((field): FieldError[] => {
    if (field.rule === QUERY_BOOL)
      return [
        {
          field: field.field,
          detail: `Query param "${field.field}" must be a valid boolean: invalid syntax`,
        },
      ];
    if (field.rule === QUERY_PARAM) return [{ field: field.field, detail: field.detail }];
    if (field.rule === QUERY_UNKNOWN && Array.isArray(field.value)) {
      return (field.value as string[]).map((name) => ({
        field: name,
        detail: `Query param "${name}" is not a valid query param`,
      }));
    }
    return [];
  });
  if (query.length > 0) return new InvalidError(CODER_BAD_QUERY, { code: 'INVALID_QUERY', fields: query });
  const enumerated = fields.find((field) => field.rule === QUERY_ENUM);
  if (enumerated)
    return new BadRequestError(String(enumerated.context?.message ?? enumerated.detail), {
      code: 'INVALID_QUERY',
    });
  const typed = fields.find((field) => field.rule === GO_TYPE);
  if (typed)
    return new BadRequestError(CODER_BAD_JSON, { code: 'MALFORMED_JSON', detail: unmarshalDetail(typed) });
  const nested = fields.find((field) => field.rule === 'nestedValidation');
  if (nested) {
    return new BadRequestError(CODER_BAD_JSON, {
      code: 'MALFORMED_JSON',
      detail: `json: cannot unmarshal ${jsonKind(nested.value)} into Go struct field ${structOf(nested)}.${lastSegment(nested.field)}`,
    });
  }
  const tagged = fields
    .filter((field) => field.rule === GO_VALIDATE)
    .map(({ field, value, context }) => {
      const tags = (context?.tags as GoTag[] | undefined) ?? ['required'];
      const tag = failingTag(value, tags) ?? tags[0]!;
      return {
        field: lastSegment(field),
        rule: tag,
        detail: `Validation failed for tag "${tag}" with value: "${typeof value === 'string' ? value : ''}"`,
      };
    });
  if (tagged.length > 0)
    return new InvalidError(CODER_VALIDATION_FAILED, { code: CODER_VALIDATION, fields: tagged });
  // Constraints without Coder naming (a DTO missing its decorators): still Coder's shape.
  return new InvalidError(CODER_VALIDATION_FAILED, {
    code: CODER_VALIDATION,
    fields: fields.map(({ field, detail }) => ({ field, detail })),
  });
}
