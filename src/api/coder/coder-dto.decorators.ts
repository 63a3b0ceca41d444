import { Expose, Transform } from 'class-transformer';
import { registerDecorator, type ValidationArguments } from 'class-validator';

/**
 * Decorators that give a Coder request DTO both its validation and Coder's naming: the Go struct
 * it mirrors (`@GoStruct`), each field's Go type (`@GoType`, checked like Go's JSON decoder) and
 * its go-playground `validate:` tags (`@GoValidate`). The formatter (`coder-validation.ts`) builds
 * Coder's texts from the constraint names and contexts only.
 */

/** Constraint names the formatter reads. */
export const GO_TYPE = 'goType';
export const GO_VALIDATE = 'goValidate';
export const QUERY_BOOL = 'queryBool';

/** How a route treats a request without a body: Go's decoder says `EOF`; some handlers decode `{}`. */
export type AbsentBody = 'eof' | 'empty';

export interface GoStructOptions {
  absentBody?: AbsentBody;
}

interface GoStructInfo {
  name: string;
  absentBody: AbsentBody;
}

const GO_STRUCT = Symbol('coder:go-struct');
/** Class name → Go struct, for the formatter (validation errors carry the DTO class name as `target`). */
const STRUCTS_BY_CLASS = new Map<string, GoStructInfo>();

/** The Go struct (codersdk.<name>) a DTO class mirrors. */
export function GoStruct(name: string, options: GoStructOptions = {}): ClassDecorator {
  return (target) => {
    const info: GoStructInfo = { name, absentBody: options.absentBody ?? 'empty' };
    Reflect.defineMetadata(GO_STRUCT, info, target);
    STRUCTS_BY_CLASS.set(target.name, info);
  };
}

export function goStructOf(type: unknown): GoStructInfo | undefined {
  return typeof type === 'function'
    ? (Reflect.getMetadata(GO_STRUCT, type) as GoStructInfo | undefined)
    : undefined;
}

export function goStructNamed(className: string | undefined): string | undefined {
  return className === undefined ? undefined : STRUCTS_BY_CLASS.get(className)?.name;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map);
}

const isInt64 = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 2 ** 63;

const GO_UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Whether `value` decodes into Go type `goType` (absent and null decode to the zero value). */
export function decodesAs(value: unknown, goType: string): boolean {
  if (value === undefined || value === null) return true;
  switch (goType) {
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'int64':
    case 'time.Duration':
      return isInt64(value);
    case '[]string':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'map[string]bool':
      return isPlainObject(value) && Object.values(value).every((item) => typeof item === 'boolean');
    case 'map[string]string':
      return isPlainObject(value) && Object.values(value).every((item) => typeof item === 'string');
    case 'uuid.UUID':
      return typeof value === 'string' && GO_UUID.test(value);
    case '[]uuid.UUID':
      return Array.isArray(value) && value.every((item) => typeof item === 'string' && GO_UUID.test(item));
  }
  if (goType.startsWith('[]'))
    return (
      Array.isArray(value) &&
      value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))
    );
  if (goType.startsWith('map[string]')) {
    const entries =
      value instanceof Map ? [...value.values()] : isPlainObject(value) ? Object.values(value) : undefined;
    return (
      entries !== undefined &&
      entries.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))
    );
  }
  return typeof value === 'object' && !Array.isArray(value); // a struct
}

/** Go's name for the JSON kind of `value` (`json: cannot unmarshal <kind> into ...`). */
export function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

/**
 * The element that fails a container type and the Go type it should have had, for Go's message
 * (`... of type bool` for a bad map value). The container itself when it has the wrong kind.
 */
export function firstMismatch(value: unknown, goType: string): { value: unknown; goType: string } {
  if (goType === 'map[string]bool' && isPlainObject(value)) {
    const bad = Object.values(value).find((item) => typeof item !== 'boolean');
    return { value: bad, goType: 'bool' };
  }
  if (goType.startsWith('[]') && Array.isArray(value)) {
    const element = goType.slice(2);
    const bad = value.find((item) => !decodesAs(item, element) || item === null);
    if (bad !== undefined) return { value: bad, goType: element };
  }
  return { value, goType };
}

