import { type FieldError, InvalidError } from '../../platform/errors/domain-error';

/**
 * Coder's search query language (`?q=status:active role:owner alice`) and its QueryParamParser
 * texts, for every Coder list route that takes `q`. Terms are split on spaces outside quotes;
 * `key:value` terms are filters, the other words join into one default term.
 */
export type SearchValues = Map<string, string[]>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function splitOutsideQuotes(text: string, delimiter: string, keepQuotes: boolean): string[] {
  const parts: string[] = [];
  let quoted = false;
  let current = '';
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (!quoted && char === delimiter) {
      if (current !== '') parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  if (current !== '') parts.push(current);
  return keepQuotes ? parts : parts.map((part) => part.replace(/^"+|"+$/g, ''));
}

/**
 * The `key:value` terms of a query. `defaultKey` receives the free words (joined by spaces) and
 * returns the key to file them under, or an error text.
 */
export function searchTerms(
  query: string,
  defaultKey: (term: string) => { key: string } | { error: string },
): { values: SearchValues } | { errors: FieldError[] } {
  const values: SearchValues = new Map();
  const add = (key: string, value: string) => values.set(key, [...(values.get(key) ?? []), value]);
  const tokens = splitOutsideQuotes(query, ' ', true);
  const elements = tokens.filter((token) => token.includes(':'));
  const words = tokens.filter((token) => !token.includes(':'));
  if (words.length > 0) elements.push(words.join(' '));
  for (const element of elements) {
    if (element.startsWith(':') || element.endsWith(':')) {
      return { errors: [{ field: 'q', detail: `Query element "${element}" cannot start or end with ':'` }] };
    }
    const parts = splitOutsideQuotes(element, ':', false);
    if (parts.length === 1) {
      const target = defaultKey(element);
      if ('error' in target) return { errors: [{ field: 'q', detail: target.error }] };
      add(target.key, parts[0]!);
    } else if (parts.length === 2) {
      add(parts[0]!.toLowerCase(), parts[1]!);
    } else {
      return { errors: [{ field: 'q', detail: `Query element "${element}" can only contain 1 ':'` }] };
    }
  }
  return { values };
}

/** Coder's httpapi.QueryParamParser over search values: typed reads that collect error texts. */
export class SearchParser {
  readonly errors: FieldError[] = [];
  private readonly used = new Set<string>();

  constructor(private readonly values: SearchValues) {}

  private first(key: string): string | undefined {
    this.used.add(key);
    const value = this.values.get(key)?.[0];
    return value === undefined || value === '' ? undefined : value;
  }

  string(key: string): string {
    return this.first(key) ?? '';
  }

  /** Comma-separated (and repeated) values, each parsed; bad ones are reported together. */
  list<T>(key: string, parse: (value: string) => T | undefined, what: (value: string) => string): T[] {
    this.used.add(key);
    const raw = (this.values.get(key) ?? []).flatMap((value) => value.split(',')).filter((v) => v !== '');
    const good: T[] = [];
    const bad: string[] = [];
    for (const value of raw) {
      const parsed = parse(value.trim());
      if (parsed === undefined) bad.push(what(value));
      else good.push(parsed);
    }
    if (bad.length > 0)
      this.errors.push({ field: key, detail: `Query param "${key}" has invalid values: ${bad.join(', ')}` });
    return good;
  }

  enumList<T extends string>(key: string, allowed: readonly T[]): T[] {
    return this.list(
      key,
      (value) => (allowed.includes(value as T) ? (value as T) : undefined),
      (value) => `"${value}" is not a valid value`,
    );
  }

  /** One enum value (Coder's ParseCustom with ParseEnum): anything else is `has invalid value: "x" is not a valid value`. */
  enumValue<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    const value = this.first(key);
    if (value === undefined) return undefined;
    if (allowed.includes(value as T)) return value as T;
    this.errors.push({
      field: key,
      detail: `Query param "${key}" has invalid value: "${value}" is not a valid value`,
    });
    return undefined;
  }

  nullableBool(key: string): boolean | undefined {
    const value = this.first(key);
    if (value === undefined) return undefined;
    const parsed = parseGoBool(value);
    if (parsed === undefined)
      this.errors.push({
        field: key,
        detail: `Query param "${key}" must be a valid boolean: invalid syntax`,
      });
    return parsed;
  }

  /** RFC 3339 (with optional fraction). */
  time(key: string): Date | undefined {
    const value = this.first(key);
    if (value === undefined) return undefined;
    const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value);
    const date = new Date(value);
    if (!ok || Number.isNaN(date.getTime())) {
      this.errors.push({
        field: key,
        detail: `Query param "${key}" must be a valid date format (2006-01-02T15:04:05.999999999Z07:00): parsing time "${value}"`,
      });
      return undefined;
    }
    return date;
  }

  /** `2006-01-02` dates (the audit log's `date_from` / `date_to`), as UTC midnight. */
  date(key: string): Date | undefined {
    const value = this.first(key);
    if (value === undefined) return undefined;
    const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(NaN);
    if (Number.isNaN(date.getTime())) {
      this.errors.push({
        field: key,
        detail: `Query param "${key}" must be a valid date format (2006-01-02): parsing time "${value}"`,
      });
      return undefined;
    }
    return date;
  }

  uuid(key: string): string | undefined {
    const value = this.first(key);
    if (value === undefined) return undefined;
    if (!UUID.test(value)) {
      this.errors.push({ field: key, detail: `Query param "${key}" must be a valid uuid` });
      return undefined;
    }
    return value.toLowerCase();
  }

  /** Keys the caller never read are errors (`ErrorExcessParams`). */
  finish(): FieldError[] {
    for (const key of this.values.keys()) {
      if (!this.used.has(key))
        this.errors.push({ field: key, detail: `Query param "${key}" is not a valid query param` });
    }
    return this.errors;
  }
}

