import { BadRequestError, type FieldError, InvalidError } from '../../../platform/errors/domain-error';
import { parseUuid } from './uuid';

export type ReadStatus = 'all' | 'read' | 'unread';

export interface InboxFilters {
  targets: string[];
  templates: string[];
  readStatus: ReadStatus;
  startingBefore?: string;
}

export interface WatchFilters extends InboxFilters {
  format: 'markdown' | 'plaintext';
}

/** Credential query parameters are not "excess" parameters (browsers cannot set WebSocket headers). */
export const CREDENTIAL_PARAMS = new Set([
  'service_session_token',
  'coder_session_token',
  'access_token',
  'token',
]);

export const READ_STATUS_MESSAGE =
  "starting_before query parameter should be any of 'all', 'read', 'unread'.";

function uuidList(params: URLSearchParams, name: string, errors: FieldError[]): string[] {
  const raw = params.get(name);
  if (raw === null || raw === '') return [];
  const good: string[] = [];
  const bad: string[] = [];
  for (const term of raw.split(',')) {
    const parsed = parseUuid(term.trim());
    if ('uuid' in parsed) good.push(parsed.uuid);
    else bad.push(term);
  }
  if (bad.length > 0) {
    errors.push({ field: name, detail: `Query param "${name}" has invalid values: ${bad.join(',')}` });
  }
  return good;
}

/**
 * Coder's QueryParamParser semantics over the raw query string: first value wins, an empty value
 * is absent, unknown parameters are errors. `watch` accepts `format` and refuses `starting_before`.
 */
export function parseInboxQuery(search: URLSearchParams, mode: 'list'): InboxFilters;
export function parseInboxQuery(search: URLSearchParams, mode: 'watch'): WatchFilters;
export function parseInboxQuery(
  search: URLSearchParams,
  mode: 'list' | 'watch',
): InboxFilters | WatchFilters {
  const errors: FieldError[] = [];
  const targets = uuidList(search, 'targets', errors);
  const templates = uuidList(search, 'templates', errors);
  const known = new Set(['targets', 'templates', 'read_status']);
  let startingBefore: string | undefined;
  let format: 'markdown' | 'plaintext' = 'markdown';
  if (mode === 'list') {
    known.add('starting_before');
    const raw = search.get('starting_before');
    if (raw !== null && raw !== '') {
      const parsed = parseUuid(raw);
      if ('uuid' in parsed) startingBefore = parsed.uuid;
      else
        errors.push({
          field: 'starting_before',
          detail: 'Query param "starting_before" must be a valid uuid',
        });
    }
  } else {
    known.add('format');
    format = search.get('format') === 'plaintext' ? 'plaintext' : 'markdown';
  }
  const seen = new Set<string>();
  for (const key of search.keys()) {
    if (seen.has(key)) continue;
    seen.add(key);
    if (known.has(key) || CREDENTIAL_PARAMS.has(key)) continue;
    errors.push({ field: key, detail: `Query param "${key}" is not a valid query param` });
  }
  if (errors.length > 0) {
    throw new InvalidError('Query parameters have invalid values.', {
      code: 'INVALID_QUERY',
      fields: errors,
    });
  }
  const rawStatus = search.get('read_status');
  const readStatus = rawStatus === null || rawStatus === '' ? 'all' : rawStatus;
  if (readStatus !== 'all' && readStatus !== 'read' && readStatus !== 'unread') {
    throw new BadRequestError(READ_STATUS_MESSAGE, { code: 'INVALID_READ_STATUS' });
  }
  return mode === 'list'
    ? { targets, templates, readStatus, startingBefore }
    : { targets, templates, readStatus, format };
}

export function searchParamsOf(url: string): URLSearchParams {
  return new URL(url, 'http://localhost').searchParams;
}
