import { Transform } from 'class-transformer';
import { Allow, ValidateBy, type ValidationArguments } from 'class-validator';
import {
  bindingEmailOk,
  bindingUrlOk,
  isValidGitRefName,
  isValidUsername,
  jsonKind,
  parseGoBool,
  parseGoTime,
  runeLength,
} from './gitea-binding-rules';

/**
 * Gitea's request binding as class-validator constraints. Go's JSON decoder runs first (type
 * errors, `[]: json: cannot unmarshal ...`), then the binding rules of each field in struct order
 * (`[GoFieldName]: Rule`); Gitea reports only the first failure. Each constraint carries a
 * `context.gitea` (GiteaRuleContext) that the formatter (`gitea-validation.ts`) reads.
 *
 *   @GoStruct('CreateUserOption')
 *   class CreateUserOptionDto {
 *     @GoType('string') @Binding('Required;Username;MaxSize(40)') username: string;
 *     @GoType('string') @GoTime() @Binding('', { name: 'Created' }) created_at?: string;
 *   }
 *
 * Write `@GoType` and `@Binding` on every body field (unknown fields are stripped, as Go ignores them).
 */

/** What the Gitea formatter needs to know about a failed constraint. */
export interface GiteaRuleContext {
  /** `decode`: a Go JSON decoder error (message `[]: <detail>`); `bind`: a binding rule; `message`: a handler check, sent verbatim. */
  phase: 'decode' | 'bind' | 'message';
  /** Binding rule name (`Required`, `MaxSize`, ...). */
  rule?: string;
  /** The text Gitea prints for the rule when it is not the rule name (`Username` prints `invalid username`). */
  text?: string;
  /** The Go struct field name when it is not the JSON name in PascalCase (`created_at` is `Created`). */
  name?: string;
}

/** The key of GiteaRuleContext in a constraint's `context`. */
export const GITEA_CONTEXT = 'gitea';

const structNames = new WeakMap<object, string>();

/** The Go struct (`api.<name>`) a body DTO stands for; named in decoder messages. */
export function GoStruct(name: string): ClassDecorator {
  return (target) => {
    structNames.set(target, name);
  };
}

function structName(owner: object): string {
  return structNames.get(owner) ?? (owner as { name?: string }).name?.replace(/Dto$/, '') ?? '';
}

function context(value: GiteaRuleContext): { context: Record<string, unknown> } {
  return { context: { [GITEA_CONTEXT]: value } };
}

export type GoKind = 'string' | 'int64' | 'bool' | '[]string' | '[]int64';

function hasKind(kind: GoKind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'int64':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case '[]string':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case '[]int64':
      return (
        Array.isArray(value) && value.every((item) => typeof item === 'number' && Number.isSafeInteger(item))
      );
  }
}

/**
 * The Go type of a body field: a JSON value of another type is the decoder's error. JSON `null`
 * leaves the field unset, as in Go. A body that is not a JSON object (an array; strings and
 * numbers are refused by the strict JSON parser first) fails here too, with the decoder's text.
 */
export function GoType(kind: GoKind): PropertyDecorator {
  return (target, key) => {
    const owner = target.constructor;
    Transform(({ value }: { value: unknown }) => (value === null ? undefined : value))(target, key);
    ValidateBy(
      {
        name: 'goType',
        constraints: [kind],
        validator: {
          validate: (value: unknown, args?: ValidationArguments) =>
            !Array.isArray(args?.object) && (value === undefined || value === null || hasKind(kind, value)),
          defaultMessage: (args?: ValidationArguments) =>
            Array.isArray(args?.object)
              ? `json: cannot unmarshal array into Go value of type api.${structName(owner)}`
              : `json: cannot unmarshal ${jsonKind(args?.value)} into Go struct field ${structName(owner)}.${String(key)} of type ${kind}`,
        },
      },
      context({ phase: 'decode' }),
    )(target, key as string);
  };
}

/** A `time.Time` field: an RFC 3339 string, decoded as Go does (its errors are decoder errors). */
export function GoTime(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'goTime',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || parseGoTime(value).ok,
        defaultMessage: (args?: ValidationArguments) => {
          const parsed = typeof args?.value === 'string' ? parseGoTime(args.value) : null;
          return parsed && !parsed.ok ? parsed.error : 'cannot parse';
        },
      },
    },
    context({ phase: 'decode' }),
  ) as PropertyDecorator;
}