/** The field's Go type, checked as Go's JSON decoder would (a mismatch is `Request body must be valid JSON.`). */
export function GoType(goType: string): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: GO_TYPE,
      target: target.constructor,
      propertyName: propertyName as string,
      // `struct`: the DTO class, whose @GoStruct names the Go struct in the decoder's text.
      options: { context: { goType, struct: target.constructor } },
      validator: {
        validate: (value: unknown) => decodesAs(value, goType),
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'field'} must decode as Go ${goType}`,
      },
    });
}

/** go-playground validator tags Coder uses on request structs (with Coder's registered name rules). */
export type GoTag = 'required' | 'email' | 'username' | 'user_real_name' | 'group_display_name';

/** go-playground's `email` (a pragmatic equivalent). */
export function isGoEmail(value: string): boolean {
  return (
    /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:.]+$/.test(value) ||
    /^[^\s@]+@localhost$/.test(value)
  );
}

/** Coder's `codersdk.NameValid` (user, organization and group names): 1-32 of `[a-zA-Z0-9]` joined by single hyphens, not `new`/`create`. */
export function isCoderName(value: string): boolean {
  return (
    value.length >= 1 &&
    value.length <= 32 &&
    value !== 'new' &&
    value !== 'create' &&
    /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/.test(value)
  );
}

/** Coder's `NormalizeRealUsername` rule: at most 128 characters, no surrounding whitespace. */
export function isCoderRealName(value: string): boolean {
  return [...value].length <= 128 && value === value.trim();
}

/** The first of `tags` the value fails (empty values pass every tag but `required`, as `omitempty` does). */
export function failingTag(value: unknown, tags: readonly GoTag[]): GoTag | undefined {
  const text = typeof value === 'string' ? value : '';
  for (const tag of tags) {
    if (tag === 'required') {
      if (text === '') return tag;
      continue;
    }
    if (text === '') continue;
    if (tag === 'email' && !isGoEmail(text)) return tag;
    if (tag === 'username' && !isCoderName(text)) return tag;
    if ((tag === 'user_real_name' || tag === 'group_display_name') && !isCoderRealName(text)) return tag;
  }
  return undefined;
}

/**
 * A `validate:"<tags>"` struct tag: the first failing tag is reported (go-playground stops at it),
 * as `Validation failed for tag "<tag>" with value: "<value>"`. Values of the wrong type are left to @GoType.
 */
export function GoValidate(...tags: GoTag[]): PropertyDecorator {
  const failing = (value: unknown): GoTag | undefined =>
    value !== undefined && value !== null && typeof value !== 'string' ? undefined : failingTag(value, tags);
  return (target, propertyName) =>
    registerDecorator({
      name: GO_VALIDATE,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { context: { tags } },
      validator: {
        validate: (value: unknown) => failing(value) === undefined,
        defaultMessage: (args?: ValidationArguments) =>
          `Validation failed for tag "${failing(args?.value) ?? tags[0]}" with value: "${String(args?.value ?? '')}"`,
      },
    });
}

/**
 * A boolean query parameter as Coder's QueryParamParser reads it: absent or empty is false,
 * `true`/`false`, anything else is `Query param "<name>" must be a valid boolean: invalid syntax`.
 */
export function QueryBool(): PropertyDecorator {
  const transform = Transform(({ value }: { value: unknown }) =>
    value === undefined || value === '' ? false : value === 'true' ? true : value === 'false' ? false : value,
  );
  return (target, propertyName) => {
    transform(target, propertyName);
    registerDecorator({
      name: QUERY_BOOL,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { context: { query: 'bool' } },
      validator: {
        validate: (value: unknown) => value === undefined || typeof value === 'boolean',
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'param'} must be a valid boolean`,
      },
    });
  };
}

/** Constraint names of Coder query parameters (QueryParamParser texts; the detail is the constraint message). */
export const QUERY_PARAM = 'queryParam';
export const QUERY_UNKNOWN = 'queryUnknown';
export const QUERY_ENUM = 'queryEnum';

/** Go's uuid.Parse: the canonical form, or the error text. */
export type UuidParser = (raw: string) => { uuid: string } | { error: string };