/** Go's strconv.ParseBool. */
export function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

export interface CoderPage {
  limit: number;
  offset: number;
  afterId?: string;
}

/**
 * Coder's `ParsePagination`: `limit` and `offset` are positive 32-bit integers (0 = no limit),
 * `after_id` a uuid. Returns the errors to report as `Query parameters have invalid values.`.
 */
export function parsePagination(raw: {
  limit?: string;
  offset?: string;
  after_id?: string;
}): { page: CoderPage } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const int = (key: 'limit' | 'offset'): number => {
    const value = raw[key];
    if (value === undefined || value === '') return 0;
    const parsed = /^[+-]?\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 2 ** 31 - 1) {
      errors.push({
        field: key,
        detail: `Query param "${key}" must be a valid 32-bit positive integer`,
      });
      return 0;
    }
    return parsed;
  };
  const limit = int('limit');
  const offset = int('offset');
  let afterId: string | undefined;
  if (raw.after_id !== undefined && raw.after_id !== '') {
    if (UUID.test(raw.after_id)) afterId = raw.after_id.toLowerCase();
    else errors.push({ field: 'after_id', detail: 'Query param "after_id" must be a valid uuid' });
  }
  return errors.length > 0 ? { errors } : { page: { limit, offset, afterId } };
}

/** Coder's `limit`/`offset` query, or 400 `Query parameters have invalid values.`. */
export function coderPage(query: { limit?: string; offset?: string }): CoderPage {
  const parsed = parsePagination(query);
  if ('errors' in parsed)
    throw new InvalidError('Query parameters have invalid values.', {
      code: 'INVALID_QUERY',
      fields: parsed.errors,
    });
  return parsed.page;
}

/** A Coder search query (`q`) read by `read`; bad or unknown terms are 400 `Invalid workspace search query.` style texts. */
export function coderSearch<T>(
  q: string,
  defaultKey: string,
  message: string,
  read: (parser: SearchParser) => T,
): T {
  const terms = searchTerms(q, () => ({ key: defaultKey }));
  if ('errors' in terms) throw new InvalidError(message, { code: 'INVALID_QUERY', fields: terms.errors });
  const parser = new SearchParser(terms.values);
  const result = read(parser);
  const errors = parser.finish();
  if (errors.length > 0) throw new InvalidError(message, { code: 'INVALID_QUERY', fields: errors });
  return result;
}