interface RuleSpec {
  /** True when the value passes; values of the wrong type pass (the decoder reports them). */
  test(value: unknown): boolean;
  text?: string;
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === '' || value === 0 || value === false;
const onString = (check: (text: string) => boolean) => (value: unknown) =>
  typeof value !== 'string' || check(value);

function ruleSpec(rule: string, args: string[]): RuleSpec {
  const size = () => {
    const n = Number(args[0]);
    if (!Number.isInteger(n)) throw new Error(`Gitea binding rule ${rule} needs a size`);
    return n;
  };
  switch (rule) {
    case 'Required':
      return { test: (value) => !isEmpty(value) };
    case 'MaxSize': {
      const max = size();
      return { test: onString((text) => runeLength(text) <= max) };
    }
    case 'MinSize': {
      const min = size();
      return { test: onString((text) => text === '' || runeLength(text) >= min) };
    }
    case 'Email':
      return { test: onString((text) => text === '' || bindingEmailOk(text)) };
    case 'Url':
      return { test: onString((text) => text === '' || bindingUrlOk(text)) };
    case 'Username':
      return { test: onString((text) => text === '' || isValidUsername(text)), text: 'invalid username' };
    case 'In':
      return { test: onString((text) => args.includes(text)) };
    case 'GitRefName':
      return { test: onString((text) => text === '' || isValidGitRefName(text)) };
    default:
      throw new Error(`unknown Gitea binding rule ${rule}`);
  }
}

/**
 * A field's Gitea `binding:"..."` tag, e.g. `Required;Email;MaxSize(254)` or
 * `In(,public,limited,private)`: one constraint per rule, checked in the tag's order. `name` is
 * the Go field name when it is not the JSON name in PascalCase.
 */
export function Binding(tag: string, options: { name?: string } = {}): PropertyDecorator {
  const rules = tag
    .split(';')
    .filter((part) => part !== '')
    .map((part) => {
      const match = /^(\w+)(?:\((.*)\))?$/.exec(part);
      if (!match) throw new Error(`bad Gitea binding rule ${part}`);
      const [, rule = '', list] = match;
      return { rule, spec: ruleSpec(rule, list === undefined ? [] : list.split(',')) };
    });
  return (target, key) => {
    for (const { rule, spec } of rules) {
      ValidateBy(
        {
          name: rule,
          validator: {
            validate: (value: unknown) => spec.test(value),
            defaultMessage: () => spec.text ?? rule,
          },
        },
        context({
          phase: 'bind',
          rule,
          ...(spec.text ? { text: spec.text } : {}),
          ...(options.name ? { name: options.name } : {}),
        }),
      )(target, key as string);
    }
    // A field without rules still belongs to the struct (whitelist).
    if (rules.length === 0) Allow()(target, key as string);
  };
}

/**
 * A check of the handler (not of the binding) on a query or body value, answered with a message of
 * its own (422 `{"message": "Invalid sort order: \"up\""}`); checked in field order with the rest.
 */
export function GiteaCheck(
  test: (value: unknown, dto: object) => boolean,
  message: (value: unknown) => string,
): PropertyDecorator {
  return ValidateBy(
    {
      name: 'giteaCheck',
      validator: {
        validate: (value: unknown, args?: ValidationArguments) => test(value, args?.object ?? {}),
        defaultMessage: (args?: ValidationArguments) => message(args?.value),
      },
    },
    context({ phase: 'message' }),
  ) as PropertyDecorator;
}

function firstValue(value: unknown): string {
  if (Array.isArray(value)) return firstValue(value[0]);
  return typeof value === 'string' ? value : '';
}

/**
 * A form (query) value as Gitea's `ctx.FormString` reads it: the first value of a repeated
 * parameter; a nested one (`q[a]=1`) or none is `''`. Absent parameters keep the DTO's default.
 */
export function FormString(): PropertyDecorator {
  return (target, key) => {
    Transform(({ value }: { value: unknown }) => firstValue(value))(target, key);
    Allow()(target, key as string);
  };
}

/** A boolean form value: Go's ParseBool of the first value; empty is unset, anything else not a boolean is false. */
export function FormBool(): PropertyDecorator {
  return (target, key) => {
    Transform(({ value }: { value: unknown }) => {
      const text = firstValue(value);
      return text === '' ? undefined : (parseGoBool(text) ?? false);
    })(target, key);
    Allow()(target, key as string);
  };
}