/** QueryParamParser reads the first value of a repeated parameter; an empty value is absent. */
function firstValue(obj: Record<string, unknown>, key: string): unknown {
  const raw = obj[key];
  const value = Array.isArray(raw) ? (raw as unknown[])[0] : raw;
  return value === '' ? undefined : value;
}

function queryConstraint(
  name: string,
  validate: (value: unknown) => boolean,
  message: (args: ValidationArguments) => string,
  context: Record<string, unknown> = {},
): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: propertyName as string,
      options: { context },
      validator: { validate, defaultMessage: (args?: ValidationArguments) => (args ? message(args) : name) },
    });
}

/** A comma-separated list of UUIDs (`?targets=a,b`): the canonical uuids, or `Query param "x" has invalid values: <bad>`. */
export function QueryUuidList(parse: UuidParser): PropertyDecorator {
  const transform = Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const value = firstValue(obj, key);
    if (typeof value !== 'string') return value;
    const parsed = value.split(',').map((term) => parse(term.trim()));
    return parsed.every((item) => 'uuid' in item)
      ? parsed.map((item) => (item as { uuid: string }).uuid)
      : value;
  });
  const check = queryConstraint(
    QUERY_PARAM,
    (value) => value === undefined || Array.isArray(value),
    ({ property, value }) => {
      const bad =
        typeof value === 'string'
          ? value.split(',').filter((term) => !('uuid' in parse(term.trim())))
          : [String(value)];
      return `Query param "${property}" has invalid values: ${bad.join(',')}`;
    },
  );
  return (target, propertyName) => {
    transform(target, propertyName);
    check(target, propertyName);
  };
}

/** One UUID (`?starting_before=`): canonical, or `Query param "x" must be a valid uuid`. */
export function QueryUuid(parse: UuidParser): PropertyDecorator {
  const transform = Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const value = firstValue(obj, key);
    if (typeof value !== 'string') return value;
    const parsed = parse(value);
    return 'uuid' in parsed ? parsed.uuid : value;
  });
  const check = queryConstraint(
    QUERY_PARAM,
    (value) => value === undefined || (typeof value === 'string' && 'uuid' in parse(value)),
    ({ property }) => `Query param "${property}" must be a valid uuid`,
  );
  return (target, propertyName) => {
    transform(target, propertyName);
    check(target, propertyName);
  };
}

/**
 * A parameter with a closed set of values, checked after the others (its handler answers
 * `message` alone, without validations).
 */
export function QueryEnum(values: readonly string[], message: string): PropertyDecorator {
  const transform = Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) =>
    firstValue(obj, key),
  );
  const check = queryConstraint(
    QUERY_ENUM,
    (value) => value === undefined || (typeof value === 'string' && values.includes(value)),
    () => message,
    { message },
  );
  return (target, propertyName) => {
    transform(target, propertyName);
    check(target, propertyName);
  };
}

/** The first value of a free-form parameter (absent when empty). */
export function QueryString(): PropertyDecorator {
  const transform = Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    const value = firstValue(obj, key);
    return typeof value === 'string' ? value : undefined;
  });
  const keep = queryConstraint(
    QUERY_PARAM,
    () => true,
    () => '',
  );
  return (target, propertyName) => {
    transform(target, propertyName);
    keep(target, propertyName);
  };
}

/**
 * QueryParamParser's "unknown parameters are errors" on a DTO: put on a (never sent) property, it
 * collects the request's parameters that are neither DTO fields nor `allowed` (credential parameters);
 * each is `Query param "<name>" is not a valid query param`. Declare it last: its errors follow the others.
 */
export function QueryRejectUnknown(
  known: readonly string[],
  allowed: readonly string[] = [],
): PropertyDecorator {
  const accepted = new Set([...known, ...allowed]);
  const expose = Expose();
  const transform = Transform(({ obj }: { obj: Record<string, unknown> }) =>
    Object.keys(obj).filter((key) => !accepted.has(key)),
  );
  const check = queryConstraint(
    QUERY_UNKNOWN,
    (value) => !Array.isArray(value) || value.length === 0,
    ({ value }) =>
      Array.isArray(value)
        ? value.map((key) => `Query param "${String(key)}" is not a valid query param`).join('; ')
        : '',
  );
  return (target, propertyName) => {
    expose(target, propertyName);
    transform(target, propertyName);
    check(target, propertyName);
  };
}
