import { InvalidError } from '../../platform/errors/domain-error';
import { bindingEmailOk, isValidUsername, runeLength } from '../identity/gitea-rules';

/**
 * Gitea's request binding for this module's JSON bodies: JSON type errors first (the decoder),
 * then the rules of each field in declaration order; only the first failure is reported, as
 * `[GoFieldName]: Rule` (422). Unknown fields are ignored. Exact texts matter here, so these
 * bodies are checked by hand instead of through class-validator's unordered constraints.
 */

type Kind = 'string' | 'int' | 'bool';

interface FieldSpec {
  json: string;
  go: string;
  kind: Kind;
  rules?: Rule[];
}

type Rule =
  | { rule: 'Required' }
  | { rule: 'MaxSize'; max: number }
  | { rule: 'Email' }
  | { rule: 'Username' }
  | { rule: 'In'; values: string[] }
  | { rule: 'Url' };

const goType: Record<Kind, string> = { string: 'string', int: 'int64', bool: 'bool' };

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

function bindError(message: string): InvalidError {
  return new InvalidError(message, { code: 'GITEA_BINDING' });
}

function validUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function checkRule(rule: Rule, value: unknown): string | null {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  switch (rule.rule) {
    case 'Required':
      return value === undefined || value === null || value === '' || value === 0 || value === false ? 'Required' : null;
    case 'MaxSize':
      return runeLength(text) > rule.max ? 'MaxSize' : null;
    case 'Email':
      return text !== '' && !bindingEmailOk(text) ? 'Email' : null;
    case 'Username':
      return text !== '' && !isValidUsername(text) ? 'invalid username' : null;
    case 'In':
      return !rule.values.includes(text) ? 'In' : null;
    case 'Url':
      return text !== '' && !validUrl(text) ? 'Url' : null;
  }
}

function bind<T>(structName: string, fields: FieldSpec[], body: unknown): T {
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw bindError(`[]: json: cannot unmarshal ${jsonKind(body)} into Go value of type api.${structName}`);
  }
  const input = body as Record<string, unknown>;
  // The decoder runs first: a type error anywhere wins over every rule.
  for (const spec of fields) {
    const value = input[spec.json];
    if (value === undefined || value === null) continue;
    const ok =
      spec.kind === 'string'
        ? typeof value === 'string'
        : spec.kind === 'bool'
          ? typeof value === 'boolean'
          : typeof value === 'number' && Number.isSafeInteger(value);
    if (!ok) {
      throw bindError(
        `[]: json: cannot unmarshal ${jsonKind(value)} into Go struct field ${structName}.${spec.json} of type ${goType[spec.kind]}`,
      );
    }
  }
  for (const spec of fields) {
    const value = input[spec.json];
    for (const rule of spec.rules ?? []) {
      // Optional rules (all but Required) skip absent values.
      if (rule.rule !== 'Required' && (value === undefined || value === null)) continue;
      const failed = checkRule(rule, value);
      if (failed) throw bindError(`[${spec.go}]: ${failed}`);
    }
  }
  const result: Record<string, unknown> = {};
  for (const spec of fields) if (input[spec.json] !== undefined && input[spec.json] !== null) result[spec.json] = input[spec.json];
  return result as T;
}

const VISIBILITY_IN: Rule = { rule: 'In', values: ['', 'public', 'limited', 'private'] };

export interface CreateUserInput {
  source_id?: number;
  login_name?: string;
  username: string;
  full_name?: string;
  email: string;
  password?: string;
  must_change_password?: boolean;
  send_notify?: boolean;
  restricted?: boolean;
  visibility?: string;
  created_at?: string;
  /** `created_at` as an instant (set by the binding). */
  createdAt?: Date;
}

