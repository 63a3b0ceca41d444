import type { FieldError } from '../../platform/errors/domain-error';
import { GITEA_CONTEXT, type GiteaRuleContext } from './gitea-binding.decorators';

/** Gitea names binding rules after its validators; plain class-validator constraint names map onto them. */
const RULE_NAMES: Record<string, string> = {
  required: 'Required',
  isDefined: 'Required',
  isNotEmpty: 'Required',
  maxLength: 'MaxSize',
  max_size: 'MaxSize',
  minLength: 'MinSize',
  isIn: 'In',
  isEnum: 'In',
  in: 'In',
  isEmail: 'Email',
  email: 'Email',
  isUrl: 'ValidUrl',
  matches: 'Regexp',
  isInt: 'Int',
  isBoolean: 'Bool',
  isString: 'String',
  whitelistValidation: 'Unknown',
};

/** `source_id` → `SourceId`: the Go field name when the DTO does not name it. */
export function goFieldName(field: string): string {
  return field
    .split(/[_.]/)
    .filter((part) => part !== '')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

function giteaContext(field: FieldError): GiteaRuleContext | undefined {
  return field.context?.[GITEA_CONTEXT] as GiteaRuleContext | undefined;
}

/**
 * Gitea's binding message from DTO validation failures (fields in struct order, rules in tag
 * order): the JSON decoder's error first (`[]: json: cannot unmarshal ...`), else only the first
 * failure, `[GoFieldName]: Rule` (a handler check's own message as it is).
 */
export function giteaValidationMessage(fields: FieldError[], fallback: string): string {
  const decode = fields.find((field) => giteaContext(field)?.phase === 'decode');
  if (decode) return `[]: ${decode.detail}`;
  const first = fields[0];
  if (!first) return fallback;
  const context = giteaContext(first);
  if (context?.phase === 'message') return first.detail;
  const rule =
    context?.text ?? context?.rule ?? (first.rule ? (RULE_NAMES[first.rule] ?? first.rule) : first.detail);
  return `[${context?.name ?? goFieldName(first.field)}]: ${rule}`;
}