export function bindCreateUser(body: unknown): CreateUserInput {
  const bound = bind<CreateUserInput>(
    'CreateUserOption',
    [
      { json: 'source_id', go: 'SourceID', kind: 'int' },
      { json: 'login_name', go: 'LoginName', kind: 'string', rules: [{ rule: 'MaxSize', max: 255 }] },
      { json: 'username', go: 'Username', kind: 'string', rules: [{ rule: 'Required' }, { rule: 'Username' }, { rule: 'MaxSize', max: 40 }] },
      { json: 'full_name', go: 'FullName', kind: 'string', rules: [{ rule: 'MaxSize', max: 100 }] },
      { json: 'email', go: 'Email', kind: 'string', rules: [{ rule: 'Required' }, { rule: 'Email' }, { rule: 'MaxSize', max: 254 }] },
      { json: 'password', go: 'Password', kind: 'string', rules: [{ rule: 'MaxSize', max: 255 }] },
      { json: 'must_change_password', go: 'MustChangePassword', kind: 'bool' },
      { json: 'send_notify', go: 'SendNotify', kind: 'bool' },
      { json: 'restricted', go: 'Restricted', kind: 'bool' },
      { json: 'visibility', go: 'Visibility', kind: 'string', rules: [VISIBILITY_IN] },
      { json: 'created_at', go: 'Created', kind: 'string' },
    ],
    body,
  );
  if (bound.created_at !== undefined) {
    const parsed = parseRfc3339(bound.created_at);
    if (parsed === 'syntax') {
      throw bindError(`[]: parsing time "\\"${bound.created_at}\\"" as "\\"2006-01-02T15:04:05Z07:00\\"": cannot parse`);
    }
    if (typeof parsed === 'string') throw bindError(`[]: parsing time "\\"${bound.created_at}\\"": ${parsed} out of range`);
    bound.createdAt = parsed;
  }
  return bound;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Go's time.Parse(RFC3339) as the JSON decoder applies it: the instant, 'syntax' when the text
 * does not have the layout, or the name of the field out of range (Go: "day out of range").
 * Computed here rather than by Date.parse, which rolls 30 February over to March, accepts hour 24
 * and refuses the offsets +24:00 that Go accepts.
 */
function parseRfc3339(value: string): Date | string {
  const match = RFC3339.exec(value);
  if (!match) return 'syntax';
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = match[7] ? Number(`0${match[7]}`) : 0;
  const sign = match[8] === '-' ? -1 : 1;
  const offsetHour = match[9] ? Number(match[9]) : 0;
  const offsetMinute = match[10] ? Number(match[10]) : 0;
  if (month < 1 || month > 12) return 'month';
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  if (day < 1 || day > days) return 'day';
  if (hour > 23) return 'hour';
  if (minute > 59) return 'minute';
  if (second > 59) return 'second';
  if (offsetHour > 24) return 'time zone offset hour';
  if (offsetMinute > 59) return 'time zone offset minute';
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // setUTCFullYear keeps years 0-99 as written
  date.setUTCHours(hour, minute, second, Math.floor(fraction * 1000));
  return new Date(date.getTime() - sign * (offsetHour * 60 + offsetMinute) * 60_000);
}

export interface EditUserInput {
  source_id?: number;
  login_name: string;
  email?: string;
  full_name?: string;
  password?: string;
  must_change_password?: boolean;
  website?: string;
  location?: string;
  description?: string;
  active?: boolean;
  admin?: boolean;
  allow_git_hook?: boolean;
  allow_import_local?: boolean;
  max_repo_creation?: number;
  prohibit_login?: boolean;
  allow_create_organization?: boolean;
  restricted?: boolean;
  visibility?: string;
}

export function bindEditUser(body: unknown): EditUserInput {
  return bind<EditUserInput>(
    'EditUserOption',
    [
      { json: 'source_id', go: 'SourceID', kind: 'int' },
      { json: 'login_name', go: 'LoginName', kind: 'string', rules: [{ rule: 'Required' }, { rule: 'MaxSize', max: 255 }] },
      { json: 'email', go: 'Email', kind: 'string', rules: [{ rule: 'MaxSize', max: 254 }] },
      { json: 'full_name', go: 'FullName', kind: 'string', rules: [{ rule: 'MaxSize', max: 100 }] },
      { json: 'password', go: 'Password', kind: 'string', rules: [{ rule: 'MaxSize', max: 255 }] },
      { json: 'must_change_password', go: 'MustChangePassword', kind: 'bool' },
      { json: 'website', go: 'Website', kind: 'string', rules: [{ rule: 'Url' }, { rule: 'MaxSize', max: 255 }] },
      { json: 'location', go: 'Location', kind: 'string', rules: [{ rule: 'MaxSize', max: 50 }] },
      { json: 'description', go: 'Description', kind: 'string', rules: [{ rule: 'MaxSize', max: 255 }] },
      { json: 'active', go: 'Active', kind: 'bool' },
      { json: 'admin', go: 'Admin', kind: 'bool' },
      { json: 'allow_git_hook', go: 'AllowGitHook', kind: 'bool' },
      { json: 'allow_import_local', go: 'AllowImportLocal', kind: 'bool' },
      { json: 'max_repo_creation', go: 'MaxRepoCreation', kind: 'int' },
      { json: 'prohibit_login', go: 'ProhibitLogin', kind: 'bool' },
      { json: 'allow_create_organization', go: 'AllowCreateOrganization', kind: 'bool' },
      { json: 'restricted', go: 'Restricted', kind: 'bool' },
      { json: 'visibility', go: 'Visibility', kind: 'string', rules: [VISIBILITY_IN] },
    ],
    body,
  );
}

export function bindRenameUser(body: unknown): { new_username: string } {
  return bind<{ new_username: string }>(
    'RenameUserOption',
    [{ json: 'new_username', go: 'NewName', kind: 'string', rules: [{ rule: 'Required' }, { rule: 'MaxSize', max: 40 }] }],
    body,
  );
}

export function bindCreateKey(body: unknown): { title: string; key: string; read_only?: boolean } {
  return bind<{ title: string; key: string; read_only?: boolean }>(
    'CreateKeyOption',
    [
      { json: 'title', go: 'Title', kind: 'string', rules: [{ rule: 'Required' }, { rule: 'MaxSize', max: 255 }] },
      { json: 'key', go: 'Key', kind: 'string', rules: [{ rule: 'Required' }] },
      { json: 'read_only', go: 'ReadOnly', kind: 'bool' },
    ],
    body,
  );
}
